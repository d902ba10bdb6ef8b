//! Which handlers an implementation must write, checked against the
//! official TypeScript SDK: release 1.0.0 of `@agentclientprotocol/sdk`
//! (the last with `Agent` and `Client` interfaces; fetched with the
//! upstream schemas) marks a handler optional (`name?(...)`) when a peer may
//! never call it. A method our IR makes required on a side
//! ([`acp_ir::ir::Method::optional`], which every emitter follows) must
//! be required there too: a peer that may never call a method must not
//! force a handler on every implementation. Methods are matched by their
//! params type, which both sides take from the same schema.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};

use acp_ir::ir::{Ir, Side};

/// The release whose interfaces are the oracle.
pub const OFFICIAL_RELEASE: &str = "1.0.0";

/// One handler of an official interface.
struct Handler {
    name: String,
    optional: bool,
}

/// The handlers of the official `Agent` and `Client` interfaces by side and
/// params type name.
fn official(declarations: &str) -> BTreeMap<(Side, String), Handler> {
    let mut handlers = BTreeMap::new();
    let mut side = None;
    for line in declarations.lines() {
        match line {
            "export interface Agent {" => side = Some(Side::Agent),
            "export interface Client {" => side = Some(Side::Client),
            "}" => side = None,
            _ => {}
        }
        let Some(side) = side else { continue };
        let Some((head, rest)) = line.trim().split_once("(params: schema.") else {
            continue;
        };
        let params: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let optional = head.ends_with('?');
        handlers.insert(
            (side, params),
            Handler {
                name: head.trim_end_matches('?').to_owned(),
                optional,
            },
        );
    }
    handlers
}

/// Fails when `ir` requires a handler the official SDK leaves optional.
pub fn check(upstream_root: &Path, label: &str, ir: &Ir) -> Result<()> {
    let file = upstream_root
        .join(format!("sdk-{OFFICIAL_RELEASE}"))
        .join("package/dist/acp.d.ts");
    let declarations = std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    let handlers = official(&declarations);
    if handlers.len() < 10 {
        bail!(
            "{}: found {} handlers in its Agent and Client interfaces",
            file.display(),
            handlers.len()
        );
    }
    let mut compared = 0;
    let mut wrong = Vec::new();
    for method in ir.methods.values() {
        let uses = method
            .request
            .iter()
            .map(|request| (request.side, &request.params))
            .chain(
                method
                    .notification
                    .iter()
                    .map(|notification| (notification.side, &notification.params)),
            );
        for (side, params) in uses {
            let Some(handler) = handlers.get(&(side, params.clone())) else {
                continue;
            };
            compared += 1;
            if method.optional(side).is_none() && handler.optional {
                wrong.push(format!(
                    "`{}` is required of the {} here, but the official `{}?` is optional",
                    method.name,
                    side.as_str(),
                    handler.name
                ));
            }
        }
    }
    println!("handlers {label}: {compared} methods the official SDK {OFFICIAL_RELEASE} also has; {} required here where it leaves them optional", wrong.len());
    for line in &wrong {
        println!("  {line}");
    }
    if !wrong.is_empty() {
        bail!("{label}: {} handlers required that a peer may never call", wrong.len());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use acp_ir::ir::{Method, RequestMethod};

    fn ir_with(method: &str, params: &str, not_negotiated: Option<&str>) -> Ir {
        let request = RequestMethod {
            side: Side::Agent,
            params: params.to_owned(),
            result: "X".to_owned(),
        };
        let method = Method {
            name: method.to_owned(),
            request: Some(request),
            notification: None,
            gate: None,
            session_gate: None,
            not_negotiated: not_negotiated.map(str::to_owned),
            unstable: false,
            acted_on: false,
        };
        Ir {
            origin: "test".to_owned(),
            overlays: Vec::new(),
            types: Default::default(),
            methods: [(method.name.clone(), method)].into(),
            gated_variants: Default::default(),
            renamed: Vec::new(),
            gated_fields: Default::default(),
            capability_layout: None,
        }
    }

    #[test]
    fn a_required_handler_the_official_sdk_leaves_optional_fails() {
        let root = crate::support::scratch::scratch("handlers");
        let dist = root.join(format!("sdk-{OFFICIAL_RELEASE}")).join("package/dist");
        std::fs::create_dir_all(&dist).unwrap();
        let mut declarations =
            String::from("export interface Agent {\n    setSessionMode?(params: schema.SetSessionModeRequest): X;\n");
        for index in 0..10 {
            declarations.push_str(&format!("    other{index}(params: schema.Other{index}): X;\n"));
        }
        declarations.push_str("}\n");
        std::fs::write(dist.join("acp.d.ts"), declarations).unwrap();
        assert!(check(
            &root,
            "test",
            &ir_with("session/set_mode", "SetSessionModeRequest", None)
        )
        .is_err());
        assert!(check(
            &root,
            "test",
            &ir_with("session/set_mode", "SetSessionModeRequest", Some("offered per session"))
        )
        .is_ok());
    }

    #[test]
    fn reads_optional_marks_by_side() {
        let handlers = official("export interface Client {\n    sessionUpdate(params: schema.SessionNotification): Promise<void>;\n    readTextFile?(params: schema.ReadTextFileRequest): Promise<schema.ReadTextFileResponse>;\n}\nexport interface Agent {\n    loadSession?(params: schema.LoadSessionRequest): X;\n}\n");
        assert!(!handlers[&(Side::Client, "SessionNotification".to_owned())].optional);
        assert!(handlers[&(Side::Client, "ReadTextFileRequest".to_owned())].optional);
        assert!(handlers[&(Side::Agent, "LoadSessionRequest".to_owned())].optional);
        assert_eq!(handlers.len(), 3);
    }
}
