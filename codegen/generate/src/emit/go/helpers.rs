//! `helpers.go`: the [`acp_ir::rfd`] model's members and tags printed into
//! the RFD helpers: `NextStep` and `NextStepFor` (RFD session-status), and
//! the typed `TurnTracker` over the machine of `templates/go/turns.go`
//! (RFD turn-complete; protocol v2's `idle` state update), whose API
//! follows the schema's: a stop reason in v1's response, an acceptance in
//! v2's. The session-ready gate needs nothing of the schema
//! (`templates/go/gate.go`).

use askama::Template;

use super::exprs::go_string;
use acp_ir::naming;
use acp_ir::rfd::Helpers;

#[derive(Template)]
#[template(path = "go/helpers.go.tmpl", escape = "none")]
pub(super) struct HelpersFile {
    turns: Option<TurnsView>,
    status: Option<StatusView>,
}

pub(super) struct TurnsView {
    notification: String,
    encode_notification: String,
    request_type: String,
    encode_request: String,
    decode_request: String,
    /// v1's stop reason type and its encoder; absent in v2.
    stop_reason: Option<(String, String)>,
    /// Member names and tags as Go string literals, the tag lists as `[]string` literals.
    session: String,
    update: String,
    tag_property: String,
    output: String,
    replies: String,
    complete: Option<CompleteView>,
    lifecycle: Option<LifecycleView>,
}

struct CompleteView {
    tag: String,
    request: String,
    stop_reason: String,
}

struct LifecycleView {
    tag: String,
    state: String,
    idle: String,
}

struct StatusView {
    type_name: String,
    live: String,
}

fn strings<'a>(items: impl Iterator<Item = &'a str>) -> String {
    format!("[]string{{{}}}", items.map(go_string).collect::<Vec<_>>().join(", "))
}

/// The template's view of `model`; the status helper needs the
/// negotiation (`negotiated`).
pub(super) fn view(model: &Helpers, negotiated: bool) -> HelpersFile {
    let turns = model.turns.as_ref().map(|turns| {
        let notification = naming::go_type(&turns.notification);
        let request_type = naming::go_type(&turns.request_type);
        let [decode_request, encode_request] = naming::go_codec_functions(&request_type);
        TurnsView {
            encode_notification: naming::go_codec_functions(&notification)[1].clone(),
            notification,
            encode_request,
            decode_request,
            request_type,
            stop_reason: turns.stop_reason_type.as_deref().map(|name| {
                let stop_reason = naming::go_type(name);
                let [_, encode] = naming::go_codec_functions(&stop_reason);
                (stop_reason, encode)
            }),
            session: go_string(&turns.session.wire),
            update: go_string(&turns.update.wire),
            tag_property: go_string(&turns.tag_property),
            output: strings(turns.output.iter().map(|variant| variant.tag.as_str())),
            replies: strings(turns.replies.iter().map(|variant| variant.tag.as_str())),
            complete: turns.complete.as_ref().map(|complete| CompleteView {
                tag: go_string(&complete.variant.tag),
                request: go_string(&complete.request.wire),
                stop_reason: go_string(&complete.stop_reason.wire),
            }),
            lifecycle: turns.lifecycle.as_ref().map(|lifecycle| LifecycleView {
                tag: go_string(&lifecycle.variant.tag),
                state: go_string(&lifecycle.tag_property),
                idle: go_string(&lifecycle.idle.tag),
            }),
        }
    });
    let status = model.status.as_ref().filter(|_| negotiated).map(|status| StatusView {
        type_name: naming::go_type(&status.type_name),
        live: go_string(acp_ir::rfd::LIVE),
    });
    HelpersFile { turns, status }
}
