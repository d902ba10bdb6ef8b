//! Every protocol message of an IR, decided once: each method's request,
//! its response and its notification, with the payload type, the side that
//! handles it (`x-side`), the ways it travels between agent and client, the
//! endpoints whose handler interfaces hold it and the handler's name
//! ([`naming::handler`]). The trace checker, the review and every emitter
//! read this list instead of working out directions and handlers again; an
//! emitter takes an endpoint's handlers from [`Ir::handled_by`], and each
//! message keeps its [`Method`] for what the emitter says of it (gates,
//! why a side may leave it out).
//!
//! A proxy's method (`x-side: proxy`) is handled by the proxy alone, and
//! travels both ways: a proxy sits between two neighbours, the agent to the
//! one before it and the client to the one after it, and `proxy/successor`
//! goes to it from either (its conductor delivers what the successor sent,
//! and the proxy forwards through it). The schema marks no sending side, so
//! neither way is refused.

use serde::Serialize;

pub use crate::ir::MessageKind;
use crate::ir::{Direction, Ir, Method, Side};
use crate::naming;

/// One protocol message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message<'a> {
    /// The JSON-RPC method name.
    pub method: &'a str,
    /// The method the message belongs to.
    #[serde(skip)]
    pub definition: &'a Method,
    pub kind: MessageKind,
    /// The `$defs` name of the params (a request, a notification) or of the
    /// result (a response).
    pub payload: &'a str,
    /// The side that handles the method (`x-side`); for a response, the
    /// side that handled its request and sends it.
    pub side: Side,
    /// The ways the message travels between agent and client.
    pub directions: Vec<Direction>,
    /// The endpoints whose handler interfaces hold the method (those that
    /// handle the request, for a response).
    pub handlers: Vec<Side>,
    /// The handler's name in canonical words ([`naming::handler`]); each
    /// language's identifier function makes it a name.
    pub handler: String,
}

impl<'a> Message<'a> {
    /// The `$defs` name of a request's result (its response's payload);
    /// `None` for a response or a notification.
    pub fn result(&self) -> Option<&'a str> {
        match self.kind {
            MessageKind::Request => self.definition.request.as_ref().map(|request| request.result.as_str()),
            MessageKind::Response | MessageKind::Notification => None,
        }
    }

    /// Whether the endpoint `endpoint` handles this message (for a
    /// response: handled its request).
    pub fn handled_by(&self, endpoint: Side) -> bool {
        self.handlers.contains(&endpoint)
    }

    /// Whether the message travels `direction`.
    pub fn travels(&self, direction: Direction) -> bool {
        self.directions.contains(&direction)
    }
}

/// The ways a request or notification travels to reach the side that
/// handles it: towards that side, and both ways for a method every side,
/// either side or a proxy handles (see the module documentation).
fn towards(side: Side) -> Vec<Direction> {
    match side {
        Side::Agent => vec![Direction::ClientToAgent],
        Side::Client => vec![Direction::AgentToClient],
        Side::Proxy | Side::Protocol | Side::Both => Direction::BOTH.to_vec(),
    }
}

/// The endpoints whose interfaces handle a method of `side`.
fn handlers(side: Side) -> Vec<Side> {
    Side::ENDPOINTS
        .into_iter()
        .filter(|endpoint| side.handled_by(*endpoint))
        .collect()
}

/// The messages of one method: its request and response, then its
/// notification.
pub fn of_method(method: &Method) -> Vec<Message<'_>> {
    let mut found = Vec::new();
    if let Some(request) = &method.request {
        let handler = naming::handler(method, MessageKind::Request);
        found.push(Message {
            method: &method.name,
            definition: method,
            kind: MessageKind::Request,
            payload: &request.params,
            side: request.side,
            directions: towards(request.side),
            handlers: handlers(request.side),
            handler: handler.clone(),
        });
        found.push(Message {
            method: &method.name,
            definition: method,
            kind: MessageKind::Response,
            payload: &request.result,
            side: request.side,
            directions: towards(request.side).into_iter().map(Direction::reverse).collect(),
            handlers: handlers(request.side),
            handler,
        });
    }
    if let Some(notification) = &method.notification {
        found.push(Message {
            method: &method.name,
            definition: method,
            kind: MessageKind::Notification,
            payload: &notification.params,
            side: notification.side,
            directions: towards(notification.side),
            handlers: handlers(notification.side),
            handler: naming::handler(method, MessageKind::Notification),
        });
    }
    found
}

