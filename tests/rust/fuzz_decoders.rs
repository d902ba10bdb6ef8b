//! Property-based fuzzing of the generated Rust decoders (proptest, stable
//! toolchain): arbitrary bytes, arbitrary JSON built from the vocabulary of
//! the shared vectors (`ACP_VECTORS`), and structured mutations of the valid
//! vectors go to `serde_json::from_slice::<T>` for every top-level message
//! type (each method's params and result, and the JSON-RPC envelopes) and to
//! the by-method decoders. Nothing may panic, and whatever decodes must
//! re-encode to bytes that name each object member once and decode to an
//! equal value that encodes the same.
//!
//! `ACP_FUZZ_CASES` sets the number of cases per property (256 unless set:
//! the short budget `cargo xtask test` runs); `ACP_FUZZ_SEED` picks the seed
//! (0 unless set, so that a run is reproducible).

use std::collections::BTreeSet;
use std::path::PathBuf;

use acp_bindings::methods::{self, agent, client};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::Value;

/// Decodes bytes as one type; on success checks the round trip and says so.
type Target = (&'static str, fn(&[u8]) -> Result<bool, String>);

/// Accepts any JSON whose objects name each member once: what an encoding
/// must be (a member written twice reads back as whichever a reader keeps).
struct NoDuplicates;

impl<'de> serde::Deserialize<'de> for NoDuplicates {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NoDuplicates)
    }
}

impl<'de> serde::de::Visitor<'de> for NoDuplicates {
    type Value = NoDuplicates;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("JSON")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_unit<E>(self) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut items: A) -> Result<Self, A::Error> {
        while items.next_element::<NoDuplicates>()?.is_some() {}
        Ok(self)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut members: A) -> Result<Self, A::Error> {
        let mut seen = BTreeSet::new();
        while let Some(key) = members.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!("the member {key:?} is written twice")));
            }
            members.next_value::<NoDuplicates>()?;
        }
        Ok(self)
    }
}

/// `from_slice::<T>`: `Ok(false)` when it refuses the bytes, `Ok(true)` when
/// it decodes them and the value survives encoding and decoding again,
/// `Err` naming what did not survive. An encoding must name each member of
/// an object once.
fn decode_as<T>(bytes: &[u8]) -> Result<bool, String>
where
    T: serde::de::DeserializeOwned + serde::Serialize + PartialEq + std::fmt::Debug,
{
    let Ok(decoded) = serde_json::from_slice::<T>(bytes) else {
        return Ok(false);
    };
    let encoded = serde_json::to_vec(&decoded).map_err(|error| format!("decoded but does not encode: {error}"))?;
    serde_json::from_slice::<NoDuplicates>(&encoded)
        .map_err(|error| format!("encodes as {}: {error}", String::from_utf8_lossy(&encoded)))?;
    let again: T = serde_json::from_slice(&encoded).map_err(|error| {
        format!(
            "its encoding {} does not decode: {error}",
            String::from_utf8_lossy(&encoded)
        )
    })?;
    if again != decoded {
        return Err(format!(
            "{} decodes to another value: {decoded:?} then {again:?}",
            String::from_utf8_lossy(&encoded)
        ));
    }
    let twice = serde_json::to_vec(&again).map_err(|error| error.to_string())?;
    if twice != encoded {
        return Err(format!(
            "encodes as {} then as {}",
            String::from_utf8_lossy(&encoded),
            String::from_utf8_lossy(&twice)
        ));
    }
    Ok(true)
}

macro_rules! targets {
    ($($name:ident),* $(,)?) => {
        const TARGETS: &[Target] = &[$((stringify!($name), decode_as::<acp_bindings::types::$name>)),*];
    };
}

