//! Every name decision of the generator, in one place.
//!
//! Canonical names are PascalCase, derived from `$defs` keys, tag values,
//! enum constants and titles; synthesized types are named from their owner
//! and the member they sit in. The wire name is always kept beside a
//! canonical name so that renames are emitted only where the two differ.

/// Splits `text` into words at separators, case changes and digit runs.
fn words(text: &str) -> Vec<String> {
    let mut result = Vec::new();
    let mut current = String::new();
    let characters: Vec<char> = text.chars().collect();
    for (index, &character) in characters.iter().enumerate() {
        if !character.is_alphanumeric() {
            if !current.is_empty() {
                result.push(std::mem::take(&mut current));
            }
            continue;
        }
        if let Some(&previous) = current.chars().last().as_ref() {
            let next = characters.get(index + 1).copied();
            let lower_to_upper = previous.is_lowercase() && character.is_uppercase();
            let acronym_end =
                previous.is_uppercase() && character.is_uppercase() && next.is_some_and(char::is_lowercase);
            let digit_boundary = previous.is_ascii_digit() != character.is_ascii_digit() && !previous.is_ascii_digit();
            if lower_to_upper || acronym_end || digit_boundary {
                result.push(std::mem::take(&mut current));
            }
        }
        current.push(character);
    }
    if !current.is_empty() {
        result.push(current);
    }
    result
}

/// `agent_message_chunk` -> `AgentMessageChunk`, `Parse error` -> `ParseError`,
/// `TextResourceContents` stays. A name that would start with a digit gets a
/// `Value` prefix; an empty one becomes `Empty`.
pub fn pascal_case(text: &str) -> String {
    let mut name: String = words(text)
        .iter()
        .map(|word| {
            let mut characters = word.chars();
            match characters.next() {
                Some(first) => first.to_uppercase().chain(characters).collect::<String>(),
                None => String::new(),
            }
        })
        .collect();
    if name.is_empty() {
        return "Empty".to_owned();
    }
    if name.starts_with(|character: char| character.is_ascii_digit()) {
        name.insert_str(0, "Value");
    }
    name
}

/// `sessionUpdate` -> `session_update`, `_meta` -> `meta`.
pub fn snake_case(text: &str) -> String {
    words(text)
        .iter()
        .map(|word| word.to_lowercase())
        .collect::<Vec<_>>()
        .join("_")
}

/// The canonical name of a `$defs` entry.
pub fn definition_name(key: &str) -> String {
    pascal_case(key)
}

/// The name of a type synthesized for the member `member` of `owner`.
pub fn member_type_name(owner: &str, member: &str) -> String {
    format!("{owner}{}", pascal_case(member))
}

/// The name of a union that sits beside `properties` in `owner`: named after
/// its tag property when it has one (`SessionConfigOption` + `type`), else `Kind`.
pub fn flattened_union_name(owner: &str, tag_property: Option<&str>) -> String {
    member_type_name(owner, tag_property.unwrap_or("kind"))
}

/// A union variant's name without a repetition of its union's name
/// (`AuthMethod` + `AuthMethodAgent` -> `Agent`, `MultiSelectItems` +
/// `TitledMultiSelectItems` -> `Titled`), or `None` when nothing repeats or
/// what remains is not a name of its own.
pub fn variant_without_repetition(union: &str, variant: &str) -> Option<String> {
    let rest = variant.strip_prefix(union).or_else(|| variant.strip_suffix(union))?;
    rest.starts_with(|first: char| first.is_ascii_uppercase())
        .then(|| rest.to_owned())
}

/// The name of an integer enum constant without a title.
pub fn integer_constant_name(value: i64) -> String {
    if value < 0 {
        format!("Minus{}", value.unsigned_abs())
    } else {
        format!("Value{value}")
    }
}

/// The name of a catch-all member: its title, made distinct from `taken`.
pub fn catch_all_name(title: Option<&str>, taken: &[String]) -> String {
    let mut name = pascal_case(title.unwrap_or("other"));
    while taken.contains(&name) {
        name.push_str("Value");
    }
    name
}

/// The name of an untagged union member that accepts any JSON value (one
/// that states only annotations, such as a description): `Other`, numbered
/// by the collision rule's form (`Other2`, ...) when a sibling variant
/// already holds the name.
pub fn any_json_variant_name(taken: &[String]) -> String {
    let base = pascal_case("other");
    let mut name = base.clone();
    let mut number = 1;
    while taken.contains(&name) {
        number += 1;
        name = numbered_type(&base, number);
    }
    name
}

