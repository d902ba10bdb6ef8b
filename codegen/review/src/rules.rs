//! The rule set of a review: one stable id per kind of change, and what it
//! means for each reader. ACP's own rules decide the levels: open enums and
//! extensible unions keep unknown values, a capability gate protects peers
//! that never advertised it, and a required member binds every sender.

use serde::Serialize;

/// How serious a change is, for one reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// No message tells the two schemas apart here: a change of form only.
    Info,
    Safe,
    Warning,
    Breaking,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Info => "info",
            Level::Safe => "safe",
            Level::Warning => "warning",
            Level::Breaking => "breaking",
        }
    }
}

macro_rules! rules {
    ($($variant:ident => $id:literal, $old:ident, $new:ident, $meaning:literal;)*) => {
        /// One kind of change, with a stable id.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule {
            $($variant,)*
        }

        impl Rule {
            /// Every rule, in report order.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The stable id (`FIELD_REQUIRED_ADDED`).
            pub fn id(self) -> &'static str {
                match self {
                    $(Rule::$variant => $id,)*
                }
            }

            /// The level for a peer built on the base reading what a peer
            /// built on the head sends.
            pub fn old_reader(self) -> Level {
                match self {
                    $(Rule::$variant => Level::$old,)*
                }
            }

            /// The level for a peer built on the head reading what a peer
            /// built on the base sends (do old senders stay valid).
            pub fn new_reader(self) -> Level {
                match self {
                    $(Rule::$variant => Level::$new,)*
                }
            }

            /// Why the rule has its levels, in one sentence.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(Rule::$variant => $meaning,)*
                }
            }
        }
    };
}

