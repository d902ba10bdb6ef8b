//! What the item modules share: the derives of structs and unions, rustdoc
//! from schema descriptions, and the checks of a value's own constraints.

use proc_macro2::TokenStream;
use quote::quote;

use acp_ir::ir::TypeExpr;

/// The derives every struct and union gets; `Eq` when nothing below it is a float.
pub(crate) fn derives(eq: bool) -> TokenStream {
    let eq = eq.then(|| quote!(::std::cmp::Eq,));
    quote!(#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, #eq)])
}

/// Rustdoc from a schema description.
pub(crate) fn doc(text: Option<&str>) -> TokenStream {
    match text {
        Some(text) if !text.trim().is_empty() => {
            let text = crate::emit::prose::prose(text);
            let lines = text.lines().map(|line| format!(" {line}"));
            quote!(#(#[doc = #lines])*)
        }
        _ => quote!(),
    }
}

/// The check a value's own constraints need, as a `fn(&T)` closure body.
pub(crate) fn constraint_check(expression: &TypeExpr) -> Option<TokenStream> {
    let option_u64 = |value: Option<u64>| match value {
        Some(value) => quote!(::std::option::Option::Some(#value)),
        None => quote!(::std::option::Option::None),
    };
    let option_f64 = |value: &Option<serde_json::Number>| match value.as_ref().and_then(serde_json::Number::as_f64) {
        Some(value) => quote!(::std::option::Option::Some(#value)),
        None => quote!(::std::option::Option::None),
    };
    match expression {
        TypeExpr::String(string)
            if string.min_length.is_some() || string.max_length.is_some() || string.pattern.is_some() =>
        {
            let (min, max) = (option_u64(string.min_length), option_u64(string.max_length));
            let pattern = match &string.pattern {
                Some(pattern) => quote!(::std::option::Option::Some(#pattern)),
                None => quote!(::std::option::Option::None),
            };
            Some(quote!(crate::codec::check_string(value, #min, #max, #pattern)))
        }
        TypeExpr::Integer(integer) if integer.minimum.is_some() || integer.maximum.is_some() => {
            let (min, max) = (option_f64(&integer.minimum), option_f64(&integer.maximum));
            Some(quote!(crate::codec::check_number(*value as f64, #min, #max)))
        }
        TypeExpr::Number(number) if number.minimum.is_some() || number.maximum.is_some() => {
            let (min, max) = (option_f64(&number.minimum), option_f64(&number.maximum));
            Some(quote!(crate::codec::check_number(*value, #min, #max)))
        }
        TypeExpr::Array(array) if array.min_items.is_some() || array.max_items.is_some() => {
            let (min, max) = (option_u64(array.min_items), option_u64(array.max_items));
            Some(quote!(crate::codec::check_items(value.len(), #min, #max)))
        }
        _ => None,
    }
}