targets!(
    AgentRequest,
    AgentResponse,
    AgentNotification,
    ClientRequest,
    ClientResponse,
    ClientNotification,
    AuthenticateRequest,
    AuthenticateResponse,
    CancelNotification,
    CancelRequestNotification,
    CloseSessionRequest,
    CloseSessionResponse,
    CompleteElicitationNotification,
    CreateElicitationRequest,
    CreateElicitationResponse,
    CreateTerminalRequest,
    CreateTerminalResponse,
    DeleteSessionRequest,
    DeleteSessionResponse,
    ExtNotification,
    ExtRequest,
    ExtResponse,
    InitializeRequest,
    InitializeResponse,
    KillTerminalRequest,
    KillTerminalResponse,
    ListSessionsRequest,
    ListSessionsResponse,
    LoadSessionRequest,
    LoadSessionResponse,
    LogoutRequest,
    LogoutResponse,
    NewSessionRequest,
    NewSessionResponse,
    PromptRequest,
    PromptResponse,
    ReadTextFileRequest,
    ReadTextFileResponse,
    ReleaseTerminalRequest,
    ReleaseTerminalResponse,
    RequestPermissionRequest,
    RequestPermissionResponse,
    ResumeSessionRequest,
    ResumeSessionResponse,
    SessionNotification,
    SessionReadyNotification,
    SessionStatusRequest,
    SessionStatusResponse,
    SetSessionConfigOptionRequest,
    SetSessionConfigOptionResponse,
    SetSessionModeRequest,
    SetSessionModeResponse,
    TerminalOutputRequest,
    TerminalOutputResponse,
    WaitForTerminalExitRequest,
    WaitForTerminalExitResponse,
    WriteTextFileRequest,
    WriteTextFileResponse,
);

/// Every method name the crate knows, and an extension and an unknown one.
const METHODS: &[&str] = &[
    methods::CANCEL_REQUEST,
    methods::AUTHENTICATE,
    methods::ELICITATION_COMPLETE,
    methods::ELICITATION_CREATE,
    methods::FS_READ_TEXT_FILE,
    methods::FS_WRITE_TEXT_FILE,
    methods::INITIALIZE,
    methods::LOGOUT,
    methods::SESSION_CANCEL,
    methods::SESSION_CLOSE,
    methods::SESSION_DELETE,
    methods::SESSION_LIST,
    methods::SESSION_LOAD,
    methods::SESSION_NEW,
    methods::SESSION_PROMPT,
    methods::SESSION_READY,
    methods::SESSION_REQUEST_PERMISSION,
    methods::SESSION_RESUME,
    methods::SESSION_SET_CONFIG_OPTION,
    methods::SESSION_SET_MODE,
    methods::SESSION_STATUS,
    methods::SESSION_UPDATE,
    methods::TERMINAL_CREATE,
    methods::TERMINAL_KILL,
    methods::TERMINAL_OUTPUT,
    methods::TERMINAL_RELEASE,
    methods::TERMINAL_WAIT_FOR_EXIT,
    "_example/ext",
    "no/such_method",
];

/// Decodes `params` as every side's request and notification of `method`
/// (and as the result of a request): a call that decodes must encode back to
/// params that decode to an equal call.
fn by_method(method: &str, params: &Value) -> Result<(), String> {
    macro_rules! round {
        ($decode:path, $encode:ident) => {
            if let Ok(call) = $decode(method, params.clone()) {
                let encoded = call
                    .$encode()
                    .map_err(|error| format!("{method}: decoded but does not encode: {error}"))?;
                let again = $decode(method, encoded.clone())
                    .map_err(|error| format!("{method}: {encoded} does not decode: {error:?}"))?;
                if again != call {
                    return Err(format!("{method}: {encoded} decodes to another call"));
                }
            }
        };
    }
    round!(agent::Request::decode, params);
    round!(agent::Notification::decode, params);
    round!(agent::Response::decode, result);
    round!(client::Request::decode, params);
    round!(client::Notification::decode, params);
    round!(client::Response::decode, result);
    Ok(())
}

/// The valid vectors of every target, by target, and every member name and
/// string in them (the vocabulary arbitrary JSON is built from).
struct Corpus {
    valid: Vec<(usize, Value)>,
    words: Vec<String>,
}