// ---- the collision rule ------------------------------------------------------

/// The one collision rule, for definition names, member names and enum
/// constants in every language: when several wire names map to one name
/// (`foo` and `Foo`, `fooBar` and `foo_bar`, `self` and `Self`), they are
/// taken in the byte order of their wire names; the first keeps the name
/// and each later one gets the first numbered form (`Foo2`, `foo_bar_2`)
/// that no other wire name maps to. A name is taken when any of `forms`
/// (each language's identifier for it) is, so the result is distinct in
/// every language. `reserved` names (a tag member, say) keep their base
/// names and are never renamed. The result does not depend on the order
/// of `wires`; each entry is the name and whether it differs from the base.
pub fn distinct(
    wires: &[&str],
    reserved: &[&str],
    base: impl Fn(&str) -> String,
    numbered: fn(&str, usize) -> String,
    forms: &[fn(&str) -> String],
) -> Vec<(String, bool)> {
    let mut taken: Vec<std::collections::BTreeSet<String>> =
        forms.iter().map(|_| std::collections::BTreeSet::new()).collect();
    let bases: Vec<std::collections::BTreeSet<String>> = forms
        .iter()
        .map(|form| wires.iter().chain(reserved).map(|wire| form(&base(wire))).collect())
        .collect();
    let free = |taken: &[std::collections::BTreeSet<String>], name: &str, own: bool| {
        forms.iter().enumerate().all(|(index, form)| {
            let identifier = form(name);
            !taken[index].contains(&identifier) && (own || !bases[index].contains(&identifier))
        })
    };
    let claim = |taken: &mut [std::collections::BTreeSet<String>], name: &str| {
        for (index, form) in forms.iter().enumerate() {
            taken[index].insert(form(name));
        }
    };
    for wire in reserved {
        claim(&mut taken, &base(wire));
    }
    let mut order: Vec<usize> = (0..wires.len()).collect();
    order.sort_by(|left, right| wires[*left].cmp(wires[*right]));
    let mut names = vec![(String::new(), false); wires.len()];
    for index in order {
        let own = base(wires[index]);
        let mut name = own.clone();
        let mut number = 1;
        while !free(&taken, &name, name == own) {
            number += 1;
            name = numbered(&own, number);
        }
        claim(&mut taken, &name);
        names[index] = (name.clone(), name != own);
    }
    names
}

/// A member's name in code (snake_case), numbered `_2`, `_3`... by [`distinct`].
pub fn member_name(wire_name: &str) -> String {
    snake_case(wire_name)
}

/// The numbered form of a member name: `foo_bar` -> `foo_bar_2`.
pub fn numbered_member(base: &str, number: usize) -> String {
    format!("{base}_{number}")
}

/// The numbered form of a type or constant name: `Foo` -> `Foo2`.
pub fn numbered_type(base: &str, number: usize) -> String {
    format!("{base}{number}")
}

/// The identifiers a member name takes in the languages that name members:
/// Rust fields, Python attributes and Go fields (TypeScript keeps the wire
/// name).
pub const MEMBER_FORMS: [fn(&str) -> String; 3] = [rust_field, python_attribute, go_field];

/// The identifiers a type name takes in each language.
pub const TYPE_FORMS: [fn(&str) -> String; 4] = [rust_type, typescript_type, python_class, go_type];

/// The identifiers an enum constant takes: Rust variants and Python members.
pub const CONSTANT_FORMS: [fn(&str) -> String; 2] = [rust_type, python_constant];

// ---- per-language identifiers -------------------------------------------

const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
    "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self",
    "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "abstract",
    "become", "box", "do", "final", "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];
/// Keywords that cannot be raw identifiers.
const RUST_NON_RAW: &[&str] = &["crate", "self", "Self", "super", "_"];

/// A Rust field or function name for `name` (snake_case; keywords raw, `r#type`).
pub fn rust_field(name: &str) -> String {
    let snake = snake_case(name);
    let snake = if snake.is_empty() || snake.starts_with(|c: char| c.is_ascii_digit()) {
        format!("field_{snake}")
    } else {
        snake
    };
    if RUST_NON_RAW.contains(&snake.as_str()) {
        format!("{snake}_")
    } else if RUST_KEYWORDS.contains(&snake.as_str()) {
        format!("r#{snake}")
    } else {
        snake
    }
}

