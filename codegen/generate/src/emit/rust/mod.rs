//! The Rust emitter: the IR printed as a self-contained crate with `quote`,
//! formatted once with `prettyplease`. The hand-written runtime files
//! (`templates/rust/*.rs` and the RFD helpers' machines) are copied as
//! text, comments kept; what the schema decides of them is generated in
//! modules of their own (`by_name`, `negotiation_tables`).
//!
//! Layout of the generated crate: `types` (one item per IR type, with
//! constructors and setters), `nullable` (`Nullable<T>`, absent versus
//! `null`), `methods` (method constants, per-side request/response/
//! notification enums, the `Agent` and `Client` traits and their dispatch
//! functions), `negotiation` (capability negotiation, when the schema has
//! an `initialize` with a known capability layout) and beside it `helpers`
//! (the RFD helpers' state machines and typed wrappers), `codec` (the decoding rules of `codegen/DECODING.md`),
//! `by_name` (the by-name `roundtrip` and `type_names`). Generated code uses fully qualified paths so no
//! schema name can shadow a std or serde item.
//!
//! Compile time: the types' decoders and encoders are generic, so they are
//! compiled where they are used, as derived ones are. Every non-generic
//! function that would reach them (the by-name `roundtrip`, the method
//! enums' `decode` and payload encoders, a union's `decode_members`, a
//! member's decode function) is `#[inline]`, which at any optimization
//! level leaves it to the crates that call it: otherwise building the
//! crate alone would compile every type's decoder and encoder for the
//! deserializers these functions use (most of its build time).

mod connection;
mod context;
mod enums;
mod eq;
mod error;
mod gates;
mod helpers;
mod language;
mod methods;
mod negotiation;
mod newtypes;
mod nullable;
mod runtime;
mod shared;
mod structs;
mod traits;
mod types;
mod unions;
mod visitor;

/// Rust's registration ([`crate::emit::LANGUAGES`]).
pub const LANGUAGE: crate::emit::language::Language = crate::emit::language::Language {
    id: "rust",
    name: "Rust",
    emit,
    package: language::PACKAGE,
    api_name: language::api_name,
};

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::quote;

use super::files::{Files, PackageNames};
use acp_ir::error::CodegenError;
use acp_ir::ir::Ir;

pub(crate) use context::RustContext;

/// How many types of `types.rs` are built and printed at a time: few, so
/// that each thread holds few tokens and syntax trees at once (with 32,
/// a run touched a third more memory, whose first use is most of what the
/// kernel's page faults cost, and took a tenth longer).
const TYPES_AT_A_TIME: usize = 8;

/// Emits the Rust crate for `ir`.
pub fn emit(ir: &Ir, names: &PackageNames) -> Result<Files, CodegenError> {
    let context = RustContext::new(ir)?;
    // `types.rs` is most of the crate. It is cut into chunks of a few types,
    // each built and printed on its own (so only its tokens are held); two
    // threads take the next chunk in turn while this one prints the other
    // files and then joins them. The chunks are joined in order.
    let chunks = Chunks::new(ir.types.len());
    let mut files = std::thread::scope(|scope| {
        let (chunks, context) = (&chunks, &context);
        let workers = [(), ()].map(|()| scope.spawn(move || chunks.print(context)));
        let files = emit_rest(ir, names, context)?;
        chunks.print(context)?;
        for worker in workers {
            worker
                .join()
                .map_err(|_| CodegenError::internal("<rust emitter>", "printing types.rs panicked"))??;
        }
        Ok::<_, CodegenError>(files)
    })?;
    let types = chunks
        .printed
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .concat();
    let after = files
        .iter()
        .position(|(path, _)| path == Path::new("src/nullable.rs"))
        .map_or(files.len(), |position| position + 1);
    files.insert(
        after,
        (
            PathBuf::from("src/types.rs"),
            format!("//! One type per schema type.\n\n{types}"),
        ),
    );
    Ok(files)
}

/// The chunks of `types.rs`: the next one to take, and each one's text.
struct Chunks {
    count: usize,
    next: std::sync::atomic::AtomicUsize,
    printed: std::sync::Mutex<Vec<String>>,
}

impl Chunks {
    fn new(types: usize) -> Chunks {
        let count = types.div_ceil(TYPES_AT_A_TIME);
        Chunks {
            count,
            next: std::sync::atomic::AtomicUsize::new(0),
            printed: std::sync::Mutex::new(vec![String::new(); count]),
        }
    }

    /// Takes and prints chunks until none is left.
    fn print(&self, context: &RustContext) -> Result<(), CodegenError> {
        loop {
            let chunk = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if chunk >= self.count {
                return Ok(());
            }
            let start = chunk * TYPES_AT_A_TIME;
            let text = format_file(types::emit(
                context,
                start..(start + TYPES_AT_A_TIME).min(context.ir.types.len()),
            )?)?;
            self.printed.lock().unwrap_or_else(std::sync::PoisonError::into_inner)[chunk] = text;
        }
    }
}

