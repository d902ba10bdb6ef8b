//! The Python emitter: a pip-installable package of pydantic v2 models, the
//! method tables, the `Agent` and `Client` protocols with their dispatchers,
//! their ends of a JSON-RPC connection, capability negotiation, the RFD
//! helpers and the by-name codec, rendered from the askama templates in
//! `templates/python/`.
//!
//! Every decision is resolved into view structs; the templates only loop and
//! print. `types` builds the models (classes, enums, aliases), `codecs` the
//! annotations and decode rules they carry, `methods` the method tables and
//! decoding by method name, `protocols` the side protocols and dispatchers,
//! `connection` each side's end of a connection, `negotiation` capability
//! negotiation (`negotiation.py`), `helpers` the RFD helpers
//! (`helpers.py`); this module holds the package files (the fixed ones
//! copied as text: `_runtime.py`, `codec.py`, `_turns.py`, the turn
//! machine, and `_reader.py`, which reads the connection's text), the root's
//! re-exports and the helpers every part prints with.

mod classes;
mod codecs;
mod connection;
mod helpers;
mod language;
mod methods;
mod negotiation;
mod order;
mod protocols;
mod text;
mod types;

/// Python's registration ([`crate::emit::LANGUAGES`]).
pub const LANGUAGE: crate::emit::language::Language = crate::emit::language::Language {
    id: "python",
    name: "Python",
    emit,
    package: language::PACKAGE,
    api_name: language::api_name,
};

use std::collections::BTreeSet;
use std::path::PathBuf;

use askama::Template;

use self::text::{import_order, render};
use super::files::{Files, PackageNames};
use acp_ir::error::{CodegenError, ErrorKind};
use acp_ir::ir::Ir;
use acp_ir::naming::python_distribution;

const RUNTIME: &str = include_str!("../../../../../templates/python/runtime.py");
const CODEC: &str = include_str!("../../../../../templates/python/codec.py");
const TURNS: &str = include_str!("../../../../../templates/python/turns.py");
const READER: &str = include_str!("../../../../../templates/python/reader.py");

/// What the package root re-exports from the modules that are not generated.
const FIXED_EXPORTS: [(&str, &[&str]); 2] = [
    (
        "._runtime",
        &[
            "DecodeError",
            "ExtensionNotification",
            "ExtensionRequest",
            "InvalidParams",
            "MethodNotFound",
            "RequestError",
            "to_json",
        ],
    ),
    (".codec", &["roundtrip"]),
];

#[derive(Template)]
#[template(path = "python/pyproject.toml", escape = "none")]
struct PyprojectView {
    distribution: String,
    package: String,
    /// The version in PEP 440's own spelling (`1.20.0.dev7`).
    version: String,
    pydantic: &'static str,
}

/// The pydantic release the package is tested with (`tests/python/requirements.txt`
/// pins it; a test keeps the two equal): the lowest the package requires.
pub const PYDANTIC_TESTED: &str = "2.14.3";

/// `__init__.py`: every public name of the package, importable from its root.
#[derive(Template)]
#[template(path = "python/__init__.py", escape = "none")]
struct InitView {
    /// `(module, names)`, in import order.
    imports: Vec<(String, Vec<String>)>,
    /// `__all__`, sorted.
    all: Vec<String>,
}

