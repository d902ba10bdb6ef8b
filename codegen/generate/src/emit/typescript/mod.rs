//! The TypeScript emitter: an ESM package with the schema's types and their
//! type guards (`src/types.ts`), zero-dependency decoders (`src/decode.ts`,
//! one codec per type over the hand-written runtime `src/runtime.ts`),
//! the JSON-RPC runtime (`src/rpc.ts`), one end of a connection over any
//! text transport (`src/connection.ts`) with the turn tracker's machine it
//! runs (`src/turns.ts`, hand-written too), the method tables, side
//! interfaces, typed decoders, dispatchers and connections
//! (`src/methods.ts`), capability negotiation (`src/negotiation.ts`), the
//! RFD helpers (`src/helpers.ts`) and the by-name codec
//! (`src/index.ts`), rendered from the askama templates in
//! `templates/typescript/`.
//!
//! Decoded values have the wire shape, so encoding is a copy: the decoders
//! do all the work (rules, constraints, catch-alls) and the types describe
//! the JSON exactly. Everything a template prints is resolved here.

mod codecs;
mod guards;
mod helpers;
mod language;
mod methods;
mod negotiation;
mod text;
mod types;

/// TypeScript's registration ([`crate::emit::LANGUAGES`]).
pub const LANGUAGE: crate::emit::language::Language = crate::emit::language::Language {
    id: "typescript",
    name: "TypeScript",
    emit,
    package: language::PACKAGE,
    api_name: language::api_name,
};

use std::collections::BTreeSet;
use std::path::PathBuf;

use askama::Template;

use self::text::{json_string, render};
use super::files::{Files, PackageNames};
use acp_ir::error::{CodegenError, ErrorKind};
use acp_ir::ir::{Ir, Side, TypeKind};
use acp_ir::naming;

/// The TypeScript compiler the package is built with (exact, as locked).
pub const TYPESCRIPT_VERSION: &str = "5.9.3";

/// Names the package exports besides those made for the schema's types and
/// methods.
const FIXED_EXPORTS: &[&str] = &[
    "JsonValue",
    "DecodeIssue",
    "DecodeResult",
    "DecodeError",
    "decodeByName",
    "encode",
    "variantIndex",
    "roundtrip",
    "METHODS",
    "MethodName",
    "METHOD_TYPES",
    "Awaitable",
    "CallDecodeResult",
    "CallError",
    "DroppedNotification",
    "ExtensionCall",
    "ExtensionMethod",
    "JsonRpcError",
    "JsonRpcId",
    "JsonRpcNotification",
    "JsonRpcRequest",
    "JsonRpcResponse",
    "Outcome",
    "RequestError",
    "Send",
    "Dropped",
    "ConnectOptions",
    "RequestOptions",
    "AbortSignalLike",
];

#[derive(Template)]
#[template(path = "typescript/package.json", escape = "none")]
struct PackageJson {
    /// The package name as a JSON string.
    name: String,
    /// The version as a JSON string.
    version: String,
    typescript: &'static str,
}

#[derive(Template)]
#[template(path = "typescript/package-lock.json", escape = "none")]
struct PackageLock {
    name: String,
    version: String,
    typescript: &'static str,
}

#[derive(Template)]
#[template(path = "typescript/tsconfig.json", escape = "none")]
struct TsConfig;

#[derive(Template)]
#[template(path = "typescript/index.ts", escape = "none")]
struct Index {
    /// The schema has something to negotiate (`src/negotiation.ts` exists).
    negotiation: bool,
    /// The values and the types `src/helpers.ts` exports, beside the negotiation.
    helper_values: Vec<&'static str>,
    helper_types: Vec<&'static str>,
}

#[derive(Template)]
#[template(path = "typescript/connection.ts", escape = "none")]
struct ConnectionFile;

#[derive(Template)]
#[template(path = "typescript/rpc.ts", escape = "none")]
struct Rpc {
    /// The extension prefix as a string literal, and as text.
    extension_prefix: String,
    extension_prefix_text: &'static str,
}

/// The decoding runtime, copied as it is (`templates/typescript/runtime.ts`,
/// type-checked alone by the TypeScript suite).
const RUNTIME: &str = include_str!("../../../../../templates/typescript/runtime.ts");

/// The turn tracker's machine, copied as it is (`templates/typescript/turns.ts`,
/// type-checked alone too): the connection's client end runs it, and
/// `src/helpers.ts`'s `TurnTracker` is its typed face.
const TURNS: &str = include_str!("../../../../../templates/typescript/turns.ts");