/// Every file of the crate but `types.rs`.
fn emit_rest(ir: &Ir, names: &PackageNames, context: &RustContext) -> Result<Files, CodegenError> {
    let methods = methods::emit(context)?;
    let by_name = runtime::by_name(context);
    let model = acp_ir::negotiation::model(ir);
    let negotiation_module = model.as_ref().map(|_| {
        quote! {
            #[cfg(feature = "connection")]
            pub mod connection;
            #[cfg(feature = "connection")]
            pub mod ends;
            pub mod helpers;
            pub mod negotiation;
            mod negotiation_tables;
            pub use negotiation::{negotiate, CapabilityError, Negotiated, NegotiationError, SessionOffers, PROTOCOL_VERSION};
        }
    });
    let lib = quote! {
        // Variant and error sizes follow the schema (an error object that keeps
        // unknown members outgrows clippy's `Result` limit on some schemas);
        // schema prose is not written as rustdoc.
        #![allow(clippy::large_enum_variant, clippy::result_large_err, rustdoc::bare_urls, rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]
        pub mod by_name;
        pub mod codec;
        pub mod methods;
        #negotiation_module
        pub mod nullable;
        pub mod types;
        pub use by_name::{roundtrip, type_names};
        pub use codec::DecodeError;
        pub use nullable::Nullable;
        pub use types::*;
    };
    let crate_doc = format!(
        "//! ACP bindings generated by `cargo xtask generate` from `{}`{}.\n//!\n//! Do not edit: regenerate.\n\n",
        ir.origin,
        if ir.overlays.is_empty() {
            String::new()
        } else {
            format!(" with the RFD overlays {}", ir.overlays.join(", "))
        }
    );
    let mut files = Files::new();
    files.push((PathBuf::from("Cargo.toml"), cargo_toml(names, model.is_some())));
    files.push((PathBuf::from("src/lib.rs"), format!("{crate_doc}{}", format_file(lib)?)));
    files.push((PathBuf::from("src/codec.rs"), runtime::SOURCE.to_owned()));
    files.push((
        PathBuf::from("src/by_name.rs"),
        format!(
            "//! The by-name codec: `roundtrip` and `type_names` over this schema's types.\n\n{}",
            format_file(by_name)?
        ),
    ));
    files.push((PathBuf::from("src/methods.rs"), format!("//! Method names, per-side method enums, the `Agent` and `Client` traits and their dispatch functions.\n\n{}", format_file(methods)?)));
    files.push((PathBuf::from("src/nullable.rs"), nullable::SOURCE.to_owned()));
    if let Some(model) = &model {
        files.push((PathBuf::from("src/negotiation.rs"), negotiation::SOURCE.to_owned()));
        let tables = format_file(negotiation::tables_module(model))?;
        files.push((
            PathBuf::from("src/negotiation_tables.rs"),
            format!("//! The schema's part of the capability negotiation: the protocol version, the initialize message types and the gate tables.\n\n{tables}"),
        ));
        let helpers = format_file(helpers::emit(ir, &acp_ir::rfd::model(ir)))?;
        files.push((PathBuf::from("src/helpers.rs"), format!("//! The RFD helpers: the session-ready gate (R1), the turn tracker (R2, R4) and the session-status advice (R3), as pure state machines over this crate's types.\n\n{helpers}")));
        files.push((PathBuf::from("src/helpers/machines.rs"), helpers::MACHINES.to_owned()));
        files.push((PathBuf::from("src/connection.rs"), connection::SOURCE.to_owned()));
        let ends = format_file(connection::ends(ir, &acp_ir::rfd::model(ir)))?;
        files.push((
            PathBuf::from("src/ends.rs"),
            format!(
                "//! The typed calls of each end of a connection, and the rules it follows for this schema.\n\n{ends}"
            ),
        ));
    }
    Ok(files)
}

/// The crate's manifest; with a `connection`, its dependency and the
/// default-off feature that builds it (a user who wants only the types
/// does not compile it).
fn cargo_toml(names: &PackageNames, connection: bool) -> String {
    let PackageNames {
        rust_crate, version, ..
    } = names;
    let connection = if connection {
        r#"# The connection: channels, the I/O traits and `select!` of any async
# runtime, no runtime of its own.
futures = { version = "0.3", default-features = false, features = ["std", "async-await"], optional = true }

[features]
# The connection (`connection`, `ends`): off by default, so that a crate
# that uses only the types, the codec and the negotiation does not build it.
connection = ["dep:futures"]

[package.metadata.docs.rs]
all-features = true
"#
    } else {
        ""
    };
    format!(
        r#"[package]
name = "{rust_crate}"
version = "{version}"
edition = "2021"
description = "Agent Client Protocol types generated by acp-codegen"
license = "Apache-2.0"
readme = "README.md"
keywords = ["acp", "json-rpc", "agent", "protocol"]

[dependencies]
serde = {{ version = "1", features = ["derive"] }}
# Numbers read back exactly as written: without `float_roundtrip`, a float
# can come back one bit off after an encode and a decode. `raw_value`: a
# connection keeps a received message's params as their text, decoded from
# there into the typed value.
serde_json = {{ version = "1", features = ["float_roundtrip", "raw_value"] }}
serde_path_to_error = "0.1"
regex = "1"
{connection}
# Generated crates build on their own, wherever they are written.
[workspace]
"#
    )
}

/// Parses and pretty-prints one generated file.
fn format_file(tokens: TokenStream) -> Result<String, CodegenError> {
    let file = syn::parse2::<syn::File>(tokens)
        .map_err(|error| CodegenError::internal("<rust emitter>", format!("generated Rust does not parse: {error}")))?;
    Ok(prettyplease::unparse(&file))
}
