//! `codec::Buffer` of the generated crate: the JSON value of a member whose
//! rules let it fail quietly (`default_on_error`, `skip_invalid_items`),
//! held while it is tried. Its strings are borrowed from the input where
//! they have no escapes and its objects are lists, so it costs less than a
//! `serde_json::Value` (no copies, no map index). It is read only where no
//! error text is kept, so its errors carry no pointer.

use proc_macro2::TokenStream;
use quote::quote;

pub(crate) fn emit() -> TokenStream {
    quote! {
        /// A JSON value held while a member with lenient rules is tried.
        #[doc(hidden)]
        #[derive(::std::fmt::Debug)]
        pub enum Buffer<'de> {
            /// `null`.
            Null,
            /// `true` or `false`.
            Bool(bool),
            /// A non-negative integer.
            Unsigned(u64),
            /// A negative integer.
            Signed(i64),
            /// Any other number.
            Float(f64),
            /// A string borrowed from the input.
            Borrowed(&'de str),
            /// A string that had to be copied.
            Owned(::std::string::String),
            /// An array.
            Array(::std::vec::Vec<Buffer<'de>>),
            /// An object's members in their order.
            Object(::std::vec::Vec<(Buffer<'de>, Buffer<'de>)>),
        }

        impl<'de> Buffer<'de> {
            /// Whether the value is `null`.
            pub fn is_null(&self) -> bool {
                matches!(self, Buffer::Null)
            }

            /// What kind of JSON value it is, for error messages.
            pub fn kind(&self) -> &'static str {
                match self {
                    Buffer::Null => "null",
                    Buffer::Bool(_) => "boolean",
                    Buffer::Unsigned(_) | Buffer::Signed(_) | Buffer::Float(_) => "number",
                    Buffer::Borrowed(_) | Buffer::Owned(_) => "string",
                    Buffer::Array(_) => "array",
                    Buffer::Object(_) => "object",
                }
            }
        }

        impl<'de> ::serde::Deserialize<'de> for Buffer<'de> {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                struct Any;
                impl<'de> ::serde::de::Visitor<'de> for Any {
                    type Value = Buffer<'de>;
                    fn expecting(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        formatter.write_str("any JSON value")
                    }
                    fn visit_unit<E>(self) -> ::std::result::Result<Buffer<'de>, E> {
                        Ok(Buffer::Null)
                    }
                    fn visit_none<E>(self) -> ::std::result::Result<Buffer<'de>, E> {
                        Ok(Buffer::Null)
                    }
                    fn visit_some<D: ::serde::Deserializer<'de>>(self, deserializer: D) -> ::std::result::Result<Buffer<'de>, D::Error> {
                        ::serde::Deserialize::deserialize(deserializer)
                    }
                    fn visit_bool<E>(self, value: bool) -> ::std::result::Result<Buffer<'de>, E> {
                        Ok(Buffer::Bool(value))
                    }
                    fn visit_u64<E>(self, value: u64) -> ::std::result::Result<Buffer<'de>, E> {
                        Ok(Buffer::Unsigned(value))
                    }
                    fn visit_i64<E>(self, value: i64) -> ::std::result::Result<Buffer<'de>, E> {
                        Ok(if value < 0 { Buffer::Signed(value) } else { Buffer::Unsigned(value as u64) })
                    }
                    fn visit_f64<E>(self, value: f64) -> ::std::result::Result<Buffer<'de>, E> {
                        Ok(Buffer::Float(value))
                    }
                    fn visit_borrowed_str<E>(self, value: &'de str) -> ::std::result::Result<Buffer<'de>, E> {
                        Ok(Buffer::Borrowed(value))
                    }
                    fn visit_str<E>(self, value: &str) -> ::std::result::Result<Buffer<'de>, E> {
                        Ok(Buffer::Owned(value.to_owned()))
                    }
                    fn visit_string<E>(self, value: ::std::string::String) -> ::std::result::Result<Buffer<'de>, E> {
                        Ok(Buffer::Owned(value))
                    }
                    fn visit_seq<A: ::serde::de::SeqAccess<'de>>(self, mut seq: A) -> ::std::result::Result<Buffer<'de>, A::Error> {
                        let mut items = ::std::vec::Vec::new();
                        while let Some(item) = seq.next_element()? {
                            items.push(item);
                        }
                        Ok(Buffer::Array(items))
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::std::result::Result<Buffer<'de>, A::Error> {
                        let mut members = ::std::vec::Vec::new();
                        while let Some(member) = map.next_entry()? {
                            members.push(member);
                        }
                        Ok(Buffer::Object(members))
                    }
                }
                deserializer.deserialize_any(Any)
            }
        }

        impl<'de> ::serde::de::IntoDeserializer<'de, ::serde_json::Error> for Buffer<'de> {
            type Deserializer = Self;
            fn into_deserializer(self) -> Self {
                self
            }
        }

        // Read as a `serde_json::Value` is: `null` is `None`, a newtype is
        // its content, everything else is told by the value itself.
        impl<'de> ::serde::Deserializer<'de> for Buffer<'de> {
            type Error = ::serde_json::Error;

            fn deserialize_any<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::std::result::Result<V::Value, ::serde_json::Error> {
                match self {
                    Buffer::Null => visitor.visit_unit(),
                    Buffer::Bool(value) => visitor.visit_bool(value),
                    Buffer::Unsigned(value) => visitor.visit_u64(value),
                    Buffer::Signed(value) => visitor.visit_i64(value),
                    Buffer::Float(value) => visitor.visit_f64(value),
                    Buffer::Borrowed(value) => visitor.visit_borrowed_str(value),
                    Buffer::Owned(value) => visitor.visit_string(value),
                    Buffer::Array(items) => {
                        let mut items = ::serde::de::value::SeqDeserializer::new(items.into_iter());
                        let value = visitor.visit_seq(&mut items)?;
                        items.end()?;
                        Ok(value)
                    }
                    Buffer::Object(members) => {
                        let mut members = ::serde::de::value::MapDeserializer::new(members.into_iter());
                        let value = visitor.visit_map(&mut members)?;
                        members.end()?;
                        Ok(value)
                    }
                }
            }

            fn deserialize_option<V: ::serde::de::Visitor<'de>>(self, visitor: V) -> ::std::result::Result<V::Value, ::serde_json::Error> {
                match self {
                    Buffer::Null => visitor.visit_none(),
                    other => visitor.visit_some(other),
                }
            }

            fn deserialize_newtype_struct<V: ::serde::de::Visitor<'de>>(self, _name: &'static str, visitor: V) -> ::std::result::Result<V::Value, ::serde_json::Error> {
                visitor.visit_newtype_struct(self)
            }

            ::serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
                bytes byte_buf unit unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
            }
        }

        /// Reads a member with lenient rules: its decode function applied to
        /// its buffered value, inside the member so that an error names it.
        #[doc(hidden)]
        pub struct Lenient<T>(pub for<'a> fn(Buffer<'a>) -> ::std::result::Result<T, ::std::string::String>);

        impl<'de, T> ::serde::de::DeserializeSeed<'de> for Lenient<T> {
            type Value = T;
            fn deserialize<D: ::serde::Deserializer<'de>>(self, deserializer: D) -> ::std::result::Result<T, D::Error> {
                let value = <Buffer<'de> as ::serde::Deserialize>::deserialize(deserializer)?;
                (self.0)(value).map_err(::serde::de::Error::custom)
            }
        }

        /// [`field`] for a member whose invalid value falls back: decoded
        /// once from its buffer, `Ok(None)` when it fails or a rule discards it.
        #[doc(hidden)]
        pub fn lenient_field<'de, T: ::serde::Deserialize<'de>>(
            value: Buffer<'de>,
            rules: Rules,
            check: fn(&T) -> ::std::result::Result<(), ::std::string::String>,
        ) -> ::std::result::Result<::std::option::Option<T>, ::std::string::String> {
            if value.is_null() && rules.on_null {
                return Ok(None);
            }
            Ok(T::deserialize(value).ok().filter(|decoded| check(decoded).is_ok()))
        }

        /// An optional member whose invalid value leaves it absent.
        #[doc(hidden)]
        pub fn lenient_optional<T: DeserializeOwned>(value: Buffer<'_>) -> ::std::result::Result<::std::option::Option<T>, ::std::string::String> {
            lenient_field(value, Rules { on_error: true, on_null: false }, |_| Ok(()))
        }

        /// An optional member that may be `null`, whose invalid value leaves it absent.
        #[doc(hidden)]
        pub fn lenient_optional_nullable<T: DeserializeOwned>(value: Buffer<'_>) -> ::std::result::Result<crate::nullable::Nullable<T>, ::std::string::String> {
            lenient_field::<::std::option::Option<T>>(value, Rules { on_error: true, on_null: false }, |_| Ok(())).map(nullable)
        }

        /// [`items`] from a buffer: an array field whose invalid items are dropped.
        #[doc(hidden)]
        pub fn lenient_items<'de, T: ::serde::Deserialize<'de>>(
            value: Buffer<'de>,
            rules: Rules,
            check: fn(&::std::vec::Vec<T>) -> ::std::result::Result<(), ::std::string::String>,
        ) -> ::std::result::Result<::std::option::Option<::std::vec::Vec<T>>, ::std::string::String> {
            if value.is_null() && rules.on_null {
                return Ok(None);
            }
            let kept = match value {
                Buffer::Array(values) => values.into_iter().filter_map(|item| T::deserialize(item).ok()).collect(),
                _ if rules.on_error => return Ok(None),
                other => return Err(format!("invalid type: {}, expected an array", other.kind())),
            };
            match check(&kept) {
                Ok(()) => Ok(Some(kept)),
                Err(_) if rules.on_error => Ok(None),
                Err(message) => Err(message),
            }
        }

        /// Like [`lenient_items`] for a nullable array: `null` stays `null`.
        #[doc(hidden)]
        pub fn lenient_nullable_items<'de, T: ::serde::Deserialize<'de>>(
            value: Buffer<'de>,
            rules: Rules,
            check: fn(&::std::vec::Vec<T>) -> ::std::result::Result<(), ::std::string::String>,
        ) -> ::std::result::Result<::std::option::Option<::std::option::Option<::std::vec::Vec<T>>>, ::std::string::String> {
            if value.is_null() {
                return Ok(Some(None));
            }
            lenient_items(value, rules, check).map(|kept| kept.map(Some))
        }
    }
}
