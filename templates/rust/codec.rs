//! Decoding rules and the by-name codec.

// Copied as text into every generated crate, comments kept. The schema's
// part (`roundtrip` over every type, `type_names`) is the generated
// `by_name` module, which calls `check_depth` and `decode_nested` here.
// acp-generate compiles this file in its tests, under clippy.

use ::serde::de::DeserializeOwned;
use ::serde::Serialize;
use ::serde_json::Value;

/// Why a value did not decode, and where: `path` is a JSON pointer.
#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, ::std::cmp::Eq)]
pub struct DecodeError {
    /// The JSON pointer of the failing value (empty for the whole value).
    pub path: ::std::string::String,
    /// What is wrong there.
    pub message: ::std::string::String,
}

impl ::std::fmt::Display for DecodeError {
    fn fmt(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        let path = if self.path.is_empty() {
            "(root)"
        } else {
            self.path.as_str()
        };
        write!(formatter, "{}: {}", path, self.message)
    }
}

impl ::std::error::Error for DecodeError {}

/// The `x-deserialize-*` rules of one field.
#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::marker::Copy)]
#[doc(hidden)]
pub struct Rules {
    /// An invalid value falls back instead of failing.
    pub on_error: bool,
    /// A `null` falls back.
    pub on_null: bool,
}

fn pointer(path: &::serde_path_to_error::Path) -> ::std::string::String {
    let mut pointer = ::std::string::String::new();
    for segment in path.iter() {
        match segment {
            ::serde_path_to_error::Segment::Seq { index } => {
                pointer.push('/');
                pointer.push_str(&index.to_string());
            }
            ::serde_path_to_error::Segment::Map { key } => {
                pointer.push('/');
                pointer.push_str(&escape_token(key));
            }
            ::serde_path_to_error::Segment::Enum { .. } | ::serde_path_to_error::Segment::Unknown => {}
        }
    }
    pointer
}

/// A member name as a JSON pointer segment (RFC 6901): the crate's one
/// escape.
pub(crate) fn escape_token(token: &str) -> ::std::string::String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Joins an outer pointer with a message that may start with an inner
/// `pointer: message` from a nested decode. A missing member is
/// located at the member, not at the object that lacks it.
fn located(path: ::std::string::String, message: ::std::string::String) -> DecodeError {
    if message.starts_with('/') {
        if let Some((inner, rest)) = message.split_once(": ") {
            return DecodeError {
                path: path + inner,
                message: rest.to_owned(),
            };
        }
    }
    if let Some(member) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        let path = ::std::format!("{path}/{}", escape_token(member));
        return DecodeError { path, message };
    }
    DecodeError { path, message }
}

/// The most arrays and objects a decoded value may nest, itself
/// included. `serde_json::from_str` and `from_slice` stop at this
/// depth; [`decode`] applies it to a [`Value`] built any other way, so
/// that no input exhausts the stack.
pub const MAX_DEPTH: usize = 127;

/// One step down from an array or object.
enum Step<'a> {
    Index(usize),
    Name(&'a str),
}

/// Whether `value` nests more than `depth` arrays and objects, itself
/// included: the check that needs no path and no allocation. It recurses at
/// most `depth + 1` calls deep.
fn deeper_than(value: &Value, depth: usize) -> bool {
    match value {
        Value::Array(items) => depth == 0 || items.iter().any(|item| deeper_than(item, depth - 1)),
        Value::Object(members) => depth == 0 || members.values().any(|member| deeper_than(member, depth - 1)),
        _ => false,
    }
}

