//! The JSON-RPC error object of the generated crate (the schema's `Error`,
//! found by its members in the IR, [`acp_ir::ir::Ir::error_object`]): one constructor per named
//! error code (`Error::method_not_found()`), `Display`, `std::error::Error`,
//! and `From<DecodeError>` as invalid params. It is the error every handler
//! of the `methods` module returns.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::context::{type_ident, Presence, RustContext};
use acp_ir::error::{CodegenError, ErrorKind};
use acp_ir::ir::*;
use acp_ir::naming;

/// JSON-RPC's codes for an unknown method, invalid params and an internal error.
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
pub(crate) const INVALID_PARAMS: i64 = -32602;
pub(crate) const INTERNAL_ERROR: i64 = -32603;

/// One named error code: its constructor, message and description.
struct Code<'a> {
    value: &'a EnumValue,
    constructor: Ident,
    message: String,
}

/// The named codes of the error object's code enum, with the constructor
/// each gets (`ParseError` -> `parse_error()`, message `Parse error`).
fn codes<'a>(context: &'a RustContext, error: &ErrorObject) -> Vec<Code<'a>> {
    let Some(TypeKind::Enum(enumeration)) = error
        .codes
        .as_deref()
        .and_then(|name| context.ir.get(name))
        .map(|definition| &definition.kind)
    else {
        return Vec::new();
    };
    enumeration
        .values
        .iter()
        .filter_map(|value| {
            let constructor = naming::rust_field(&value.name);
            if constructor.starts_with("r#") || ["new", "code", "message", "data"].contains(&constructor.as_str()) {
                return None;
            }
            let words = naming::snake_case(&value.name).replace('_', " ");
            let mut characters = words.chars();
            let message = characters
                .next()
                .map(|first| first.to_uppercase().chain(characters).collect())
                .unwrap_or_default();
            Some(Code {
                value,
                constructor: format_ident!("{constructor}"),
                message,
            })
        })
        .collect()
}

/// The error for a schema with methods but no error object to answer with.
fn no_error_object(context: &RustContext, wanted: &str) -> CodegenError {
    CodegenError {
        kind: ErrorKind::Unsupported,
        file: context.ir.origin.clone(),
        pointer: String::new(),
        message: format!("the schema has methods but no JSON-RPC error object (`code`, `message`, `data`) {wanted}"),
    }
}

/// The Rust type of the error object, for method signatures.
pub(crate) fn error_type(context: &RustContext) -> Result<TokenStream, CodegenError> {
    let error = context
        .error_object
        .as_ref()
        .ok_or_else(|| no_error_object(context, "to answer with"))?;
    let type_name = type_ident(&error.name);
    Ok(quote!(crate::types::#type_name))
}

/// `crate::types::Error::<constructor>()` for the code `number`; the
/// `methods` module needs one for each of JSON-RPC's method-call errors.
pub(crate) fn standard_error(context: &RustContext, number: i64) -> Result<TokenStream, CodegenError> {
    let found = context.error_object.as_ref().and_then(|error| {
        let constructor = codes(context, error)
            .into_iter()
            .find(|code| code.value.value.as_i64() == Some(number))?
            .constructor;
        let type_name = type_ident(&error.name);
        Some(quote!(crate::types::#type_name::#constructor()))
    });
    found.ok_or_else(|| no_error_object(context, &format!("whose code enum names {number}")))
}

pub(crate) fn error_impls(context: &RustContext) -> TokenStream {
    let Some(error) = &context.error_object else {
        return quote!();
    };
    let type_name = type_ident(&error.name);
    let codes = codes(context, error);
    let code_enum = error.codes.as_deref().map(type_ident);
    let constructors = codes.iter().map(|code| {
        let (constructor, message) = (&code.constructor, &code.message);
        let variant = type_ident(&code.value.name);
        let documentation = super::shared::doc(code.value.description.as_deref());
        quote! {
            #documentation
            pub fn #constructor() -> Self {
                Self::new(crate::types::#code_enum::#variant, #message)
            }
        }
    });
    let number = if code_enum.is_some() {
        quote!(self.code.value())
    } else {
        quote!(self.code)
    };
    let data = match context.ir.get(&error.name).map(|definition| &definition.kind) {
        Some(TypeKind::Struct(structure)) => structure
            .fields
            .iter()
            .find(|field| field.wire_name == "data")
            .map(Presence::of),
        _ => None,
    };
    let data_reference = match data {
        Some(Presence::Optional) => Some(quote!(::std::option::Option::as_ref(&self.data))),
        Some(Presence::OptionalNullable) => Some(quote!(self.data.value())),
        Some(Presence::Required) => Some(quote!(::std::option::Option::Some(&self.data))),
        None => None,
    };
    let write_data = data_reference.map(|data| {
        quote! {
            if let ::std::option::Option::Some(::std::result::Result::Ok(data)) = #data.map(::serde_json::to_string) {
                write!(formatter, ": {data}")?;
            }
        }
    });
    let from_decode_error = (matches!(data, Some(Presence::Optional | Presence::OptionalNullable))
        && codes
            .iter()
            .any(|code| code.value.value.as_i64() == Some(INVALID_PARAMS)))
    .then(|| {
        let invalid_params = codes
            .iter()
            .find(|code| code.value.value.as_i64() == Some(INVALID_PARAMS))
            .map(|code| &code.constructor);
        quote! {
            impl ::std::convert::From<crate::codec::DecodeError> for #type_name {
                /// Invalid params, naming the JSON pointer of the failure in the
                /// message and in `data.pointer`.
                fn from(error: crate::codec::DecodeError) -> Self {
                    let mut invalid = Self::#invalid_params();
                    invalid.message = ::std::format!("{}: {error}", invalid.message);
                    invalid.data(::serde_json::json!({ "pointer": error.path }))
                }
            }
        }
    });
    quote! {
        impl #type_name {
            #(#constructors)*
        }
        impl ::std::fmt::Display for #type_name {
            fn fmt(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(formatter, "{} (code {})", self.message, #number)?;
                #write_data
                ::std::result::Result::Ok(())
            }
        }
        impl ::std::error::Error for #type_name {}
        #from_decode_error
    }
}