/// A Rust type or variant name for a canonical name (keywords get a `_` suffix).
pub fn rust_type(canonical: &str) -> String {
    if RUST_KEYWORDS.contains(&canonical) {
        format!("{canonical}_")
    } else {
        canonical.to_owned()
    }
}

/// A Rust constant name: `session/load` -> `SESSION_LOAD`.
pub fn rust_constant(name: &str) -> String {
    let upper = snake_case(name).to_uppercase();
    if upper.is_empty() || upper.starts_with(|c: char| c.is_ascii_digit()) {
        format!("N_{upper}")
    } else {
        upper
    }
}

const TYPESCRIPT_RESERVED: &[&str] = &[
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "as",
    "implements",
    "interface",
    "let",
    "package",
    "private",
    "protected",
    "public",
    "static",
    "yield",
    "any",
    "boolean",
    "number",
    "string",
    "symbol",
    "unknown",
    "never",
    "object",
    "undefined",
    "type",
    "declare",
    "Object",
    "String",
    "Number",
    "Boolean",
    "Array",
    "Record",
    "Map",
    "Set",
    "Promise",
    "Error",
    "Symbol",
    "Date",
    "Function",
    "JSON",
    "Partial",
    "Readonly",
];

/// A TypeScript type name for a canonical name; names that are reserved or
/// shadow a global get a `_` suffix.
pub fn typescript_type(canonical: &str) -> String {
    if TYPESCRIPT_RESERVED.contains(&canonical) {
        format!("{canonical}_")
    } else {
        canonical.to_owned()
    }
}

/// A TypeScript method or function name: `session/load` -> `sessionLoad`.
pub fn typescript_function(name: &str) -> String {
    let pascal = pascal_case(name);
    let mut characters = pascal.chars();
    let camel: String = match characters.next() {
        Some(first) => first.to_lowercase().chain(characters).collect(),
        None => String::new(),
    };
    if TYPESCRIPT_RESERVED.contains(&camel.as_str()) {
        format!("{camel}_")
    } else {
        camel
    }
}

/// A TypeScript property key: the wire name, quoted when it is not an identifier.
pub fn typescript_property(wire_name: &str) -> String {
    let identifier = wire_name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && wire_name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if identifier {
        wire_name.to_owned()
    } else {
        serde_json::to_string(wire_name).expect("a string always serializes")
    }
}

const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "match", "case", "type",
];
/// Names a pydantic `BaseModel` attribute cannot take, and `self`, which
/// every generated method and constructor takes first.
const PYDANTIC_RESERVED: &[&str] = &[
    "copy",
    "dict",
    "json",
    "schema",
    "schema_json",
    "construct",
    "validate",
    "fields",
    "parse_obj",
    "parse_raw",
    "from_orm",
    "self",
];

/// A Python attribute or function name: snake_case, with a `_` suffix for
/// keywords and names pydantic reserves (`model_*` included).
pub fn python_attribute(name: &str) -> String {
    let snake = snake_case(name);
    let snake = if snake.is_empty() || snake.starts_with(|c: char| c.is_ascii_digit()) {
        format!("field_{snake}")
    } else {
        snake
    };
    if PYTHON_KEYWORDS.contains(&snake.as_str())
        || PYDANTIC_RESERVED.contains(&snake.as_str())
        || snake.starts_with("model_")
    {
        format!("{snake}_")
    } else {
        snake
    }
}

/// A Python class name for a canonical name.
pub fn python_class(canonical: &str) -> String {
    if PYTHON_KEYWORDS.contains(&canonical)
        || ["BaseModel", "Field", "Any", "Optional", "Literal", "Union"].contains(&canonical)
    {
        format!("{canonical}_")
    } else {
        canonical.to_owned()
    }
}

/// A Python constant name: `session/load` -> `SESSION_LOAD`.
pub fn python_constant(name: &str) -> String {
    rust_constant(name)
}