/// The JSON pointer of the first array or object nested deeper than
/// [`MAX_DEPTH`] in `value`, in document order. It walks with a
/// stack of its own.
fn too_deep(value: &Value) -> ::std::option::Option<::std::string::String> {
    // Each step names its parent's position in `steps` (`usize::MAX` for the root).
    let mut steps: ::std::vec::Vec<(usize, Step<'_>)> = ::std::vec::Vec::new();
    let mut pending: ::std::vec::Vec<(&Value, usize, usize)> = ::std::vec![(value, 1, usize::MAX)];
    while let Some((current, depth, trail)) = pending.pop() {
        let children: ::std::vec::Vec<(Step<'_>, &Value)> = match current {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(index, item)| (Step::Index(index), item))
                .collect(),
            Value::Object(members) => members
                .iter()
                .map(|(key, member)| (Step::Name(key.as_str()), member))
                .collect(),
            _ => continue,
        };
        if depth > MAX_DEPTH {
            let mut keys = ::std::vec::Vec::new();
            let mut at = trail;
            while let Some((parent, step)) = steps.get(at) {
                keys.push(match step {
                    Step::Index(index) => index.to_string(),
                    Step::Name(name) => escape_token(name),
                });
                at = *parent;
            }
            return Some(keys.iter().rev().map(|key| ::std::format!("/{key}")).collect());
        }
        for (step, child) in children.into_iter().rev() {
            if child.is_array() || child.is_object() {
                steps.push((trail, step));
                pending.push((child, depth + 1, steps.len() - 1));
            }
        }
    }
    None
}

/// Decodes `value` as `T`, naming the JSON pointer of a failure. A
/// value nested deeper than [`MAX_DEPTH`] is an error at the first
/// array or object too deep.
pub fn decode<T: DeserializeOwned>(value: Value) -> ::std::result::Result<T, DecodeError> {
    check_depth(&value)?;
    decode_nested(value)
}

/// An error at the first array or object of `value` nested deeper than [`MAX_DEPTH`].
pub(crate) fn check_depth(value: &Value) -> ::std::result::Result<(), DecodeError> {
    if !deeper_than(value, MAX_DEPTH) {
        return Ok(());
    }
    match too_deep(value) {
        Some(path) => Err(DecodeError {
            path,
            message: ::std::format!("nested more than {MAX_DEPTH} arrays and objects deep"),
        }),
        None => Ok(()),
    }
}

/// [`decode`] without the depth check: for values inside one already checked.
pub(crate) fn decode_nested<T: DeserializeOwned>(value: Value) -> ::std::result::Result<T, DecodeError> {
    // Borrowed and untracked first, the common case; only a value that
    // fails is decoded again, tracking the path to its failure.
    if let Ok(decoded) = T::deserialize(&value) {
        return Ok(decoded);
    }
    ::serde_path_to_error::deserialize(value).map_err(|error| {
        let path = pointer(error.path());
        located(path, error.into_inner().to_string())
    })
}

/// The params of a call as a dispatcher takes them: a [`Value`], or the
/// JSON text a connection read them as, decoded from there into the typed
/// value with no [`Value`] between. Text the connection checked (no lone
/// surrogate, no nesting deeper than [`MAX_DEPTH`]) decodes as its
/// [`Value`] would: what fails is decoded again by value, for the same
/// error.
pub trait Params {
    /// The params as `T`, an error naming the JSON pointer of a failure.
    ///
    /// # Errors
    ///
    /// The params are not a `T`.
    fn decode<T: DeserializeOwned>(self) -> ::std::result::Result<T, DecodeError>;
    /// The params as a [`Value`] (an extension's).
    ///
    /// # Errors
    ///
    /// The text is not JSON a [`Value`] holds.
    fn into_value(self) -> ::std::result::Result<Value, DecodeError>;
}

impl Params for Value {
    fn decode<T: DeserializeOwned>(self) -> ::std::result::Result<T, DecodeError> {
        decode(self)
    }

    fn into_value(self) -> ::std::result::Result<Value, DecodeError> {
        Ok(self)
    }
}

impl Params for ::std::boxed::Box<::serde_json::value::RawValue> {
    fn decode<T: DeserializeOwned>(self) -> ::std::result::Result<T, DecodeError> {
        match ::serde_json::from_str(self.get()) {
            Ok(decoded) => Ok(decoded),
            Err(_) => decode(self.into_value()?),
        }
    }

    fn into_value(self) -> ::std::result::Result<Value, DecodeError> {
        ::serde_json::from_str(self.get()).map_err(|error| DecodeError {
            path: ::std::string::String::new(),
            message: error.to_string(),
        })
    }
}

/// A string a decoder only matches (a member name, a tag, an enum
/// value): borrowed from the input when it has no escapes.
#[doc(hidden)]
pub enum Key<'de> {
    /// A name borrowed from the input.
    Borrowed(&'de str),
    /// A name that had to be copied.
    Owned(::std::string::String),
}

impl<'de> Key<'de> {
    /// The string.
    pub fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(name) => name,
            Key::Owned(name) => name,
        }
    }

    /// The string as an owned one, to keep.
    pub fn into_owned(self) -> ::std::string::String {
        match self {
            Key::Borrowed(name) => name.to_owned(),
            Key::Owned(name) => name,
        }
    }
}