fn corpus() -> Corpus {
    let folder = PathBuf::from(std::env::var("ACP_VECTORS").expect("ACP_VECTORS names the vectors folder"));
    let mut valid = Vec::new();
    let mut words = BTreeSet::new();
    for (index, (name, _)) in TARGETS.iter().enumerate() {
        let path = folder.join(format!("{name}.json"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        let vectors: Value = serde_json::from_str(&text).expect("vectors parse");
        for vector in vectors["valid"].as_array().into_iter().flatten() {
            collect_words(&vector["value"], &mut words);
            valid.push((index, vector["value"].clone()));
        }
    }
    assert!(
        valid.len() > TARGETS.len(),
        "too few valid vectors in {}",
        folder.display()
    );
    Corpus {
        valid,
        words: words.into_iter().collect(),
    }
}

fn collect_words(value: &Value, into: &mut BTreeSet<String>) {
    match value {
        Value::String(text) => {
            into.insert(text.clone());
        }
        Value::Array(items) => items.iter().for_each(|item| collect_words(item, into)),
        Value::Object(members) => members.iter().for_each(|(key, member)| {
            into.insert(key.clone());
            collect_words(member, into);
        }),
        _ => {}
    }
}

/// Arbitrary JSON: scalars at the edges of each kind, words of the vectors as
/// strings and member names, nested a few levels.
fn json(words: Vec<String>) -> impl Strategy<Value = Value> {
    let word = proptest::sample::select(words);
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        prop_oneof![
            Just(0.5f64),
            Just(-0.0),
            Just(1e308),
            Just(f64::MIN_POSITIVE),
            any::<f64>()
        ]
        .prop_map(Value::from),
        prop_oneof![Just(0u64), Just(65535), Just(65536), Just(4294967296), Just(u64::MAX)].prop_map(Value::from),
        word.clone().prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 64, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((word.clone(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// One change to a value: at the `at`-th node in document order (modulo
/// their number), drop it, null it, replace it, or wrap it.
#[derive(Debug, Clone)]
enum Mutation {
    Remove(usize),
    Null(usize),
    Replace(usize, Value),
    Wrap(usize),
}

fn nodes(value: &mut Value) -> Vec<&mut Value> {
    let mut found = Vec::new();
    let mut pending = vec![value];
    while let Some(current) = pending.pop() {
        let leaf = match &*current {
            Value::Array(items) => items.is_empty(),
            Value::Object(members) => members.is_empty(),
            _ => true,
        };
        // A node with children is not kept: its children are mutated instead.
        if leaf {
            found.push(current);
            continue;
        }
        match current {
            Value::Array(items) => pending.extend(items.iter_mut().rev()),
            Value::Object(members) => pending.extend(members.values_mut().rev()),
            _ => {}
        }
    }
    found
}

fn mutate(mut value: Value, mutations: &[Mutation]) -> Value {
    for mutation in mutations {
        let mut leaves = nodes(&mut value);
        if leaves.is_empty() {
            break;
        }
        let count = leaves.len();
        match mutation {
            Mutation::Remove(at) | Mutation::Null(at) => *leaves.swap_remove(at % count) = Value::Null,
            Mutation::Replace(at, with) => *leaves.swap_remove(at % count) = with.clone(),
            Mutation::Wrap(at) => {
                let leaf = leaves.swap_remove(at % count);
                *leaf = Value::Array(vec![leaf.take()]);
            }
        }
        if let Mutation::Remove(_) = mutation {
            drop_nulls(&mut value);
        }
    }
    value
}

/// Drops the members set to `null` (what `Remove` marked).
fn drop_nulls(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        Value::Object(members) => {
            members.retain(|_, member| !member.is_null());
            members.values_mut().for_each(drop_nulls);
        }
        _ => {}
    }
}

/// Bytes-level damage to an encoded vector: truncation, a byte flipped, a
/// member's text written twice (a duplicate key).
#[derive(Debug, Clone)]
enum Damage {
    Truncate(usize),
    Flip(usize, u8),
    Duplicate,
}

fn damage(bytes: &mut Vec<u8>, damage: &Damage) {
    match damage {
        Damage::Truncate(at) if !bytes.is_empty() => bytes.truncate(at % bytes.len()),
        Damage::Flip(at, byte) if !bytes.is_empty() => {
            let at = at % bytes.len();
            bytes[at] = *byte;
        }
        Damage::Duplicate => {
            // `{"a":1,...}` -> `{"a":1,"a":1,...}`: the first member again.
            if let (Some(open), Some(comma)) = (
                bytes.iter().position(|&byte| byte == b'{'),
                bytes.iter().position(|&byte| byte == b','),
            ) {
                if open < comma {
                    let member = bytes[open + 1..=comma].to_vec();
                    bytes.splice(open + 1..open + 1, member);
                }
            }
        }
        _ => {}
    }
}

fn config() -> Config {
    let cases = std::env::var("ACP_FUZZ_CASES")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(256);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

/// A runner seeded by `ACP_FUZZ_SEED` (0 unless set): the same cases on
/// every run unless a seed asks for others.
fn runner() -> TestRunner {
    let seed = std::env::var("ACP_FUZZ_SEED")
        .ok()
        .and_then(|text| text.parse::<u64>().ok())
        .unwrap_or(0);
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRunner::new_with_rng(config(), TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

/// Runs `bytes` through every target and `value` (if any) through every method.
fn through_everything(bytes: &[u8], value: Option<&Value>) -> Result<usize, TestCaseError> {
    let mut accepted = 0;
    for (name, decode) in TARGETS {
        if decode(bytes).map_err(|message| TestCaseError::fail(format!("{name}: {message}")))? {
            accepted += 1;
        }
    }
    if let Some(value) = value {
        for method in METHODS {
            by_method(method, value).map_err(TestCaseError::fail)?;
        }
    }
    Ok(accepted)
}

/// Counts runs and how many decodes succeeded, for the report a run prints.
#[derive(Default)]
struct Tally {
    runs: std::cell::Cell<usize>,
    accepted: std::cell::Cell<usize>,
}

impl Tally {
    fn add(&self, accepted: usize) {
        self.runs.set(self.runs.get() + 1);
        self.accepted.set(self.accepted.get() + accepted);
    }

    fn report(&self, what: &str) {
        eprintln!(
            "{what}: {} cases, {} decodes accepted",
            self.runs.get(),
            self.accepted.get()
        );
    }
}

/// Regression: every valid vector of every target decodes and round-trips,
/// its encoding naming each member once (`SetSessionConfigOptionRequest`
/// wrote `type` and `value` twice: its flattened union's members were also
/// kept as members of its own).
#[test]
fn every_valid_vector_round_trips_without_a_member_written_twice() {
    let corpus = corpus();
    for (target, vector) in &corpus.valid {
        let (name, decode) = TARGETS[*target];
        let bytes = serde_json::to_vec(vector).expect("JSON encodes");
        assert_eq!(decode(&bytes), Ok(true), "{name}: {vector}");
    }
}

#[test]
fn arbitrary_bytes_never_panic_and_what_decodes_round_trips() {
    let tally = Tally::default();
    runner()
        .run(&proptest::collection::vec(any::<u8>(), 0..200), |bytes| {
            through_everything(&bytes, None).map(|accepted| tally.add(accepted))
        })
        .unwrap();
    tally.report("arbitrary bytes");
}

#[test]
fn arbitrary_json_never_panics_and_what_decodes_round_trips() {
    let corpus = corpus();
    let tally = Tally::default();
    runner()
        .run(&json(corpus.words), |value| {
            let bytes = serde_json::to_vec(&value).expect("JSON encodes");
            through_everything(&bytes, Some(&value)).map(|accepted| tally.add(accepted))
        })
        .unwrap();
    tally.report("arbitrary JSON");
}

#[test]
fn mutated_vectors_never_panic_and_what_decodes_round_trips() {
    let corpus = corpus();
    let mutation = prop_oneof![
        any::<usize>().prop_map(Mutation::Remove),
        any::<usize>().prop_map(Mutation::Null),
        (any::<usize>(), json(corpus.words.clone())).prop_map(|(at, with)| Mutation::Replace(at, with)),
        any::<usize>().prop_map(Mutation::Wrap),
    ];
    let damage_strategy = prop_oneof![
        4 => Just(None),
        1 => any::<usize>().prop_map(|at| Some(Damage::Truncate(at))),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Some(Damage::Flip(at, byte))),
        1 => Just(Some(Damage::Duplicate)),
    ];
    let strategy = (
        0..corpus.valid.len(),
        proptest::collection::vec(mutation, 1..4),
        damage_strategy,
    );
    let own = Tally::default();
    let tally = Tally::default();
    runner()
        .run(&strategy, |(pick, mutations, hurt)| {
            let (target, vector) = &corpus.valid[pick];
            let value = mutate(vector.clone(), &mutations);
            let mut bytes = serde_json::to_vec(&value).expect("JSON encodes");
            if let Some(hurt) = &hurt {
                damage(&mut bytes, hurt);
            }
            let (name, decode) = TARGETS[*target];
            own.add(usize::from(
                decode(&bytes).map_err(|message| TestCaseError::fail(format!("{name}: {message}")))?,
            ));
            through_everything(&bytes, Some(&value)).map(|accepted| tally.add(accepted))
        })
        .unwrap();
    own.report("mutated vectors, as their own type");
    tally.report("mutated vectors, as every type");
}