/// Emits the python package for `ir`.
pub fn emit(ir: &Ir, names: &PackageNames) -> Result<Files, CodegenError> {
    let package = names.python_package.clone();
    let distribution = python_distribution(&package).ok_or_else(|| CodegenError {
        kind: ErrorKind::Malformed,
        file: "python bindings".to_owned(),
        pointer: String::new(),
        message: format!("the Python package name `{package}` is not a Python identifier"),
    })?;
    let models = types::models_view(ir)?;
    let methods = methods::methods_view(ir);
    let protocols = protocols::protocols_view(ir)?;
    let connection = connection::connection_view(ir);
    let mut imports: Vec<(String, Vec<String>)> = FIXED_EXPORTS
        .iter()
        .map(|(module, names)| {
            (
                (*module).to_owned(),
                names.iter().map(|name| (*name).to_owned()).collect(),
            )
        })
        .collect();
    imports.push((".connection".to_owned(), connection::exports(&connection)));
    imports.push((".methods".to_owned(), methods::exports(&methods)));
    imports.push((".models".to_owned(), types::exports(&models)));
    imports.push((".protocols".to_owned(), protocols::exports(&protocols)));
    let model = acp_ir::negotiation::model(ir);
    let helpers = model.as_ref().map(|_| helpers::view(&acp_ir::rfd::model(ir)));
    if let Some(helpers) = &helpers {
        imports.push((".helpers".to_owned(), helpers.exports()));
        imports.push((
            ".negotiation".to_owned(),
            negotiation::EXPORTS.iter().map(|name| (*name).to_owned()).collect(),
        ));
    }
    imports.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, names) in &mut imports {
        names.sort_by_cached_key(|name| import_order(name));
    }
    let init = InitView {
        all: root_names(&imports)?,
        imports,
    };
    let root = PathBuf::from(&package);
    let mut files = vec![
        (
            PathBuf::from("pyproject.toml"),
            render(
                &PyprojectView {
                    distribution,
                    package: package.clone(),
                    version: super::package::python_version(&names.version),
                    pydantic: PYDANTIC_TESTED,
                },
                "pyproject.toml",
            )?,
        ),
        (root.join("__init__.py"), render(&init, "__init__.py")?),
        (root.join("py.typed"), String::new()),
        (root.join("_runtime.py"), RUNTIME.to_owned()),
        (root.join("_turns.py"), TURNS.to_owned()),
        (root.join("_reader.py"), READER.to_owned()),
        (root.join("codec.py"), CODEC.to_owned()),
        (root.join("models.py"), render(&models, "models.py")?),
        (root.join("methods.py"), render(&methods, "methods.py")?),
        (root.join("protocols.py"), render(&protocols, "protocols.py")?),
        (root.join("connection.py"), render(&connection, "connection.py")?),
    ];
    if let (Some(model), Some(helpers)) = (&model, &helpers) {
        files.push((
            root.join("negotiation.py"),
            render(&negotiation::view(model), "negotiation.py")?,
        ));
        files.push((root.join("helpers.py"), render(helpers, "helpers.py")?));
    }
    Ok(files)
}