/// The exported names of the Go runtime (`templates/go/`) and the fixed
/// names of the generated files (method tables, negotiation, RFD helpers),
/// which a
/// generated type must not take.
const GO_RESERVED: &[&str] = &[
    "ArrayValue",
    "BoolValue",
    "CapabilityError",
    "CurrentProtocolVersion",
    "DecodeError",
    "Entry",
    "ExpiredSession",
    "ExtensionNotificationHandler",
    "ExtensionRequestHandler",
    "GateInfo",
    "Kind",
    "KindArray",
    "KindBool",
    "KindNull",
    "KindNumber",
    "KindObject",
    "KindString",
    "LookupMethod",
    "MaxDepth",
    "Member",
    "MethodInfo",
    "Methods",
    "Negotiate",
    "NegotiateJSON",
    "Negotiated",
    "NegotiationError",
    "NewSessionReadyGate",
    "NewTurnTracker",
    "NextStep",
    "NextStepFor",
    "NextStepLoad",
    "NextStepNew",
    "NextStepNotNegotiated",
    "NextStepPrompt",
    "NonNull",
    "NotificationInfo",
    "Null",
    "NullValue",
    "Nullable",
    "Number",
    "NumberValue",
    "ObjectValue",
    "Observation",
    "Optional",
    "Parse",
    "RequestError",
    "RequestInfo",
    "Roundtrip",
    "SessionReadyGate",
    "Some",
    "StringValue",
    "TurnTracker",
    "Value",
    "Violation",
];

/// The methods every generated Go type has, which no field may be called.
const GO_METHODS: &[&str] = &["MarshalJSON", "UnmarshalJSON"];

/// A Go type name for a canonical name (exported; the runtime's names get
/// a `_` suffix).
pub fn go_type(canonical: &str) -> String {
    if GO_RESERVED.contains(&canonical) {
        format!("{canonical}_")
    } else {
        canonical.to_owned()
    }
}

/// A Go field name for a member's name in code: exported PascalCase
/// (`session_id` -> `SessionId`); the generated methods' names get a `_`
/// suffix.
pub fn go_field(name: &str) -> String {
    let pascal = pascal_case(name);
    if GO_METHODS.contains(&pascal.as_str()) {
        format!("{pascal}_")
    } else {
        pascal
    }
}

/// The Go type of a union's variant, or of an enum's constant: the owner's
/// name and the variant's, with `Variant` appended while `taken` says the
/// name is in use.
pub fn go_member_type(owner: &str, member: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut name = go_type(&member_type_name(owner, member));
    while taken(&name) {
        name.push_str("Variant");
    }
    name
}

/// The Go field holding the flattened type `flattened` of `owner`
/// ([`flattened_member`]), or, while that is `taken` by another field, its
/// whole name.
pub fn go_flattened_field(owner: &str, flattened: &str, taken: impl Fn(&str) -> bool) -> String {
    let short = go_field(&flattened_member(owner, flattened));
    if taken(&short) {
        go_field(flattened)
    } else {
        short
    }
}

/// The Go field holding the members an object does not name: `Extra`,
/// with `Members` appended while `taken` says the name is in use.
pub fn go_extra_field(taken: impl Fn(&str) -> bool) -> String {
    let mut name = "Extra".to_owned();
    while taken(&name) {
        name.push_str("Members");
    }
    name
}

/// The Go method that gives an optional member's value or its schema
/// default: `mode` -> `ModeOrDefault`, with `Value` appended while `taken`
/// says the name is in use.
pub fn go_default_accessor(name: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut accessor = go_field(&format!("{name}_or_default"));
    while taken(&accessor) {
        accessor.push_str("Value");
    }
    accessor
}

/// The exported Go function that decodes a union (an interface, which has
/// no methods of its own) from JSON text: `DecodeContentBlock`, with
/// `Value` appended while `taken` says the name is in use.
pub fn go_union_decoder(go_type: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut name = format!("Decode{go_type}");
    while taken(&name) {
        name.push_str("Value");
    }
    name
}

/// The unexported Go functions that decode and encode the type (or variant)
/// `go_type`: `decodeSessionId`, `encodeSessionId`.
pub fn go_codec_functions(go_type: &str) -> [String; 2] {
    [format!("decode{go_type}"), format!("encode{go_type}")]
}

/// The Go method that handles a message ([`handler`]): `session/prompt` ->
/// `SessionPrompt`, `proxy/successor notification` ->
/// `ProxySuccessorNotification`.
pub fn go_handler(handler: &str) -> String {
    pascal_case(handler)
}

/// The small Go interface of an optional handler ([`go_handler`]), which
/// an implementation satisfies to handle it: `session/load` ->
/// `SessionLoadHandler`.
pub fn go_handler_interface(handler: &str) -> String {
    format!("{}Handler", pascal_case(handler))
}

/// The Go constant holding a method's wire name: `session/prompt` ->
/// `MethodSessionPrompt`.
pub fn go_method_constant(method: &str) -> String {
    format!("Method{}", pascal_case(method))
}

