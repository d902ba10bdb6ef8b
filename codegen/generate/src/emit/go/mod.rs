//! The Go emitter: a Go module (standard library only) with one type per
//! schema type, its decoder and encoder, the by-name codec `Roundtrip`, the
//! method tables with the side interfaces and their dispatchers, capability
//! negotiation and the RFD helpers, rendered from the askama templates in
//! `templates/go/` around the hand-written runtime copied from there as it
//! is (`json.go`: the JSON value and its parser; `values.go`: the optional,
//! nullable and number types; `codec.go`, `object.go` and `shapes.go`: the
//! combinators the decoders are built from; `rpc.go`: what the dispatchers
//! are built from; `gate.go`: the session-ready gate; `turns.go`: the turn
//! tracker's machine, which the connection's client end runs too;
//! `negotiation.go`: the negotiation's evaluator;
//! `connection.go`: one end of a connection over a reader and a writer).
//!
//! `types` builds the views of the types (`structs` of structs and object
//! variants, `unions` of unions), `exprs` the Go types, codecs and
//! doc comments they print, `indirection` which values are held through a
//! pointer; `methods` the method tables, interfaces and dispatchers,
//! `negotiation` the negotiation's tables, `helpers` the RFD helpers' rules
//! and typed API, `connection` the connection's rules and typed ends
//! (`ends.go`); this module holds the module's files.

mod connection;
mod exprs;
mod helpers;
mod indirection;
mod language;
mod methods;
mod negotiation;
mod structs;
mod types;
mod unions;

pub use language::module_version;

/// Go's registration ([`crate::emit::LANGUAGES`]).
pub const LANGUAGE: crate::emit::language::Language = crate::emit::language::Language {
    id: "go",
    name: "Go",
    emit,
    package: language::PACKAGE,
    api_name: language::api_name,
};

use std::path::PathBuf;

use askama::Template;

use super::files::{render, Files, PackageNames};
use acp_ir::error::CodegenError;
use acp_ir::ir::Ir;
use acp_ir::naming;

/// The Go release the module declares and is tested with.
pub const GO_VERSION: &str = "1.26";

/// The runtime files, copied as they are: `(file name, text)`.
const RUNTIME: [(&str, &str); 9] = [
    ("json.go", include_str!("../../../../../templates/go/json.go")),
    ("values.go", include_str!("../../../../../templates/go/values.go")),
    ("codec.go", include_str!("../../../../../templates/go/codec.go")),
    ("object.go", include_str!("../../../../../templates/go/object.go")),
    ("shapes.go", include_str!("../../../../../templates/go/shapes.go")),
    ("rpc.go", include_str!("../../../../../templates/go/rpc.go")),
    ("gate.go", include_str!("../../../../../templates/go/gate.go")),
    ("turns.go", include_str!("../../../../../templates/go/turns.go")),
    (
        "connection.go",
        include_str!("../../../../../templates/go/connection.go"),
    ),
];

/// The negotiation evaluator, copied when the schema negotiates.
const NEGOTIATION: &str = include_str!("../../../../../templates/go/negotiation.go");

#[derive(Template)]
#[template(path = "go/go.mod.tmpl", escape = "none")]
struct GoMod {
    module: String,
    go_version: &'static str,
}

/// `roundtrip.go`: the by-name codec over every type.
#[derive(Template)]
#[template(path = "go/roundtrip.go.tmpl", escape = "none")]
struct RoundtripFile {
    /// `(type name as a Go string literal, its codec)`.
    entries: Vec<(String, String)>,
}

/// Emits the Go module for `ir`.
pub fn emit(ir: &Ir, names: &PackageNames) -> Result<Files, CodegenError> {
    let entries = ir
        .types
        .keys()
        .map(|name| (exprs::go_string(name), exprs::named_codec(&naming::go_type(name))))
        .collect();
    let mut files = vec![
        (
            PathBuf::from("go.mod"),
            render(
                &GoMod {
                    module: names.go_module.clone(),
                    go_version: GO_VERSION,
                },
                "go/go.mod.tmpl",
            )?,
        ),
        (PathBuf::from("types.go"), render(&types::view(ir), "go/types.go.tmpl")?),
        (
            PathBuf::from("roundtrip.go"),
            render(&RoundtripFile { entries }, "go/roundtrip.go.tmpl")?,
        ),
        (
            PathBuf::from("methods.go"),
            render(&methods::view(ir)?, "go/methods.go.tmpl")?,
        ),
        (
            PathBuf::from("ends.go"),
            render(&connection::view(ir)?, "go/ends.go.tmpl")?,
        ),
    ];
    let negotiation = acp_ir::negotiation::model(ir);
    let helpers = helpers::view(&acp_ir::rfd::model(ir), negotiation.is_some());
    files.push((PathBuf::from("helpers.go"), render(&helpers, "go/helpers.go.tmpl")?));
    if let Some(model) = negotiation {
        files.push((
            PathBuf::from("negotiation_tables.go"),
            render(&negotiation::view(&model), "go/negotiation_tables.go.tmpl")?,
        ));
        files.push((PathBuf::from("negotiation.go"), NEGOTIATION.to_owned()));
    }
    files.extend(
        RUNTIME
            .iter()
            .map(|(file, text)| (PathBuf::from(file), (*text).to_owned())),
    );
    Ok(files)
}