impl Ir {
    /// Every protocol message, in method order; for each method its
    /// request, its response and its notification.
    pub fn messages(&self) -> Vec<Message<'_>> {
        self.methods.values().flat_map(of_method).collect()
    }

    /// The requests and notifications the handler interface of `endpoint`
    /// holds, in method order; for each method its request, then its
    /// notification.
    pub fn handled_by(&self, endpoint: Side) -> Vec<Message<'_>> {
        self.messages()
            .into_iter()
            .filter(|message| message.kind != MessageKind::Response && message.handled_by(endpoint))
            .collect()
    }

    /// The message of `method` of `kind`, when the schema has it.
    pub fn message(&self, method: &str, kind: MessageKind) -> Option<Message<'_>> {
        let method = self.methods.get(method)?;
        of_method(method).into_iter().find(|message| message.kind == kind)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::ir::{NotificationMethod, RequestMethod};

    fn method(name: &str, request: Option<Side>, notification: Option<Side>) -> Method {
        Method {
            name: name.to_owned(),
            request: request.map(|side| RequestMethod {
                side,
                params: format!("{name} params"),
                result: format!("{name} result"),
            }),
            notification: notification.map(|side| NotificationMethod {
                side,
                params: format!("{name} notification"),
            }),
            gate: None,
            session_gate: None,
            not_negotiated: None,
            unstable: false,
            acted_on: false,
        }
    }

    fn ir(methods: Vec<Method>) -> Ir {
        Ir {
            methods: methods
                .into_iter()
                .map(|method| (method.name.clone(), method))
                .collect::<BTreeMap<_, _>>(),
            ..Ir::default()
        }
    }

    #[test]
    fn a_request_goes_towards_its_handler_and_its_response_back() {
        let ir = ir(vec![method("session/prompt", Some(Side::Agent), None)]);
        let messages = ir.messages();
        assert_eq!(messages.len(), 2);
        let (request, response) = (&messages[0], &messages[1]);
        assert_eq!(request.kind, MessageKind::Request);
        assert_eq!(request.payload, "session/prompt params");
        assert_eq!(request.directions, [Direction::ClientToAgent]);
        assert_eq!(request.handlers, [Side::Agent]);
        assert_eq!(request.handler, "session/prompt");
        assert_eq!(response.kind, MessageKind::Response);
        assert_eq!(response.payload, "session/prompt result");
        assert_eq!(response.directions, [Direction::AgentToClient]);
    }

    /// An endpoint's handlers: its own requests and notifications and the
    /// protocol-level ones, in method order and without responses; a
    /// request keeps its result and its method.
    #[test]
    fn an_endpoint_handles_its_own_and_the_protocol_level_messages() {
        let ir = ir(vec![
            method("$/cancel_request", None, Some(Side::Protocol)),
            method("fs/read", Some(Side::Client), None),
            method("session/prompt", Some(Side::Agent), Some(Side::Client)),
        ]);
        let handled = ir.handled_by(Side::Agent);
        let found: Vec<(&str, MessageKind)> = handled.iter().map(|message| (message.method, message.kind)).collect();
        assert_eq!(
            found,
            [
                ("$/cancel_request", MessageKind::Notification),
                ("session/prompt", MessageKind::Request),
            ]
        );
        assert_eq!(handled[0].result(), None);
        assert_eq!(handled[1].result(), Some("session/prompt result"));
        assert_eq!(handled[1].definition.name, "session/prompt");
        let client: Vec<&str> = ir
            .handled_by(Side::Client)
            .iter()
            .map(|message| message.payload)
            .collect();
        assert_eq!(
            client,
            [
                "$/cancel_request notification",
                "fs/read params",
                "session/prompt notification"
            ]
        );
    }

    #[test]
    fn protocol_methods_go_both_ways_and_every_endpoint_handles_them() {
        let ir = ir(vec![method("$/cancel_request", None, Some(Side::Protocol))]);
        let notification = ir
            .message("$/cancel_request", MessageKind::Notification)
            .expect("the notification");
        assert_eq!(notification.directions, Direction::BOTH);
        assert_eq!(notification.handlers, Side::ENDPOINTS);
    }

    /// A proxy's methods: the proxy alone handles them, from either side,
    /// and a notification named like a request the proxy handles gets a
    /// handler name of its own.
    #[test]
    fn proxy_methods_are_the_proxys_and_travel_both_ways() {
        let ir = ir(vec![
            method("proxy/initialize", Some(Side::Proxy), None),
            method("proxy/successor", Some(Side::Proxy), Some(Side::Proxy)),
        ]);
        for message in ir.messages() {
            assert_eq!(message.side, Side::Proxy);
            assert_eq!(message.handlers, [Side::Proxy], "{}", message.method);
            assert!(!message.handled_by(Side::Agent) && !message.handled_by(Side::Client));
            assert!(
                Direction::BOTH.into_iter().all(|direction| message.travels(direction)),
                "{}",
                message.method
            );
        }
        let notification = ir
            .message("proxy/successor", MessageKind::Notification)
            .expect("the notification");
        assert_eq!(notification.handler, "proxy/successor notification");
        assert_eq!(
            naming::rust_handler(&notification.handler),
            "proxy_successor_notification"
        );
        assert_eq!(
            ir.message("proxy/successor", MessageKind::Request)
                .expect("the request")
                .handler,
            "proxy/successor"
        );
    }

    /// The initialize method is found by its params' `$defs` name, not by
    /// its method name; `proxy/initialize` (params of their own) is not it.
    #[test]
    fn the_initialize_method_is_the_request_whose_params_are_initialize_request() {
        use crate::ir::{TypeDef, TypeExpr, TypeKind};
        let alias = |name: &str, definition: &str| TypeDef {
            name: name.to_owned(),
            pointer: format!("/$defs/{definition}"),
            definition: Some(definition.to_owned()),
            description: None,
            kind: TypeKind::Alias { target: TypeExpr::Any },
        };
        let mut opening = method("open", Some(Side::Agent), None);
        let mut proxy = method("proxy/initialize", Some(Side::Proxy), None);
        if let Some(request) = opening.request.as_mut() {
            request.params = "Opening".to_owned();
        }
        if let Some(request) = proxy.request.as_mut() {
            request.params = "ProxyOpening".to_owned();
        }
        let mut ir = ir(vec![proxy, opening]);
        ir.types
            .insert("Opening".to_owned(), alias("Opening", crate::ir::INITIALIZE_PARAMS));
        ir.types.insert(
            "ProxyOpening".to_owned(),
            alias("ProxyOpening", "InitializeProxyRequest"),
        );
        assert_eq!(ir.initialize().map(|method| method.name.as_str()), Some("open"));
        ir.types.remove("Opening");
        assert_eq!(ir.initialize(), None);
    }

    #[test]
    fn a_notification_beside_a_request_of_another_side_keeps_the_plain_name() {
        let ir = ir(vec![method("mcp/message", Some(Side::Client), Some(Side::Agent))]);
        let notification = ir
            .message("mcp/message", MessageKind::Notification)
            .expect("the notification");
        assert_eq!(notification.handler, "mcp/message");
        assert_eq!(notification.directions, [Direction::ClientToAgent]);
        // In a namespace both sides' interfaces share, it is told apart.
        let method = &ir.methods["mcp/message"];
        assert_eq!(
            naming::handler_interface(method, MessageKind::Notification),
            "mcp/message notification"
        );
        assert_eq!(naming::handler_interface(method, MessageKind::Request), "mcp/message");
    }
}