/// A Go function named after a verb, a method side and a role:
/// (`dispatch`, `agent`, `request`) -> `DispatchAgentRequest`.
pub fn go_side_function(verb: &str, side: &str, role: &str) -> String {
    pascal_case(&format!("{verb} {side} {role}"))
}

/// The unexported twin of [`go_side_function`] that a connection calls with
/// params it already parsed: (`dispatch`, `agent`, `request`) ->
/// `dispatchAgentRequestParsed`.
pub fn go_side_function_parsed(verb: &str, side: &str, role: &str) -> String {
    let exported = go_side_function(verb, side, role);
    let mut letters = exported.chars();
    let first = letters.next().map(|letter| letter.to_ascii_lowercase());
    first.into_iter().chain(letters).chain("Parsed".chars()).collect()
}

/// The Python class of a union's variant: the union's name and the
/// variant's, with `Variant` appended while `taken` says the name is in use.
pub fn python_variant_class(union: &str, variant: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut name = python_class(&member_type_name(union, variant));
    while taken(&name) {
        name.push_str("Variant");
    }
    name
}

/// The Python method that gives a field's value or its schema default:
/// `mode` -> `mode_or_default`.
pub fn python_default_accessor(wire_name: &str) -> String {
    python_attribute(&format!("{wire_name}_or_default"))
}

/// The name in code of the member that holds the flattened type
/// `flattened` of the type `owner`: what its name adds to the owner's
/// (`SessionConfigOption` + `SessionConfigOptionType` -> `type`,
/// `CreateElicitationRequest` + `CreateElicitationRequestMode` -> `mode`),
/// else its whole name in snake_case.
pub fn flattened_member(owner: &str, flattened: &str) -> String {
    let short = flattened
        .strip_prefix(owner)
        .filter(|rest| rest.starts_with(|first: char| first.is_ascii_uppercase()));
    snake_case(short.unwrap_or(flattened))
}

/// The Python attribute that holds the flattened member `flattened` of
/// `owner` ([`flattened_member`]), or, while that is `taken` by another
/// member, its whole name.
pub fn python_flattened_attribute(owner: &str, flattened: &str, taken: impl Fn(&str) -> bool) -> String {
    let short = python_attribute(&flattened_member(owner, flattened));
    if taken(&short) {
        python_attribute(flattened)
    } else {
        short
    }
}

/// The Rust field that holds the flattened member `flattened` of `owner`
/// ([`flattened_member`]), or, while that is `taken` by another field, its
/// whole name.
pub fn rust_flattened_field(owner: &str, flattened: &str, taken: impl Fn(&str) -> bool) -> String {
    let short = rust_field(&flattened_member(owner, flattened));
    if taken(&short) {
        rust_field(flattened)
    } else {
        short
    }
}

/// The Python union of the params a side handles, per role: (`agent`,
/// `request`) -> `AgentHandledRequest` (the schema has `AgentRequest`, the
/// envelope of the requests the agent sends).
/// The name of an endpoint's interface, trait or protocol in every
/// language: `Agent`, `Client`, `Proxy`.
pub fn endpoint_type(side: crate::ir::Side) -> String {
    pascal_case(side.as_str())
}

pub fn python_handled_union(side: &str, role: &str) -> String {
    python_class(&pascal_case(&format!("{side} handled {role}")))
}

/// A Python function of a side and a role: (`decode`, `agent`, `request`) ->
/// `decode_agent_request`.
pub fn python_side_function(verb: &str, side: &str, role: &str) -> String {
    python_attribute(&format!("{verb} {side} {role}"))
}

/// The Python table of the params a side handles, per role: (`agent`,
/// `request`) -> `AGENT_REQUESTS`.
pub fn python_side_table(side: &str, role: &str) -> String {
    python_constant(&format!("{side} {role}s"))
}

/// The handler of a message, in canonical words: the method name
/// (`session/prompt`); a notification whose handling endpoint also handles
/// a request of that name gets ` notification` after it
/// (`proxy/successor notification`), so the two keep apart. A response is
/// answered by its request's handler. Each language's identifier function
/// ([`rust_handler`], [`python_handler`], [`typescript_handler`]) makes it
/// a name.
pub fn handler(method: &crate::ir::Method, kind: crate::ir::MessageKind) -> String {
    let beside_request = kind == crate::ir::MessageKind::Notification
        && method.request.as_ref().is_some_and(|request| {
            method.notification.as_ref().is_some_and(|notification| {
                crate::ir::Side::ENDPOINTS
                    .into_iter()
                    .any(|endpoint| request.side.handled_by(endpoint) && notification.side.handled_by(endpoint))
            })
        });
    if beside_request {
        format!("{} notification", method.name)
    } else {
        method.name.clone()
    }
}

