//! The generated crate's `codec` module, the hand-written runtime of
//! `templates/rust/codec.rs` copied as text, comments kept (`decode` with
//! JSON-pointer errors, the decoding rules and constraint checks the
//! generated types call, the value buffer of lenient members), and the
//! schema's part in a module of its own, `by_name`: the by-name `roundtrip`
//! over every type and `type_names`.

use proc_macro2::TokenStream;
use quote::quote;

use super::context::{type_ident, RustContext};

/// The runtime's source, a real file beside the templates that this crate
/// compiles in its tests, written into every generated crate as it is.
pub(crate) const SOURCE: &str = include_str!("../../../../../templates/rust/codec.rs");

/// `by_name.rs`: `roundtrip` and `type_names` over the schema's types.
pub(crate) fn by_name(context: &RustContext) -> TokenStream {
    let names: Vec<&String> = context.ir.types.keys().collect();
    let arms = context.ir.types.keys().map(|name| {
        let type_name = type_ident(name);
        quote!(#name => roundtrip_as::<crate::types::#type_name>(json),)
    });
    quote! {
        use ::serde::de::DeserializeOwned;
        use ::serde::Serialize;
        use ::serde_json::Value;

        use crate::codec::{check_depth, decode_nested, DecodeError};

        fn roundtrip_as<T: DeserializeOwned + Serialize>(json: &Value) -> ::std::result::Result<Value, DecodeError> {
            // Checked before the copy: cloning a `Value` recurses as deep as it nests.
            check_depth(json)?;
            let decoded: T = decode_nested(json.clone())?;
            ::serde_json::to_value(&decoded).map_err(|error| DecodeError { path: ::std::string::String::new(), message: error.to_string() })
        }

        /// Decodes `json` as the type called `type_name` and encodes it back.
        #[inline]
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
    }
}