/// Emits the TypeScript package for `ir`.
pub fn emit(ir: &Ir, names: &PackageNames) -> Result<Files, CodegenError> {
    check_exports(ir)?;
    let name = json_string(&names.npm_package);
    let version = json_string(&names.version);
    let package = PackageJson {
        name: name.clone(),
        version: version.clone(),
        typescript: TYPESCRIPT_VERSION,
    };
    let lock = PackageLock {
        name,
        version,
        typescript: TYPESCRIPT_VERSION,
    };
    let rpc = Rpc {
        extension_prefix: json_string(naming::EXTENSION_PREFIX),
        extension_prefix_text: naming::EXTENSION_PREFIX,
    };
    let model = acp_ir::negotiation::model(ir);
    let mut files = vec![
        (PathBuf::from("package.json"), render(&package, "package.json")?),
        (PathBuf::from("package-lock.json"), render(&lock, "package-lock.json")?),
        (PathBuf::from("tsconfig.json"), render(&TsConfig, "tsconfig.json")?),
        (PathBuf::from("src/types.ts"), render(&types::view(ir), "types.ts")?),
        (PathBuf::from("src/runtime.ts"), RUNTIME.to_owned()),
        (PathBuf::from("src/decode.ts"), render(&codecs::view(ir), "decode.ts")?),
        (PathBuf::from("src/rpc.ts"), render(&rpc, "rpc.ts")?),
        (PathBuf::from("src/turns.ts"), TURNS.to_owned()),
        (
            PathBuf::from("src/connection.ts"),
            render(&ConnectionFile, "connection.ts")?,
        ),
        (
            PathBuf::from("src/methods.ts"),
            render(&methods::view(ir)?, "methods.ts")?,
        ),
    ];
    let helpers = model
        .as_ref()
        .map(|_| helpers::view(&acp_ir::rfd::model(ir), &methods::initialize_method(ir)));
    let (helper_values, helper_types) = helpers
        .as_ref()
        .map_or_else(Default::default, helpers::HelpersTs::exports);
    files.push((
        PathBuf::from("src/index.ts"),
        render(
            &Index {
                negotiation: model.is_some(),
                helper_values,
                helper_types,
            },
            "index.ts",
        )?,
    ));
    if let (Some(model), Some(helpers)) = (&model, &helpers) {
        files.push((
            PathBuf::from("src/negotiation.ts"),
            render(&negotiation::view(model), "negotiation.ts")?,
        ));
        files.push((PathBuf::from("src/helpers.ts"), render(helpers, "helpers.ts")?));
    }
    Ok(files)
}

/// Every name the entry point exports must be unique: a schema type may not
/// take a name the package itself defines, nor may the names made for two
/// types (`decodeX`, `XDefaults`, guards) meet.
fn check_exports(ir: &Ir) -> Result<(), CodegenError> {
    let mut taken: BTreeSet<String> = FIXED_EXPORTS
        .iter()
        .chain(&negotiation::EXPORTS)
        .chain(&helpers::EXPORTS)
        .map(|name| (*name).to_owned())
        .collect();
    for side in methods::SIDES.map(Side::as_str) {
        taken.extend(
            methods::ROLES
                .iter()
                .map(|role| naming::typescript_side_type(side, role)),
        );
        taken.extend(
            methods::FUNCTIONS
                .iter()
                .map(|(verb, role)| naming::typescript_side_function(verb, side, role)),
        );
    }
    for definition in ir.types.values() {
        let name = naming::typescript_type(&definition.name);
        let mut names = vec![naming::typescript_decoder(&name), name.clone()];
        if types::has_defaults(definition) {
            names.push(naming::typescript_defaults(&name));
        }
        if let TypeKind::Union(union) = &definition.kind {
            names.extend(guards::names(&definition.name, union));
        }
        for name in names {
            if !taken.insert(name.clone()) {
                return Err(collision(definition, &name));
            }
        }
    }
    Ok(())
}