impl<'de> ::serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
        struct Name;
        impl<'de> ::serde::de::Visitor<'de> for Name {
            type Value = Key<'de>;
            fn expecting(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                formatter.write_str("a string")
            }
            fn visit_borrowed_str<E: ::serde::de::Error>(self, name: &'de str) -> ::std::result::Result<Key<'de>, E> {
                Ok(Key::Borrowed(name))
            }
            fn visit_str<E: ::serde::de::Error>(self, name: &str) -> ::std::result::Result<Key<'de>, E> {
                Ok(Key::Owned(name.to_owned()))
            }
            fn visit_string<E: ::serde::de::Error>(
                self,
                name: ::std::string::String,
            ) -> ::std::result::Result<Key<'de>, E> {
                Ok(Key::Owned(name))
            }
        }
        deserializer.deserialize_identifier(Name)
    }
}

/// A struct read from an object's members by [`Members`].
#[doc(hidden)]
pub trait FromMembers<'de>: Sized {
    /// What the struct is, for "expected ..." errors.
    const EXPECTING: &'static str;
    /// Reads the struct from the members of its object.
    fn from_members<A: ::serde::de::MapAccess<'de>>(map: A) -> ::std::result::Result<Self, A::Error>;
}

/// The visitor of an object read as the struct `T`.
#[doc(hidden)]
pub struct Members<T>(::std::marker::PhantomData<T>);

impl<T> Members<T> {
    /// The visitor.
    pub fn new() -> Self {
        Members(::std::marker::PhantomData)
    }
}

impl<T> ::std::default::Default for Members<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'de, T: FromMembers<'de>> ::serde::de::Visitor<'de> for Members<T> {
    type Value = T;
    fn expecting(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        formatter.write_str(T::EXPECTING)
    }
    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, map: A) -> ::std::result::Result<T, A::Error> {
        T::from_members(map)
    }
}

/// Reads the value of a named member into `slot` with `seed`; a
/// member given twice is a "duplicate field" error.
#[doc(hidden)]
#[inline(always)]
pub fn fill_with<'de, A: ::serde::de::MapAccess<'de>, S: ::serde::de::DeserializeSeed<'de>>(
    slot: &mut ::std::option::Option<S::Value>,
    name: &'static str,
    map: &mut A,
    seed: S,
) -> ::std::result::Result<(), A::Error> {
    if slot.is_some() {
        return Err(<A::Error as ::serde::de::Error>::duplicate_field(name));
    }
    *slot = Some(map.next_value_seed(seed)?);
    Ok(())
}

/// [`fill_with`] for a member read by its own `Deserialize`.
#[doc(hidden)]
#[inline(always)]
pub fn fill<'de, A: ::serde::de::MapAccess<'de>, T: ::serde::Deserialize<'de>>(
    slot: &mut ::std::option::Option<T>,
    name: &'static str,
    map: &mut A,
) -> ::std::result::Result<(), A::Error> {
    fill_with(slot, name, map, ::std::marker::PhantomData)
}

/// Reads an optional member that may not be `null` as its type, so
/// that `null` is an error, not absence.
#[doc(hidden)]
pub struct NotNull<T>(::std::marker::PhantomData<T>);

impl<T> NotNull<T> {
    #[doc(hidden)]
    #[inline(always)]
    pub fn new() -> Self {
        NotNull(::std::marker::PhantomData)
    }
}

impl<'de, T: ::serde::Deserialize<'de>> ::serde::de::DeserializeSeed<'de> for NotNull<T> {
    type Value = ::std::option::Option<T>;
    #[inline(always)]
    fn deserialize<D: ::serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> ::std::result::Result<Self::Value, D::Error> {
        T::deserialize(deserializer).map(Some)
    }
}

