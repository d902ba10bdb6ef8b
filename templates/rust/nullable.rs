//! `Nullable<T>`: a member that may be absent, `null`, or a value.

// Copied as text into every generated crate, comments kept; acp-generate
// compiles this file in its tests, under clippy.

/// A member that may be absent, present as `null`, or present with a value.
///
/// Members of this type are skipped when [`Nullable::Absent`] and
/// written as `null` when [`Nullable::Null`]. Read one with
/// [`Nullable::value`]; build one from a value or an `Option` (`None`
/// is `null`) with `From`.
#[derive(
    ::std::fmt::Debug,
    ::std::clone::Clone,
    ::std::marker::Copy,
    ::std::cmp::PartialEq,
    ::std::cmp::Eq,
    ::std::hash::Hash,
    ::std::cmp::PartialOrd,
    ::std::cmp::Ord,
    ::std::default::Default,
)]
pub enum Nullable<T> {
    /// The member is not there.
    #[default]
    Absent,
    /// The member is there and `null`.
    Null,
    /// The member is there with a value.
    Value(T),
}
impl<T> Nullable<T> {
    /// Whether the member is not there.
    pub const fn is_absent(&self) -> bool {
        matches!(self, Self::Absent)
    }
    /// Whether the member is there and `null`.
    pub const fn is_null(&self) -> bool {
        matches!(self, Self::Null)
    }
    /// Whether the member has a value.
    pub const fn is_value(&self) -> bool {
        matches!(self, Self::Value(_))
    }
    /// The value, if there is one (absent and `null` both give `None`).
    pub const fn value(&self) -> ::std::option::Option<&T> {
        match self {
            Self::Value(value) => ::std::option::Option::Some(value),
            Self::Absent | Self::Null => ::std::option::Option::None,
        }
    }
    /// The value, mutably, if there is one.
    pub fn value_mut(&mut self) -> ::std::option::Option<&mut T> {
        match self {
            Self::Value(value) => ::std::option::Option::Some(value),
            Self::Absent | Self::Null => ::std::option::Option::None,
        }
    }
    /// The value, if there is one, taking it out.
    pub fn into_value(self) -> ::std::option::Option<T> {
        match self {
            Self::Value(value) => ::std::option::Option::Some(value),
            Self::Absent | Self::Null => ::std::option::Option::None,
        }
    }
    /// The value dereferenced (`&str` for a `String`), if there is one.
    pub fn as_deref(&self) -> ::std::option::Option<&T::Target>
    where
        T: ::std::ops::Deref,
    {
        self.value().map(|value| &**value)
    }
    /// A `Nullable` of a reference to the value.
    pub const fn as_ref(&self) -> Nullable<&T> {
        match self {
            Self::Absent => Nullable::Absent,
            Self::Null => Nullable::Null,
            Self::Value(value) => Nullable::Value(value),
        }
    }
    /// Applies `function` to the value, keeping absent and `null`.
    pub fn map<U>(self, function: impl ::std::ops::FnOnce(T) -> U) -> Nullable<U> {
        match self {
            Self::Absent => Nullable::Absent,
            Self::Null => Nullable::Null,
            Self::Value(value) => Nullable::Value(function(value)),
        }
    }
}
impl<T> ::std::convert::From<T> for Nullable<T> {
    fn from(value: T) -> Self {
        Self::Value(value)
    }
}
impl<T> ::std::convert::From<::std::option::Option<T>> for Nullable<T> {
    /// `None` is `null`.
    fn from(value: ::std::option::Option<T>) -> Self {
        match value {
            ::std::option::Option::Some(value) => Self::Value(value),
            ::std::option::Option::None => Self::Null,
        }
    }
}
impl<T: ::serde::Serialize> ::serde::Serialize for Nullable<T> {
    fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
        match self {
            Self::Value(value) => value.serialize(serializer),
            Self::Absent | Self::Null => serializer.serialize_none(),
        }
    }
}
impl<'de, T: ::serde::Deserialize<'de>> ::serde::Deserialize<'de> for Nullable<T> {
    /// A present member: `null` or a value (absence is the member's `default`).
    fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
        <::std::option::Option<T> as ::serde::Deserialize>::deserialize(deserializer).map(Self::from)
    }
}