/// Every name the root imports, sorted; an error when two modules define one name.
fn root_names(imports: &[(String, Vec<String>)]) -> Result<Vec<String>, CodegenError> {
    let mut all = BTreeSet::new();
    for (module, names) in imports {
        for name in names {
            if !all.insert(name.clone()) {
                return Err(CodegenError {
                    kind: ErrorKind::NameCollision,
                    file: "python bindings".to_owned(),
                    pointer: String::new(),
                    message: format!("`{name}` from `{module}` is already a name of the package root"),
                });
            }
        }
    }
    // `__all__` as ruff sorts it: constants, classes, the rest, each by name.
    let mut all: Vec<String> = all.into_iter().collect();
    all.sort_by_cached_key(|name| (import_order(name).0, name.clone()));
    Ok(all)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_support::{file, ir_of};
    use acp_ir::ir::{Method, NotificationMethod, RequestMethod, Side};

    fn sample() -> Ir {
        ir_of(json!({
            "Status": {"description": "Ends \"\"\" early \\", "anyOf": [
                {"type": "string", "const": "live"}, {"type": "string", "const": "not_found"}, {"title": "other", "type": "string"}]},
            "Kind": {"oneOf": [{"type": "string", "const": "read"}, {"type": "string", "const": "edit"}]},
            "Update": {"oneOf": [
                {"type": "object", "properties": {"kind": {"type": "string", "const": "chunk"}, "text": {"type": "string"}}, "required": ["kind", "text"]},
                {"type": "object", "properties": {"kind": {"type": "string", "const": "done"}}, "required": ["kind"]}],
                "discriminator": {"propertyName": "kind"}},
            "UpdateDone": {"type": "object", "properties": {}},
            "Item": {"type": "object", "properties": {
                "label": {"type": ["string", "null"]},
                "count": {"type": "integer", "format": "uint8", "minimum": 1, "default": 3},
                "status": {"$ref": "#/$defs/Status"},
                "itemId": {"type": "string", "description": "Names the item.\n\nNever reused."}}, "required": ["status", "itemId"]}
        }))
    }

    fn with_methods(mut ir: Ir) -> Ir {
        let request = |side| {
            Some(RequestMethod {
                side,
                params: "Item".into(),
                result: "Item".into(),
            })
        };
        let notification = |side| {
            Some(NotificationMethod {
                side,
                params: "Item".into(),
            })
        };
        for (name, request, notification) in [
            ("session/prompt", request(Side::Agent), None),
            ("session/fork", request(Side::Agent), None),
            ("fs/read_text_file", request(Side::Client), notification(Side::Agent)),
            ("$/cancel_request", None, notification(Side::Protocol)),
            ("session/cancel", None, notification(Side::Agent)),
            ("proxy/connect", request(Side::Proxy), None),
        ] {
            ir.methods.insert(
                name.into(),
                Method {
                    name: name.into(),
                    request,
                    notification,
                    gate: None,
                    session_gate: None,
                    not_negotiated: None,
                    unstable: name == "session/fork",
                    acted_on: name == "session/cancel",
                },
            );
        }
        ir
    }

    #[test]
    fn each_end_of_a_connection_calls_what_the_other_side_handles() {
        let files = emit(&with_methods(sample()), &PackageNames::default()).unwrap();
        let connection = file(&files, "acp_bindings/connection.py");
        let class = |name: &str| {
            let start = connection
                .find(&format!("class {name}(Connection):"))
                .unwrap_or_else(|| panic!("{name} in\n{connection}"));
            connection[start..].split("\n\n\ndef ").next().unwrap().to_owned()
        };
        let agent = class("AgentConnection");
        // One method of a kind: a plain typed method (a single overload is an error).
        assert!(
            agent.contains(
                "    async def request(self, method: _t.Literal[\"fs/read_text_file\"], params: _m.Item) -> _m.Item:"
            ),
            "{agent}"
        );
        assert!(
            agent.contains(
                "    async def notify(self, method: _t.Literal[\"$/cancel_request\"], params: _m.Item) -> None:"
            ),
            "{agent}"
        );
        assert!(
            !agent.contains("@_t.overload") && !agent.contains("session/prompt"),
            "{agent}"
        );
        let client = class("ClientConnection");
        for method in ["session/prompt", "session/fork"] {
            let overload = format!("    @_t.overload\n    async def request(self, method: _t.Literal[\"{method}\"], params: _m.Item) -> _m.Item: ...");
            assert!(client.contains(&overload), "{overload} in\n{client}");
        }
        assert!(
            client.contains(
                "    async def notify(self, method: _t.Literal[\"fs/read_text_file\"], params: _m.Item) -> None: ..."
            ),
            "{client}"
        );
        assert!(connection.contains(
            "def connect_agent(handler: _t.Callable[[AgentConnection], Agent], send: Send, options: ConnectOptions | None = None) -> AgentConnection:"
        ));
        assert!(connection.contains(
            "    return ClientConnection(\n        handler,\n        \"client\",\n        dispatch_client_request,\n        dispatch_client_notification,\n        handles_client_request,\n        CLIENT_NOTIFICATION_HANDLERS,\n        send,\n        options,\n    )"
        ));
        // Without `session/update` or a `$/cancel_request` naming a request id, nothing is treated specially.
        for constant in [
            "_READY: _Ready | None = None",
            "_TURNS: _Turns | None = None",
            "_CANCEL: tuple[str, str] | None = None",
        ] {
            assert!(connection.contains(constant), "{constant} in\n{connection}");
        }
        let init = file(&files, "acp_bindings/__init__.py");
        assert!(init.contains("from .connection import ("), "{init}");
    }

    #[test]
    fn package_files() {
        let names = PackageNames {
            python_package: "my_acp".into(),
            ..PackageNames::default()
        };
        let files = emit(&sample(), &names).unwrap();
        let paths: Vec<String> = files.iter().map(|(path, _)| path.display().to_string()).collect();
        assert_eq!(
            paths,
            [
                "pyproject.toml",
                "my_acp/__init__.py",
                "my_acp/py.typed",
                "my_acp/_runtime.py",
                "my_acp/_turns.py",
                "my_acp/_reader.py",
                "my_acp/codec.py",
                "my_acp/models.py",
                "my_acp/methods.py",
                "my_acp/protocols.py",
                "my_acp/connection.py"
            ]
        );
        let pyproject = file(&files, "pyproject.toml");
        for expected in [
            "name = \"my-acp\"",
            "requires-python = \">=3.10\"",
            "\"pydantic>=2.14.3,<3\"",
            "version = \"0.1.0\"",
            "build-backend = \"hatchling.build\"",
            "packages = [\"my_acp\"]",
            "plugins = [\"pydantic.mypy\"]",
        ] {
            assert!(pyproject.contains(expected), "{expected} in\n{pyproject}");
        }
        let init = file(&files, "my_acp/__init__.py");
        for expected in [
            "from .codec import (\n    roundtrip,\n)",
            "from .models import (\n    Item,\n",
            "    \"Item\",\n",
            "    \"decode_agent_request\",\n",
        ] {
            assert!(init.contains(expected), "{expected} in\n{init}");
        }
        assert_eq!(
            files,
            emit(&sample(), &names).unwrap(),
            "the output is the same on every run"
        );
    }

    #[test]
    fn a_package_name_that_is_no_identifier_is_an_error() {
        let names = PackageNames {
            python_package: "my-acp".into(),
            ..PackageNames::default()
        };
        let error = emit(&sample(), &names).unwrap_err();
        assert_eq!(error.kind, ErrorKind::Malformed);
        assert!(error.message.contains("`my-acp`"), "{}", error.message);
    }

    #[test]
    fn models_keep_wire_names_nullability_and_constraints() {
        let models = file(
            &emit(&sample(), &PackageNames::default()).unwrap(),
            "acp_bindings/models.py",
        )
        .to_owned();
        for expected in [
            "class Status(_rt.OpenStrEnum):",
            "    NOT_FOUND = \"not_found\"",
            "class Kind(_rt.StrEnum):",
            "    label: _p.StrictStr | None = None\n",
            "    count: _t.Annotated[_t.Annotated[int, _p.Strict(), _p.Field(ge=1, le=255)] | None, _rt.Member(False, False, False, False, _rt.ABSENT, None)] = None\n",
            "    item_id: _t.Annotated[_p.StrictStr, _p.Field(alias=\"itemId\")]\n    \"\"\"Names the item.\n\n    Never reused.\n    \"\"\"\n",
            "        def __init__(self, *, label: _p.StrictStr | None = None, count: _t.Annotated[int, _p.Strict(), _p.Field(ge=1, le=255)] | None = None, status: Status, item_id: _p.StrictStr, **extra: _t.Any) -> None: ...",
            "    def count_or_default(self) -> int:",
            "    status: Status\n",
            "    \"Item\": Item,",
        ] {
            assert!(models.contains(expected), "{expected} in\n{models}");
        }
    }

    #[test]
    fn tagged_unions_are_discriminated_by_tag_value() {
        let models = file(
            &emit(&sample(), &PackageNames::default()).unwrap(),
            "acp_bindings/models.py",
        )
        .to_owned();
        assert!(models.contains("class UpdateChunk(_rt.WireModel):"), "{models}");
        assert!(
            models.contains("    kind: _t.Literal[\"chunk\"] = \"chunk\"\n"),
            "a tag defaults to its value:\n{models}"
        );
        assert!(
            models.contains("    __acp_variant_tag__ = (\"kind\", \"kind\", \"chunk\")"),
            "{models}"
        );
        assert!(models.contains("        def __init__(self, *, kind: _t.Literal[\"chunk\"] = \"chunk\", text: _p.StrictStr, **extra: _t.Any) -> None: ..."), "{models}");
        assert!(
            models.contains("class UpdateDoneVariant(_rt.WireModel):"),
            "a variant class never takes a type's name:\n{models}"
        );
        assert!(
            models.contains(
                "_t.Annotated[UpdateChunk | UpdateDoneVariant, _rt.Tagged(\"kind\", \"kind\", (\"chunk\", \"done\",), "
            ),
            "pydantic-core picks the variant by the tag's value:\n{models}"
        );
    }

    #[test]
    fn recursive_untagged_unions_decode_lazily() {
        let ir = ir_of(json!({
            "Tree": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/$defs/Tree"}}]}
        }));
        let models = file(&emit(&ir, &PackageNames::default()).unwrap(), "acp_bindings/models.py").to_owned();
        assert!(
            models.contains("Tree: _t.TypeAlias = _t.Annotated[_p.StrictStr | _t.Any, _p.PlainValidator(_rt.untagged(lambda: (_p.StrictStr, list[Tree],)))"),
            "{models}"
        );
    }

    #[test]
    fn members_that_map_to_one_attribute_are_numbered_by_the_collision_rule() {
        let ir = ir_of(json!({"Both": {"type": "object", "properties": {"meta": {}, "_meta": {}}}}));
        let models = file(&emit(&ir, &PackageNames::default()).unwrap(), "acp_bindings/models.py").to_owned();
        // `_meta` sorts first, so it keeps `meta`.
        assert!(
            models.contains("    meta: _t.Annotated[_t.Any | None, _p.Field(alias=\"_meta\")] = None"),
            "{models}"
        );
        assert!(
            models.contains("    meta_2: _t.Annotated[_t.Any | None, _p.Field(alias=\"meta\")] = None"),
            "{models}"
        );
    }

    #[test]
    fn closed_objects_that_flatten_check_their_members_after_decoding() {
        let ir = ir_of(json!({
            "Shape": {"type": "object", "additionalProperties": false, "properties": {"name": {"type": "string"}}, "required": ["name"],
                "oneOf": [{"type": "object", "properties": {"kind": {"const": "circle", "type": "string"}}, "required": ["kind"]}],
                "discriminator": {"propertyName": "kind"}},
            "Plain": {"type": "object", "additionalProperties": false, "properties": {"a": {"type": "string"}}}
        }));
        let models = file(&emit(&ir, &PackageNames::default()).unwrap(), "acp_bindings/models.py").to_owned();
        let shape = &models[models.find("class Shape(_rt.FlatModel):").expect("Shape flattens")..];
        assert!(
            shape.contains("__acp_flattened__ = (\"kind\",)") && shape.contains("    kind: ShapeKind\n"),
            "named after what it adds to Shape:\n{shape}"
        );
        assert!(
            shape.contains("__acp_closed__ = True") && !shape[..shape.find("\n\n\nclass").unwrap()].contains("extra="),
            "{shape}"
        );
        let plain = &models[models.find("class Plain(_rt.WireModel):").expect("Plain")..];
        assert!(
            plain.contains("model_config = _p.ConfigDict(extra=\"forbid\")"),
            "{plain}"
        );
    }

    #[test]
    fn protocols_hold_the_methods_of_their_side() {
        let files = emit(&with_methods(sample()), &PackageNames::default()).unwrap();
        let protocols = file(&files, "acp_bindings/protocols.py");
        let (agent, client) = protocols.split_once("class Client(_t.Protocol):").unwrap();
        let (client, proxy) = client
            .split_once("class Proxy(_t.Protocol):")
            .expect("a proxy protocol when a method is a proxy's");
        assert!(
            proxy.contains("async def proxy_connect(self, params: _m.Item) -> _m.Item:"),
            "{proxy}"
        );
        assert!(
            proxy.contains("async def cancel_request(self, params: _m.Item) -> None:")
                && !proxy.contains("session_prompt"),
            "{proxy}"
        );
        assert!(
            agent.contains("async def session_prompt(self, params: _m.Item) -> _m.Item:"),
            "{agent}"
        );
        assert!(
            agent.contains("async def fs_read_text_file(self, params: _m.Item) -> None:"),
            "{agent}"
        );
        assert!(
            agent.contains("async def cancel_request(self, params: _m.Item) -> None:"),
            "{agent}"
        );
        assert!(
            client.contains("async def fs_read_text_file(self, params: _m.Item) -> _m.Item:"),
            "{client}"
        );
        assert!(
            client.contains("async def cancel_request(self, params: _m.Item) -> None:"),
            "{client}"
        );
        assert!(
            !client.contains("session_prompt") && !agent.contains("proxy_connect") && !client.contains("proxy_connect"),
            "{protocols}"
        );
        let methods = file(&files, "acp_bindings/methods.py");
        for expected in [
            "\"proxy/connect\": RequestMethod(\"proxy/connect\", \"proxy\", _m.Item, _m.Item, False),",
            "\"session/fork\": RequestMethod(\"session/fork\", \"agent\", _m.Item, _m.Item, True),",
            "CANCEL_REQUEST: _t.Final = \"$/cancel_request\"",
            "AgentHandledRequest: _t.TypeAlias = _m.Item | _rt.ExtensionRequest\n",
            "def decode_agent_request(method: str, params: _t.Any) -> AgentHandledRequest:",
            "def decode_proxy_request(method: str, params: _t.Any) -> ProxyHandledRequest:",
            "def decode_result(method: _t.Literal[\"session/prompt\"], result: _t.Any) -> _m.Item: ...",
        ] {
            assert!(methods.contains(expected), "{expected} in\n{methods}");
        }
    }

    #[test]
    fn optional_handlers_answer_method_not_found_and_dispatchers_route_by_method() {
        let files = emit(&with_methods(sample()), &PackageNames::default()).unwrap();
        let protocols = file(&files, "acp_bindings/protocols.py");
        let handler = |name: &str| {
            let start = protocols
                .find(&format!("    async def {name}("))
                .unwrap_or_else(|| panic!("{name} in\n{protocols}"));
            protocols[start + 1..].split("\n\n    async").next().unwrap().to_owned()
        };
        assert!(
            handler("session_prompt").ends_with("\"\"\"Handles the `session/prompt` request.\"\"\"\n        ..."),
            "required:\n{protocols}"
        );
        assert!(
            handler("session_fork").contains("Optional (unstable)")
                && handler("session_fork").ends_with("raise _rt.MethodNotFound(\"session/fork\")")
        );
        assert!(
            handler("cancel_request").contains("Optional (protocol-level)")
                && handler("cancel_request").ends_with("\n        return")
        );
        assert!(
            handler("session_cancel").contains("Optional (the connection acts on it itself)")
                && handler("session_cancel").ends_with("\n        return"),
            "acted on:\n{protocols}"
        );
        for expected in [
            "    if method == \"session/prompt\":\n        return _rt.encode(_m.Item, await handler.session_prompt(_rt.decode_params(method, _m.Item, params, checked)))",
            "    if method == \"fs/read_text_file\":\n        return await handler.fs_read_text_file(_rt.decode_params(method, _m.Item, params, checked))",
            "async def dispatch_client_request(handler: Client, method: str, params: _t.Any, checked: bool = False) -> _t.Any:",
        ] {
            assert!(protocols.contains(expected), "{expected} in\n{protocols}");
        }
    }

    #[test]
    fn a_description_cannot_end_its_docstring_in_models() {
        let models = file(
            &emit(&sample(), &PackageNames::default()).unwrap(),
            "acp_bindings/models.py",
        )
        .to_owned();
        assert!(models.contains(r#""""Ends ""\" early \\""""#), "{models}");
    }
}