rules! {
    OverlayConflict => "OVERLAY_CONFLICT", Breaking, Breaking, "an RFD overlay conflicts with what the base already defines; the head cannot include it";
    TypeAdded => "TYPE_ADDED", Safe, Safe, "a new type is only sent where a changed member or variant carries it";
    TypeRemoved => "TYPE_REMOVED", Warning, Warning, "the bindings lose a public type; the wire changes only where a member or variant that carried it changes";
    TypeRenamed => "TYPE_RENAMED", Safe, Safe, "type names are not on the wire; the bindings rename a public type";
    TypeKindChanged => "TYPE_KIND_CHANGED", Breaking, Breaking, "a type became another kind of JSON value (object, enum, union, alias)";
    FieldOptionalAdded => "FIELD_OPTIONAL_ADDED", Safe, Safe, "readers accept unknown members, and old senders may omit it";
    FieldRequiredAdded => "FIELD_REQUIRED_ADDED", Safe, Breaking, "old senders never send it, so new readers reject their messages";
    FieldOptionalRemoved => "FIELD_OPTIONAL_REMOVED", Safe, Warning, "old readers may miss it; new readers no longer give it a typed value";
    FieldRequiredRemoved => "FIELD_REQUIRED_REMOVED", Breaking, Warning, "old readers require a member new senders no longer send";
    FieldNowRequired => "FIELD_NOW_REQUIRED", Safe, Breaking, "old senders may omit a member new readers require";
    FieldNowOptional => "FIELD_NOW_OPTIONAL", Breaking, Safe, "new senders may omit a member old readers require";
    FieldNowNullable => "FIELD_NOW_NULLABLE", Breaking, Safe, "new senders may send `null` where old readers expect a value";
    FieldNoLongerNullable => "FIELD_NO_LONGER_NULLABLE", Safe, Breaking, "old senders may send `null` where new readers expect a value";
    FieldTypeChanged => "FIELD_TYPE_CHANGED", Breaking, Breaking, "a member's value has another type";
    FieldDefaultChanged => "FIELD_DEFAULT_CHANGED", Warning, Warning, "an absent member means something else to new readers than to old ones";
    FieldDecodeRuleChanged => "FIELD_DECODE_RULE_CHANGED", Warning, Warning, "an `x-deserialize-*` rule changed: the same bytes decode differently";
    FieldConstraintChanged => "FIELD_CONSTRAINT_CHANGED", Warning, Warning, "a length, range, pattern or item count changed: some values valid for one side fail for the other";
    ObjectClosed => "OBJECT_CLOSED", Safe, Breaking, "new readers reject members they do not name, which old senders may send";
    ObjectOpened => "OBJECT_OPENED", Breaking, Safe, "new senders may add members old readers reject";
    EnumValueAddedOpen => "ENUM_VALUE_ADDED_OPEN", Safe, Safe, "old readers keep an unknown value of an open enum";
    EnumValueAddedClosed => "ENUM_VALUE_ADDED_CLOSED", Breaking, Safe, "old readers reject a value their closed enum does not list";
    EnumValueRemovedOpen => "ENUM_VALUE_REMOVED_OPEN", Safe, Warning, "new readers keep the value as unknown";
    EnumValueRemovedClosed => "ENUM_VALUE_REMOVED_CLOSED", Safe, Breaking, "new readers reject a value old senders send";
    EnumClosed => "ENUM_CLOSED", Safe, Breaking, "new readers reject values outside the list, which old senders may send";
    EnumOpened => "ENUM_OPENED", Breaking, Safe, "new senders may send values old readers reject";
    VariantAddedExtensible => "VARIANT_ADDED_EXTENSIBLE", Safe, Safe, "old readers keep an unknown variant of an extensible union";
    VariantAddedGated => "VARIANT_ADDED_GATED", Safe, Safe, "a capability gates the variant, and old peers never advertise it";
    VariantAddedClosed => "VARIANT_ADDED_CLOSED", Breaking, Safe, "old readers reject a variant their closed union does not list";
    VariantRemovedExtensible => "VARIANT_REMOVED_EXTENSIBLE", Safe, Warning, "new readers keep the variant as unknown";
    VariantRemovedClosed => "VARIANT_REMOVED_CLOSED", Safe, Breaking, "new readers reject a variant old senders send";
    UnionClosed => "UNION_CLOSED", Safe, Breaking, "new readers reject unknown variants, which old senders may send";
    UnionOpened => "UNION_OPENED", Breaking, Safe, "new senders may send variants old readers reject";
    VariantGateAdded => "VARIANT_GATE_ADDED", Safe, Warning, "old senders send the variant without checking the capability";
    VariantGateRemoved => "VARIANT_GATE_REMOVED", Warning, Safe, "new senders send the variant to old readers that never advertised it (their schema accepts it: no message breaks them)";
    MethodAddedGated => "METHOD_ADDED_GATED", Safe, Safe, "callers only call it once the handler advertised the capability";
    MethodAdded => "METHOD_ADDED", Warning, Safe, "old handlers answer method-not-found to new callers";
    MethodRemoved => "METHOD_REMOVED", Safe, Breaking, "old callers call a method new handlers do not have";
    MethodRenamed => "METHOD_RENAMED", Breaking, Breaking, "the method name is on the wire: old and new peers no longer understand each other";
    MethodSideChanged => "METHOD_SIDE_CHANGED", Breaking, Breaking, "another side handles the method";
    MethodKindChanged => "METHOD_KIND_CHANGED", Breaking, Breaking, "a request became a notification or the other way round";
    MethodPayloadChanged => "METHOD_PAYLOAD_CHANGED", Breaking, Breaking, "the method's params or result are another type";
    MethodGateAdded => "METHOD_GATE_ADDED", Safe, Warning, "old callers call it without checking the capability";
    MethodGateRemoved => "METHOD_GATE_REMOVED", Warning, Safe, "new callers call it on old handlers that never advertised it";
    GateChanged => "GATE_CHANGED", Warning, Warning, "another capability gates it: peers check the wrong flag";
}

impl Rule {
    /// The worse of the two readers' levels.
    pub fn level(self) -> Level {
        self.old_reader().max(self.new_reader())
    }
}