/// [`NotNull`] as a derived struct's `deserialize_with`.
#[doc(hidden)]
pub fn not_null<'de, D: ::serde::Deserializer<'de>, T: ::serde::Deserialize<'de>>(
    deserializer: D,
) -> ::std::result::Result<::std::option::Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// An optional any-JSON member's value: present whatever it is, `null` included.
#[doc(hidden)]
pub fn present(value: Value) -> ::std::result::Result<::std::option::Option<Value>, ::std::string::String> {
    Ok(Some(value))
}

/// A required member's value, or a "missing field" error.
#[doc(hidden)]
#[inline(always)]
pub fn required<T, E: ::serde::de::Error>(
    slot: ::std::option::Option<T>,
    name: &'static str,
) -> ::std::result::Result<T, E> {
    slot.ok_or_else(|| E::missing_field(name))
}

/// Reads a member with rules: its decode function applied to its
/// value, so that an error names the member.
#[doc(hidden)]
pub struct Rule<T>(pub fn(Value) -> ::std::result::Result<T, ::std::string::String>);

impl<'de, T> ::serde::de::DeserializeSeed<'de> for Rule<T> {
    type Value = T;
    fn deserialize<D: ::serde::Deserializer<'de>>(self, deserializer: D) -> ::std::result::Result<T, D::Error> {
        let value = <Value as ::serde::Deserialize>::deserialize(deserializer)?;
        (self.0)(value).map_err(::serde::de::Error::custom)
    }
}

/// Decodes a nested value; the error text carries its pointer. The
/// pointer is only tracked (a second pass) when the value fails.
#[doc(hidden)]
pub fn payload<T: DeserializeOwned>(value: Value) -> ::std::result::Result<T, ::std::string::String> {
    if let Ok(decoded) = T::deserialize(&value) {
        return Ok(decoded);
    }
    decode_nested(value).map_err(|error| {
        if error.path.is_empty() {
            error.message
        } else {
            error.to_string()
        }
    })
}

/// Decodes a present field's value under its rules: `Ok(None)` when a
/// rule discards it. (Members whose invalid values fall back read a
/// [`Buffer`] instead: [`lenient_field`].)
#[doc(hidden)]
pub fn field<T: DeserializeOwned>(
    value: Value,
    rules: Rules,
    check: fn(&T) -> ::std::result::Result<(), ::std::string::String>,
) -> ::std::result::Result<::std::option::Option<T>, ::std::string::String> {
    if value.is_null() && rules.on_null {
        return Ok(None);
    }
    match payload::<T>(value).and_then(|decoded| check(&decoded).map(|()| decoded)) {
        Ok(decoded) => Ok(Some(decoded)),
        Err(_) if rules.on_error => Ok(None),
        Err(message) => Err(message),
    }
}

/// A decoded optional nullable member: absent when a rule discarded
/// its value (`None`), else `null` or the value.
#[doc(hidden)]
pub fn nullable<T>(decoded: ::std::option::Option<::std::option::Option<T>>) -> crate::nullable::Nullable<T> {
    match decoded {
        None => crate::nullable::Nullable::Absent,
        Some(value) => crate::nullable::Nullable::from(value),
    }
}

/// The value a required field takes when a rule discards its value;
/// `None` when no value satisfies the field.
#[doc(hidden)]
pub fn fallback<T: DeserializeOwned>(
    literal: ::std::option::Option<&str>,
) -> ::std::result::Result<T, ::std::string::String> {
    match literal {
        Some(text) => ::serde_json::from_str(text).map_err(|error| error.to_string()),
        None => Err("invalid value and no fallback satisfies this field".to_owned()),
    }
}

/// The object of a tagged union value without its tag, the other
/// members in their order.
#[doc(hidden)]
pub fn untag(mut members: ::serde_json::Map<::std::string::String, Value>, property: &str) -> Value {
    members.retain(|key, _| key != property);
    Value::Object(members)
}

/// Whether `candidate` encodes back to exactly `value`.
#[doc(hidden)]
pub fn encodes_to<T: Serialize>(candidate: &T, value: &Value) -> bool {
    ::serde_json::to_value(candidate).is_ok_and(|encoded| &encoded == value)
}