fn collision(definition: &acp_ir::ir::TypeDef, name: &str) -> CodegenError {
    CodegenError {
        kind: ErrorKind::NameCollision,
        file: "typescript bindings".to_owned(),
        pointer: definition.pointer.clone(),
        message: format!("the TypeScript name `{name}` is already taken in the package"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;
    use crate::test_support::{file, ir_of};
    use acp_ir::ir::{Gate, Method, NotificationMethod, RequestMethod, Side};

    fn sample() -> Ir {
        ir_of(json!({
            "Status": {"description": "Ends */ early", "anyOf": [
                {"type": "string", "const": "live"}, {"type": "string", "const": "not_found"}, {"title": "other", "type": "string"}]},
            "Kind": {"oneOf": [{"type": "string", "const": "read"}, {"type": "string", "const": "edit"}]},
            "Update": {"oneOf": [
                {"type": "object", "properties": {"kind": {"type": "string", "const": "chunk"}, "text": {"type": "string"}}, "required": ["kind", "text"]},
                {"type": "object", "properties": {"kind": {"type": "string", "const": "done"}}, "required": ["kind"]}],
                "discriminator": {"propertyName": "kind"}},
            "Extensible": {"anyOf": [
                {"type": "object", "properties": {"state": {"type": "string", "const": "running"}}, "required": ["state"]},
                {"title": "other", "type": "object", "properties": {"state": {"type": "string"}}, "required": ["state"],
                 "not": {"anyOf": [{"type": "object", "properties": {"state": {"type": "string", "const": "running"}}, "required": ["state"]}]}}]},
            "Id": {"anyOf": [{"title": "Number", "type": "integer", "format": "int64"}, {"title": "Str", "type": "string"}]},
            "Item": {"type": "object", "properties": {
                "label": {"type": ["string", "null"]},
                "count": {"type": "integer", "format": "uint64", "minimum": 0},
                "status": {"$ref": "#/$defs/Status"}}, "required": ["status"]}
        }))
    }

    #[test]
    fn emits_the_package_files_and_the_same_bytes_every_run() {
        let ir = sample();
        let files = emit(&ir, &PackageNames::default()).unwrap();
        let paths: Vec<String> = files.iter().map(|(path, _)| path.display().to_string()).collect();
        assert_eq!(
            paths,
            [
                "package.json",
                "package-lock.json",
                "tsconfig.json",
                "src/types.ts",
                "src/runtime.ts",
                "src/decode.ts",
                "src/rpc.ts",
                "src/turns.ts",
                "src/connection.ts",
                "src/methods.ts",
                "src/index.ts"
            ]
        );
        assert_eq!(files, emit(&ir, &PackageNames::default()).unwrap());
    }

    #[test]
    fn package_name_and_lockfile() {
        let names = PackageNames {
            npm_package: "@example/acp".to_owned(),
            ..PackageNames::default()
        };
        let files = emit(&sample(), &names).unwrap();
        for path in ["package.json", "package-lock.json"] {
            let manifest: Value = serde_json::from_str(file(&files, path)).unwrap();
            assert_eq!(manifest["name"], "@example/acp", "{path}");
            assert!(!file(&files, path).contains("http"), "{path} names no download address");
        }
        let lock: Value = serde_json::from_str(file(&files, "package-lock.json")).unwrap();
        assert_eq!(
            lock["packages"]["node_modules/typescript"]["version"],
            TYPESCRIPT_VERSION
        );
    }

    #[test]
    fn types_keep_the_wire_shape() {
        let files = emit(&sample(), &PackageNames::default()).unwrap();
        let types = file(&files, "src/types.ts");
        assert!(
            types.contains(" * Ends *\\/ early"),
            "descriptions cannot close the comment"
        );
        assert!(!types.contains("Ends */"));
        assert!(
            types.contains("  | \"live\"\n  | \"not_found\"\n  | (string & {});"),
            "open enum:\n{types}"
        );
        assert!(types.contains("  | \"read\"\n  | \"edit\";"), "closed enum:\n{types}");
        assert!(
            types.contains("  | { kind: \"chunk\"; text: string }\n  | { kind: \"done\" };"),
            "tagged union:\n{types}"
        );
        assert!(
            types.contains("  label?: string | null;"),
            "optional and nullable:\n{types}"
        );
        assert!(types.contains("  status: Status;"), "required:\n{types}");
        assert!(types.contains("2^53"), "64-bit integers are flagged");
        let decode = file(&files, "src/decode.ts");
        assert!(
            decode.contains("int([0, 0], [], 2 ** 64)"),
            "uint64 range and minimum:\n{decode}"
        );
    }

    #[test]
    fn the_catch_all_narrows_and_every_variant_has_a_guard() {
        let files = emit(&sample(), &PackageNames::default()).unwrap();
        let types = file(&files, "src/types.ts");
        assert!(
            types.contains("  | { state: `_${string}`; [member: string]: unknown };"),
            "catch-all tag:\n{types}"
        );
        for guard in [
            "export function isUpdateChunk(value: Update): value is { kind: \"chunk\"; text: string } {\n  return value[\"kind\"] === \"chunk\";",
            "export function isExtensibleOther(value: Extensible): value is { state: `_${string}`; [member: string]: unknown } {\n  \
             return typeof value[\"state\"] === \"string\" && !([\"running\"] as readonly unknown[]).includes(value[\"state\"]);",
            "export function isIdStr(value: Id): value is string {\n  return variantIndex(\"Id\", value) === 1;",
        ] {
            assert!(types.contains(guard), "{guard}\nin:\n{types}");
        }
        assert!(
            types.contains("import { variantIndex } from \"./decode.js\";"),
            "untagged guards ask the decoder"
        );
    }

    fn method(name: &str, request: Option<(Side, &str, &str)>, notification: Option<(Side, &str)>) -> (String, Method) {
        let method = Method {
            name: name.to_owned(),
            request: request.map(|(side, params, result)| RequestMethod {
                side,
                params: params.to_owned(),
                result: result.to_owned(),
            }),
            notification: notification.map(|(side, params)| NotificationMethod {
                side,
                params: params.to_owned(),
            }),
            gate: None,
            session_gate: None,
            not_negotiated: None,
            unstable: false,
            acted_on: false,
        };
        (name.to_owned(), method)
    }

    /// The lines of the `export interface name { ... }` block of `text`.
    fn interface<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
        let start = format!("export interface {name} {{");
        text.lines()
            .skip_while(|line| *line != start)
            .skip(1)
            .take_while(|line| *line != "}")
            .filter(|line| !line.trim_start().starts_with(['/', '*']))
            .collect()
    }

    #[test]
    fn methods_go_to_the_sides_that_handle_them() {
        let mut ir = ir_of(json!({"Params": {"type": "object"}, "Result": {"type": "object"}}));
        ir.methods = [
            method("session/load", Some((Side::Agent, "Params", "Result")), None),
            method("session/update", None, Some((Side::Client, "Params"))),
            method("$/cancel_request", None, Some((Side::Protocol, "Params"))),
        ]
        .into_iter()
        .collect();
        let files = emit(&ir, &PackageNames::default()).unwrap();
        let methods = file(&files, "src/methods.ts");
        let extensions = [
            "  extensionRequest?(method: ExtensionMethod, params: JsonValue | undefined): Awaitable<JsonValue>;",
            "  extensionNotification?(method: ExtensionMethod, params: JsonValue | undefined): Awaitable<void>;",
        ];
        assert_eq!(
            interface(methods, "Agent"),
            [
                "  sessionLoad(params: types.Params): Awaitable<types.Result>;",
                "  cancelRequest?(params: types.Params): Awaitable<void>;",
                extensions[0],
                extensions[1]
            ]
        );
        assert_eq!(
            interface(methods, "Client"),
            [
                "  cancelRequest?(params: types.Params): Awaitable<void>;",
                "  sessionUpdate(params: types.Params): Awaitable<void>;",
                extensions[0],
                extensions[1]
            ]
        );
        assert!(
            methods.contains(
                "    [\"session/load\", { params: \"Params\", result: \"Result\", handler: \"sessionLoad\" }],"
            ),
            "routes:\n{methods}"
        );
        assert!(
            methods.contains(
                "  | { readonly method: \"session/load\"; readonly params: types.Params }\n  | ExtensionCall;"
            ),
            "{methods}"
        );
        assert!(
            methods.contains("export function dispatchAgentMessage(implementation: Agent, message: unknown"),
            "{methods}"
        );
        assert!(
            !methods.contains("export interface Proxy"),
            "no proxy side without proxy methods:\n{methods}"
        );
        for (side, peer) in [("Agent", "Client"), ("Client", "Agent")] {
            let connection = format!("export interface {side}Connection {{\n");
            assert!(methods.contains(&connection), "{methods}");
            let calls = format!(
                "  request<M extends keyof {peer}Requests>(method: M, params: {peer}Requests[M][\"params\"], options?: RequestOptions): Promise<{peer}Requests[M][\"result\"]>;"
            );
            assert!(
                methods
                    .split(&connection)
                    .nth(1)
                    .is_some_and(|rest| rest.contains(&calls)),
                "{side} calls the {peer}:\n{methods}"
            );
            assert!(
                methods.contains(&format!(
                    "export function connect{side}(handler: (connection: {side}Connection) => {side}, send: Send, options?: ConnectOptions)"
                )),
                "{methods}"
            );
        }
        // No prompt, no `session/ready`, a `$/cancel_request` without a request id member, no
        // `initialize` and no `session/cancel`: no rules.
        assert!(
            methods.contains(
                "  turns: null,\n  tracker: null,\n  ready: null,\n  cancel: null,\n  handshake: null,\n  turnCancel: null,\n  outgoing: () => null,\n  sessions: null,\n};"
            ),
            "{methods}"
        );
        assert!(
            methods.contains(
                "  \"session/load\": { request: { side: \"agent\", params: \"Params\", result: \"Result\" } },"
            ),
            "{methods}"
        );

        ir.methods.extend([method(
            "proxy/successor",
            Some((Side::Proxy, "Params", "Result")),
            Some((Side::Proxy, "Params")),
        )]);
        let files = emit(&ir, &PackageNames::default()).unwrap();
        assert_eq!(
            interface(file(&files, "src/methods.ts"), "Proxy"),
            [
                "  proxySuccessor(params: types.Params): Awaitable<types.Result>;",
                "  cancelRequest?(params: types.Params): Awaitable<void>;",
                "  proxySuccessorNotification(params: types.Params): Awaitable<void>;",
                extensions[0],
                extensions[1]
            ]
        );
    }

    #[test]
    fn gated_unstable_and_acted_on_methods_are_optional_members() {
        let mut ir = ir_of(json!({"Params": {"type": "object"}, "Result": {"type": "object"}}));
        let gate = Gate::capability(Side::Agent, "AgentCapabilities", "/loadSession");
        ir.methods = [
            method("session/cancel", None, Some((Side::Agent, "Params"))),
            method("session/load", Some((Side::Agent, "Params", "Result")), None),
            method("session/fork", Some((Side::Agent, "Params", "Result")), None),
            method("session/new", Some((Side::Agent, "Params", "Result")), None),
        ]
        .into_iter()
        .collect();
        ir.methods.get_mut("session/load").unwrap().gate = Some(gate);
        ir.methods
            .get_mut("session/fork")
            .expect("the fixture has session/fork")
            .unstable = true;
        ir.methods
            .get_mut("session/cancel")
            .expect("the fixture has session/cancel")
            .acted_on = true;
        let files = emit(&ir, &PackageNames::default()).unwrap();
        let methods = file(&files, "src/methods.ts");
        assert!(
            methods.contains(&format!("   * {}\n", methods::ACTED_ON)),
            "the acted-on note in\n{methods}"
        );
        let members = interface(methods, "Agent");
        assert_eq!(
            members[..4],
            [
                "  sessionFork?(params: types.Params): Awaitable<types.Result>;",
                "  sessionLoad?(params: types.Params): Awaitable<types.Result>;",
                "  sessionNew(params: types.Params): Awaitable<types.Result>;",
                "  sessionCancel?(params: types.Params): Awaitable<void>;"
            ]
        );
    }

    #[test]
    fn a_schema_type_cannot_take_a_package_name() {
        for taken in [
            "JsonValue",
            "Agent",
            "ClientRequests",
            "AgentIncomingRequest",
            "RequestError",
        ] {
            let ir = ir_of(json!({ taken: {"type": "string"} }));
            let error = emit(&ir, &PackageNames::default()).unwrap_err();
            assert_eq!(error.kind, ErrorKind::NameCollision, "{taken}");
            assert!(error.message.contains(taken), "{}", error.message);
        }
    }

    #[test]
    fn two_unions_cannot_make_one_guard_name() {
        let tagged = |tag: &str| {
            json!({"oneOf": [{"type": "object", "properties": {"kind": {"type": "string", "const": tag}}, "required": ["kind"]}],
                   "discriminator": {"propertyName": "kind"}})
        };
        let ir = ir_of(json!({"Update": tagged("chunk_done"), "UpdateChunk": tagged("done")}));
        let error = emit(&ir, &PackageNames::default()).unwrap_err();
        assert_eq!(error.kind, ErrorKind::NameCollision);
        assert!(error.message.contains("isUpdateChunkDone"), "{}", error.message);
    }
}
