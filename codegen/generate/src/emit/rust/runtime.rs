//! The generated crate's `codec` module: the hand-written runtime of
//! `templates/rust/codec.rs` (`decode` with JSON-pointer errors, the
//! decoding rules and constraint checks the generated types call, the value
//! buffer of lenient members), with the schema's part put at its marker: the
//! by-name `roundtrip` over every type and `type_names`.

use proc_macro2::TokenStream;
use quote::quote;

use super::context::{type_ident, RustContext};
use acp_ir::error::CodegenError;

/// The runtime's source, a real file beside the templates that this crate
/// compiles in its tests.
const SOURCE: &str = include_str!("../../../../../templates/rust/codec.rs");
/// The line where the schema's part goes.
const MARKER: &str = "// @generated: roundtrip_as, roundtrip and type_names go here.";

pub(crate) fn emit(context: &RustContext) -> Result<TokenStream, CodegenError> {
    let (before, after) = SOURCE
        .split_once(MARKER)
        .ok_or_else(|| CodegenError::internal("templates/rust/codec.rs", "the marker line is missing"))?;
    let parse = |text: &str| {
        text.parse::<TokenStream>()
            .map_err(|error| CodegenError::internal("templates/rust/codec.rs", format!("does not parse: {error}")))
    };
    let (before, after) = (parse(before)?, parse(after)?);
    let names: Vec<&String> = context.ir.types.keys().collect();
    let arms = context.ir.types.keys().map(|name| {
        let type_name = type_ident(name);
        quote!(#name => roundtrip_as::<crate::types::#type_name>(json),)
    });
    Ok(quote! {
        #before

        fn roundtrip_as<T: DeserializeOwned + Serialize>(json: &Value) -> ::std::result::Result<Value, DecodeError> {
            // Checked before the copy: cloning a `Value` recurses as deep as it nests.
            check_depth(json)?;
            let decoded: T = decode_nested(json.clone())?;
            ::serde_json::to_value(&decoded).map_err(|error| DecodeError { path: ::std::string::String::new(), message: error.to_string() })
        }

        /// Decodes `json` as the type called `type_name` and encodes it back.
        pub fn roundtrip(type_name: &str, json: &Value) -> ::std::result::Result<Value, DecodeError> {
            match type_name {
                #(#arms)*
                other => Err(DecodeError { path: ::std::string::String::new(), message: format!("unknown type `{other}`") }),
            }
        }

        /// The names `roundtrip` accepts.
        pub fn type_names() -> &'static [&'static str] {
            &[#(#names),*]
        }

        #after
    })
}