/// Checks a string's length (in code points) and pattern.
#[doc(hidden)]
pub fn check_string(
    value: &str,
    min: ::std::option::Option<u64>,
    max: ::std::option::Option<u64>,
    pattern: ::std::option::Option<&str>,
) -> ::std::result::Result<(), ::std::string::String> {
    let length = value.chars().count() as u64;
    if min.is_some_and(|min| length < min) || max.is_some_and(|max| length > max) {
        return Err(format!("a string of length {length} is outside {min:?}..={max:?}"));
    }
    if let Some(pattern) = pattern {
        let matcher = ::regex::Regex::new(pattern).map_err(|error| error.to_string())?;
        if !matcher.is_match(value) {
            return Err(format!("{value:?} does not match {pattern}"));
        }
    }
    Ok(())
}

/// Checks a number against its bounds.
#[doc(hidden)]
pub fn check_number(
    value: f64,
    min: ::std::option::Option<f64>,
    max: ::std::option::Option<f64>,
) -> ::std::result::Result<(), ::std::string::String> {
    if min.is_some_and(|min| value < min) || max.is_some_and(|max| value > max) {
        return Err(format!("{value} is outside {min:?}..={max:?}"));
    }
    Ok(())
}

/// Checks an array's length.
#[doc(hidden)]
pub fn check_items(
    length: usize,
    min: ::std::option::Option<u64>,
    max: ::std::option::Option<u64>,
) -> ::std::result::Result<(), ::std::string::String> {
    let length = length as u64;
    if min.is_some_and(|min| length < min) || max.is_some_and(|max| length > max) {
        return Err(format!("{length} items is outside {min:?}..={max:?}"));
    }
    Ok(())
}

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
            fn visit_some<D: ::serde::Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> ::std::result::Result<Buffer<'de>, D::Error> {
                ::serde::Deserialize::deserialize(deserializer)
            }
            fn visit_bool<E>(self, value: bool) -> ::std::result::Result<Buffer<'de>, E> {
                Ok(Buffer::Bool(value))
            }
            fn visit_u64<E>(self, value: u64) -> ::std::result::Result<Buffer<'de>, E> {
                Ok(Buffer::Unsigned(value))
            }
            fn visit_i64<E>(self, value: i64) -> ::std::result::Result<Buffer<'de>, E> {
                Ok(if value < 0 {
                    Buffer::Signed(value)
                } else {
                    Buffer::Unsigned(value as u64)
                })
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
            fn visit_seq<A: ::serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> ::std::result::Result<Buffer<'de>, A::Error> {
                let mut items = ::std::vec::Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Buffer::Array(items))
            }
            fn visit_map<A: ::serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> ::std::result::Result<Buffer<'de>, A::Error> {
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

    fn deserialize_any<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::std::result::Result<V::Value, ::serde_json::Error> {
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

    fn deserialize_option<V: ::serde::de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> ::std::result::Result<V::Value, ::serde_json::Error> {
        match self {
            Buffer::Null => visitor.visit_none(),
            other => visitor.visit_some(other),
        }
    }

    fn deserialize_newtype_struct<V: ::serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> ::std::result::Result<V::Value, ::serde_json::Error> {
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
pub fn lenient_optional<T: DeserializeOwned>(
    value: Buffer<'_>,
) -> ::std::result::Result<::std::option::Option<T>, ::std::string::String> {
    lenient_field(
        value,
        Rules {
            on_error: true,
            on_null: false,
        },
        |_| Ok(()),
    )
}

/// An optional member that may be `null`, whose invalid value leaves it absent.
#[doc(hidden)]
pub fn lenient_optional_nullable<T: DeserializeOwned>(
    value: Buffer<'_>,
) -> ::std::result::Result<crate::nullable::Nullable<T>, ::std::string::String> {
    lenient_field::<::std::option::Option<T>>(
        value,
        Rules {
            on_error: true,
            on_null: false,
        },
        |_| Ok(()),
    )
    .map(nullable)
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
        Buffer::Array(values) => values
            .into_iter()
            .filter_map(|item| T::deserialize(item).ok())
            .collect(),
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