/// The canonical words of a message's handler interface, where every
/// side's interfaces share one namespace (Go's package): [`handler`]'s name,
/// except that a notification whose method also names a request always
/// gets `<method> notification`, whichever sides handle the two.
pub fn handler_interface(method: &crate::ir::Method, kind: crate::ir::MessageKind) -> String {
    if kind == crate::ir::MessageKind::Notification && method.request.is_some() {
        format!("{} notification", method.name)
    } else {
        handler(method, kind)
    }
}

/// The Python handler of a message ([`handler`]): `session/prompt` ->
/// `session_prompt`, `mcp/message notification` -> `mcp_message_notification`.
pub fn python_handler(handler: &str) -> String {
    python_attribute(handler)
}

/// The Rust trait function of a message ([`handler`]): `session/prompt` ->
/// `session_prompt`, `proxy/successor notification` ->
/// `proxy_successor_notification`.
pub fn rust_handler(handler: &str) -> String {
    rust_field(handler)
}

/// The canonical words of the handlers of the requests a capability offers
/// (a method gate, [`crate::advertising::MethodGate`]) or an opening answer
/// offers per session (a [`crate::ir::SessionGate`]): the tokens of its
/// pointer, inside its side's capabilities or of the opening answers'
/// member, then `handler` (`/loadSession` -> `loadSession handler`,
/// `/fs/readTextFile` -> `fs readTextFile handler`, `/modes` -> `modes
/// handler`). Rust names from it the trait that holds them
/// ([`rust_gate_trait`]) and the side trait's function that gives them
/// ([`rust_gate_accessor`]).
pub fn gate_handler(pointer: &str) -> String {
    let mut words: Vec<&str> = pointer.split('/').filter(|token| !token.is_empty()).collect();
    words.push("handler");
    words.join(" ")
}

/// The Rust trait of a gate's handlers ([`gate_handler`]): `/loadSession`
/// -> `LoadSessionHandler`, `/terminal` -> `TerminalHandler`, `/modes` ->
/// `ModesHandler`.
pub fn rust_gate_trait(pointer: &str) -> String {
    rust_type(&pascal_case(&gate_handler(pointer)))
}

/// The side trait's function that gives a gate's handlers
/// ([`gate_handler`]): `/loadSession` -> `load_session_handler`,
/// `/fs/readTextFile` -> `fs_read_text_file_handler`, apart from the
/// request's own handler (`fs_read_text_file`) that its trait holds.
pub fn rust_gate_accessor(pointer: &str) -> String {
    rust_field(&gate_handler(pointer))
}

/// The TypeScript handler member of a message ([`handler`]):
/// `session/prompt` -> `sessionPrompt`.
pub fn typescript_handler(handler: &str) -> String {
    typescript_function(handler)
}

/// The distribution (pip) name of a Python import name: `acp_bindings` ->
/// `acp-bindings`; `None` when `package` is not a plain Python identifier.
pub fn python_distribution(package: &str) -> Option<String> {
    let identifier = package
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && package.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !PYTHON_KEYWORDS.contains(&package);
    identifier.then(|| package.replace('_', "-"))
}

/// The prefix ACP reserves for extensions: extension method names
/// (`_zed/cursor`), and the tags and values an implementation adds to an
/// extensible union or an open enum.
pub const EXTENSION_PREFIX: &str = "_";

/// The TypeScript type guard of a union's variant: (`SessionUpdate`,
/// `ToolCall`) -> `isSessionUpdateToolCall`; a repetition of the union's
/// name is dropped (`McpServer`, `McpServerStdio`) -> `isMcpServerStdio`.
pub fn typescript_guard(union: &str, variant: &str) -> String {
    let variant = variant_without_repetition(union, variant).unwrap_or_else(|| variant.to_owned());
    format!("is{union}{variant}")
}

/// A TypeScript function named after a verb, a method side and a role:
/// (`dispatch`, `agent`, `request`) -> `dispatchAgentRequest`.
pub fn typescript_side_function(verb: &str, side: &str, role: &str) -> String {
    typescript_function(&format!("{verb} {side} {role}"))
}

/// The TypeScript decoder function of a canonical type name: `decodeSessionId`.
pub fn typescript_decoder(canonical: &str) -> String {
    format!("decode{canonical}")
}

/// The TypeScript constant holding the schema defaults of a struct's members:
/// `AgentCapabilitiesDefaults`.
pub fn typescript_defaults(canonical: &str) -> String {
    format!("{canonical}Defaults")
}

/// A TypeScript type named after a method side and a role: (`agent`,
/// `requests`) -> `AgentRequests`, (`client`, ``) -> `Client`.
pub fn typescript_side_type(side: &str, role: &str) -> String {
    typescript_type(&pascal_case(&format!("{side} {role}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gates_handlers_are_named_from_its_pointer() {
        assert_eq!(
            gate_handler("/sessionCapabilities/list"),
            "sessionCapabilities list handler"
        );
        assert_eq!(rust_gate_trait("/loadSession"), "LoadSessionHandler");
        assert_eq!(rust_gate_trait("/fs/readTextFile"), "FsReadTextFileHandler");
        assert_eq!(rust_gate_accessor("/loadSession"), "load_session_handler");
        assert_eq!(rust_gate_accessor("/fs/readTextFile"), "fs_read_text_file_handler");
        assert_eq!(rust_gate_accessor("/terminal"), "terminal_handler");
        assert_eq!(rust_gate_trait("/configOptions"), "ConfigOptionsHandler");
        assert_eq!(rust_gate_accessor("/configOptions"), "config_options_handler");
    }

    #[test]
    fn pascal_case_table() {
        let table = [
            ("agent_message_chunk", "AgentMessageChunk"),
            ("turn_complete", "TurnComplete"),
            ("Parse error", "ParseError"),
            ("TextResourceContents", "TextResourceContents"),
            ("http", "Http"),
            ("_meta", "Meta"),
            ("session/load", "SessionLoad"),
            ("not_found", "NotFound"),
            ("2.0", "Value20"),
            ("HTTPServer", "HTTPServer"),
            ("McpServerHttp", "McpServerHttp"),
            ("uint16", "Uint16"),
            ("", "Empty"),
        ];
        for (input, expected) in table {
            assert_eq!(pascal_case(input), expected, "pascal_case({input:?})");
        }
    }

    #[test]
    fn snake_case_table() {
        let table = [
            ("sessionUpdate", "session_update"),
            ("_meta", "meta"),
            ("promptRequestId", "prompt_request_id"),
            ("mcpServers", "mcp_servers"),
            ("readTextFile", "read_text_file"),
        ];
        for (input, expected) in table {
            assert_eq!(snake_case(input), expected, "snake_case({input:?})");
        }
    }

    #[test]
    fn catch_all_avoids_known_names() {
        assert_eq!(catch_all_name(Some("other"), &["Read".into()]), "Other");
        assert_eq!(catch_all_name(Some("other"), &["Other".into()]), "OtherValue");
        assert_eq!(catch_all_name(None, &[]), "Other");
    }

    #[test]
    fn language_identifiers() {
        type Identifier = fn(&str) -> String;
        let table: [(Identifier, &str, &str); 22] = [
            (rust_field, "type", "r#type"),
            (rust_field, "_meta", "meta"),
            (rust_field, "sessionId", "session_id"),
            (rust_field, "self", "self_"),
            (rust_type, "Self", "Self_"),
            (rust_type, "Option", "Option"),
            (rust_constant, "session/load", "SESSION_LOAD"),
            (rust_constant, "$/cancel_request", "CANCEL_REQUEST"),
            (typescript_type, "Object", "Object_"),
            (typescript_type, "SessionId", "SessionId"),
            (typescript_function, "session/set_mode", "sessionSetMode"),
            (typescript_property, "_meta", "_meta"),
            (typescript_property, "example.com/key", "\"example.com/key\""),
            (python_attribute, "from", "from_"),
            (python_attribute, "schema", "schema_"),
            (python_attribute, "modelId", "model_id_"),
            (python_class, "Field", "Field_"),
            (go_type, "Value", "Value_"),
            (go_type, "SessionId", "SessionId"),
            (go_field, "session_id", "SessionId"),
            (go_field, "marshal_json", "MarshalJson"),
            (go_field, "unmarshal_j_s_o_n", "UnmarshalJSON_"),
        ];
        for (function, input, expected) in table {
            assert_eq!(function(input), expected, "{input:?}");
        }
    }

    #[test]
    fn synthesized_names() {
        assert_eq!(member_type_name("AgentRequest", "params"), "AgentRequestParams");
        assert_eq!(
            flattened_union_name("SessionConfigOption", Some("type")),
            "SessionConfigOptionType"
        );
        assert_eq!(
            flattened_union_name("ElicitationFormMode", None),
            "ElicitationFormModeKind"
        );
        assert_eq!(integer_constant_name(-32700), "Minus32700");
        assert_eq!(
            variant_without_repetition("AuthMethod", "AuthMethodAgent").as_deref(),
            Some("Agent")
        );
        assert_eq!(
            variant_without_repetition("MultiSelectItems", "TitledMultiSelectItems").as_deref(),
            Some("Titled")
        );
        assert_eq!(variant_without_repetition("Content", "Contents"), None);
        assert_eq!(variant_without_repetition("Content", "Content"), None);
        assert_eq!(variant_without_repetition("ContentBlock", "Text"), None);
        assert_eq!(typescript_guard("SessionUpdate", "ToolCall"), "isSessionUpdateToolCall");
        assert_eq!(typescript_guard("McpServer", "McpServerStdio"), "isMcpServerStdio");
        assert_eq!(
            typescript_side_function("dispatch", "agent", "request"),
            "dispatchAgentRequest"
        );
        assert_eq!(
            typescript_side_function("encode", "client", "notification"),
            "encodeClientNotification"
        );
    }

    #[test]
    fn python_variant_classes_avoid_taken_names() {
        assert_eq!(
            python_variant_class("ContentBlock", "Text", |_| false),
            "ContentBlockText"
        );
        assert_eq!(
            python_variant_class("AuthMethod", "Terminal", |name| name == "AuthMethodTerminal"),
            "AuthMethodTerminalVariant"
        );
        assert_eq!(python_default_accessor("_meta"), "meta_or_default");
        assert_eq!(python_default_accessor("maxTokens"), "max_tokens_or_default");
        assert_eq!(python_distribution("acp_bindings").as_deref(), Some("acp-bindings"));
        assert_eq!(python_distribution("acp-bindings"), None);
        assert_eq!(python_distribution("class"), None);
        assert_eq!(
            python_flattened_attribute("SessionConfigOption", "SessionConfigOptionType", |_| false),
            "type_"
        );
        assert_eq!(
            python_flattened_attribute("CreateElicitationRequest", "CreateElicitationRequestMode", |_| false),
            "mode"
        );
        assert_eq!(
            python_flattened_attribute("Request", "RequestMode", |attr| attr == "mode"),
            "request_mode"
        );
        assert_eq!(
            python_flattened_attribute("FormVariant", "ElicitationScope", |_| false),
            "elicitation_scope"
        );
        assert_eq!(python_handled_union("agent", "request"), "AgentHandledRequest");
        assert_eq!(
            python_side_function("dispatch", "client", "notification"),
            "dispatch_client_notification"
        );
        assert_eq!(python_side_table("client", "notification"), "CLIENT_NOTIFICATIONS");
        assert_eq!(python_handler("$/cancel_request"), "cancel_request");
        assert_eq!(python_handler("mcp/message notification"), "mcp_message_notification");
    }

    #[test]
    fn go_names_avoid_taken_names() {
        assert_eq!(go_member_type("ContentBlock", "Text", |_| false), "ContentBlockText");
        assert_eq!(
            go_member_type("AuthMethod", "Terminal", |name| name == "AuthMethodTerminal"),
            "AuthMethodTerminalVariant"
        );
        assert_eq!(
            go_flattened_field("SessionConfigOption", "SessionConfigOptionType", |_| false),
            "Type"
        );
        assert_eq!(
            go_flattened_field("Request", "RequestMode", |field| field == "Mode"),
            "RequestMode"
        );
        assert_eq!(go_extra_field(|_| false), "Extra");
        assert_eq!(go_union_decoder("ContentBlock", |_| false), "DecodeContentBlock");
        assert_eq!(
            go_union_decoder("Block", |name| name == "DecodeBlock"),
            "DecodeBlockValue"
        );
        assert_eq!(go_default_accessor("max_tokens", |_| false), "MaxTokensOrDefault");
        assert_eq!(
            go_default_accessor("mode", |field| field == "ModeOrDefault"),
            "ModeOrDefaultValue"
        );
        assert_eq!(go_extra_field(|field| field == "Extra"), "ExtraMembers");
        assert_eq!(
            go_codec_functions("SessionId"),
            ["decodeSessionId".to_owned(), "encodeSessionId".to_owned()]
        );
    }
}
