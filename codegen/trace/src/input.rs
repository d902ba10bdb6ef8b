//! Reading a capture, one record at a time (never the whole file): JSON
//! Lines of trace records, a JSON array of them, or two stdio tees, one per
//! direction, merged by timestamps (line by line when a line has none).
//!
//! A trace record is `{"direction": "client-to-agent" | "agent-to-client",
//! "message": {...}, "time"?: "<RFC 3339>"}`, or, for a NATS reply stream,
//! `{"stream": "<name>", "frame": {"type": ..., "data": ...} | null, "time"?}`
//! (`null`: the stream's empty terminating message). A tee line is a
//! JSON-RPC message, or `{"message": {...}, "time": ...}`. Anything that is
//! not one of these is an error naming the file and line.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use chrono::{DateTime, FixedOffset};
use serde_json::Value;

use acp_ir::ir::Direction;

use crate::finding::Place;

/// A capture that cannot be read: the file, the line when there is one,
/// and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub file: String,
    pub line: Option<u64>,
    pub message: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(formatter, "{}:{line}: {}", self.file, self.message),
            None => write!(formatter, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for InputError {}

type Result<T> = std::result::Result<T, InputError>;

/// A record, where it is and its time (milliseconds since the epoch).
pub struct Entry {
    pub at: Place,
    pub time: Option<u64>,
    pub record: Record,
}

/// What a record holds.
pub enum Record {
    Message { direction: Direction, message: Value },
    Frame { stream: String, frame: Option<Value> },
}

/// Where the capture comes from.
pub enum Inputs {
    /// One file: JSON Lines or a JSON array of records.
    Records(PathBuf),
    /// A tee of each direction: client-to-agent, then agent-to-client.
    Tees(PathBuf, PathBuf),
}

impl Inputs {
    /// The file names, by input index.
    pub fn names(&self) -> Vec<String> {
        match self {
            Inputs::Records(path) => vec![path.display().to_string()],
            Inputs::Tees(client, agent) => vec![client.display().to_string(), agent.display().to_string()],
        }
    }
}

/// The units of one file: lines, or the elements of a top-level array.
struct Units {
    reader: BufReader<File>,
    file: String,
    array: bool,
    /// The line the reader is at (1-based).
    line: u64,
    done: bool,
}

impl Units {
    fn open(path: &Path) -> Result<Units> {
        let file = path.display().to_string();
        let unreadable = |error: std::io::Error| InputError {
            file: file.clone(),
            line: None,
            message: format!("cannot read: {error}"),
        };
        let handle = File::open(path).map_err(unreadable)?;
        let mut reader = BufReader::with_capacity(1 << 20, handle);
        let first = reader
            .fill_buf()
            .map_err(unreadable)?
            .iter()
            .find(|byte| !byte.is_ascii_whitespace())
            .copied();
        let array = first == Some(b'[');
        let mut units = Units {
            reader,
            file,
            array,
            line: 1,
            done: false,
        };
        if array {
            units.skip_whitespace()?;
            units.byte()?;
        }
        Ok(units)
    }

    fn error(&self, line: u64, message: impl std::fmt::Display) -> InputError {
        InputError {
            file: self.file.clone(),
            line: Some(line),
            message: message.to_string(),
        }
    }

    fn peek(&mut self) -> Result<Option<u8>> {
        match self.reader.fill_buf() {
            Ok(buffer) => Ok(buffer.first().copied()),
            Err(error) => Err(self.error(self.line, error)),
        }
    }

    fn byte(&mut self) -> Result<Option<u8>> {
        let byte = self.peek()?;
        if let Some(byte) = byte {
            self.reader.consume(1);
            if byte == b'\n' {
                self.line += 1;
            }
        }
        Ok(byte)
    }

    fn skip_whitespace(&mut self) -> Result<()> {
        while self.peek()?.is_some_and(|byte| byte.is_ascii_whitespace()) {
            self.byte()?;
        }
        Ok(())
    }

    /// The next unit's line and text; blank lines are skipped.
    fn next(&mut self) -> Result<Option<(u64, String)>> {
        if self.array {
            return self.element();
        }
        let mut bytes = Vec::new();
        loop {
            bytes.clear();
            let line = self.line;
            let read = self
                .reader
                .read_until(b'\n', &mut bytes)
                .map_err(|error| self.error(line, error))?;
            if read == 0 {
                return Ok(None);
            }
            self.line += 1;
            let text = String::from_utf8(std::mem::take(&mut bytes)).map_err(|_| self.error(line, "not UTF-8"))?;
            if !text.trim().is_empty() {
                return Ok(Some((line, text)));
            }
        }
    }

    /// The next element of the top-level array: its text up to the comma
    /// or bracket at depth zero, strings and escapes respected.
    fn element(&mut self) -> Result<Option<(u64, String)>> {
        if self.done {
            return Ok(None);
        }
        self.skip_whitespace()?;
        let start = self.line;
        let mut text = Vec::new();
        let mut scan = Scan::default();
        let closed = loop {
            let buffer = match self.reader.fill_buf() {
                Ok(buffer) => buffer,
                Err(error) => return Err(self.error(self.line, error)),
            };
            if buffer.is_empty() {
                return Err(self.error(self.line, "the JSON array is not closed"));
            }
            let end = buffer.iter().position(|byte| scan.ends(*byte));
            let taken = &buffer[..end.unwrap_or(buffer.len())];
            self.line += taken.iter().filter(|byte| **byte == b'\n').count() as u64;
            text.extend_from_slice(taken);
            let consumed = taken.len();
            let closing = end.map(|end| buffer[end] == b']');
            self.reader.consume(consumed + usize::from(closing.is_some()));
            if let Some(closing) = closing {
                break closing;
            }
        };
        if closed {
            self.done = true;
            self.skip_whitespace()?;
            if self.peek()?.is_some() {
                return Err(self.error(self.line, "text after the JSON array"));
            }
        }
        let text = String::from_utf8(text).map_err(|_| self.error(start, "not UTF-8"))?;
        if text.trim().is_empty() {
            return if self.done {
                Ok(None)
            } else {
                Err(self.error(start, "an empty element in the JSON array"))
            };
        }
        Ok(Some((start, text)))
    }
}

/// Where a scan of an array element is: nesting depth, inside a string,
/// after a backslash there.
#[derive(Default)]
struct Scan {
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl Scan {
    /// Takes `byte`; whether it ends the element (a comma or the array's
    /// closing bracket at depth zero, which is not part of it).
    fn ends(&mut self, byte: u8) -> bool {
        if self.in_string {
            match (self.escaped, byte) {
                (true, _) => self.escaped = false,
                (false, b'\\') => self.escaped = true,
                (false, b'"') => self.in_string = false,
                _ => {}
            }
            return false;
        }
        match byte {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b',' | b']' if self.depth == 0 => return true,
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
        false
    }
}

/// Parses a unit that starts at `line`; an error names the line it is on.
fn parse(units: &Units, line: u64, text: &str) -> Result<Value> {
    serde_json::from_str(text.trim_end_matches(['\n', '\r'])).map_err(|error| {
        let message = error.to_string();
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(message, _)| message);
        let line = line + (error.line() as u64).saturating_sub(1);
        units.error(line, format!("not valid JSON (column {}): {message}", error.column()))
    })
}

/// Milliseconds since the epoch (0 before it).
fn millis(time: Option<DateTime<FixedOffset>>) -> Option<u64> {
    time.map(|time| u64::try_from(time.timestamp_millis()).unwrap_or_default())
}

fn time(units: &Units, line: u64, value: Option<&Value>) -> Result<Option<DateTime<FixedOffset>>> {
    let Some(value) = value else { return Ok(None) };
    let text = value
        .as_str()
        .ok_or_else(|| units.error(line, "`time` is not a string"))?;
    DateTime::parse_from_rfc3339(text)
        .map(Some)
        .map_err(|error| units.error(line, format!("`time` {text:?} is not RFC 3339: {error}")))
}

/// One trace record of a records file, and its time.
fn record(units: &Units, line: u64, text: &str) -> Result<(Option<u64>, Record)> {
    let Value::Object(mut members) = parse(units, line, text)? else {
        return Err(units.error(line, "a trace record is a JSON object"));
    };
    let time = millis(time(units, line, members.get("time"))?);
    if let Some(direction) = members.remove("direction") {
        let direction = direction.as_str().and_then(Direction::parse).ok_or_else(|| {
            units.error(
                line,
                "`direction` is neither \"client-to-agent\" nor \"agent-to-client\"",
            )
        })?;
        let message = members
            .remove("message")
            .ok_or_else(|| units.error(line, "a record with `direction` needs `message`"))?;
        return Ok((time, Record::Message { direction, message }));
    }
    if let Some(stream) = members.remove("stream") {
        let stream = stream
            .as_str()
            .ok_or_else(|| units.error(line, "`stream` is not a string"))?
            .to_owned();
        let frame = members
            .remove("frame")
            .ok_or_else(|| units.error(line, "a record with `stream` needs `frame` (null: the stream's end)"))?;
        return Ok((
            time,
            Record::Frame {
                stream,
                frame: Some(frame).filter(|frame| !frame.is_null()),
            },
        ));
    }
    Err(units.error(
        line,
        "a trace record has `direction` and `message`, or `stream` and `frame`",
    ))
}

/// One message of a tee, with its time.
struct Teed {
    line: u64,
    message: Value,
    time: Option<DateTime<FixedOffset>>,
}

fn teed(units: &mut Units) -> Result<Option<Teed>> {
    let Some((line, text)) = units.next()? else {
        return Ok(None);
    };
    let mut value = parse(units, line, &text)?;
    let wrapped = value
        .as_object()
        .is_some_and(|members| members.contains_key("message") && !members.contains_key("jsonrpc"));
    if !wrapped {
        return Ok(Some(Teed {
            line,
            message: value,
            time: None,
        }));
    }
    let time = time(units, line, value.get("time"))?;
    let message = value.get_mut("message").map(Value::take).unwrap_or_default();
    Ok(Some(Teed { line, message, time }))
}

/// A capture being read.
pub struct Reader(Source);

enum Source {
    Records(Units),
    Tees(Box<Tees>),
}

/// The two tees and the next message of each.
struct Tees {
    units: [Units; 2],
    heads: [Option<Teed>; 2],
}

impl Reader {
    pub fn open(inputs: &Inputs) -> Result<Reader> {
        Ok(Reader(match inputs {
            Inputs::Records(path) => Source::Records(Units::open(path)?),
            Inputs::Tees(client, agent) => {
                let mut units = [Units::open(client)?, Units::open(agent)?];
                let heads = [teed(&mut units[0])?, teed(&mut units[1])?];
                Source::Tees(Box::new(Tees { units, heads }))
            }
        }))
    }

    /// The next record, or `None` at the end of the capture.
    pub fn read(&mut self) -> Result<Option<Entry>> {
        match &mut self.0 {
            Source::Records(units) => {
                let Some((line, text)) = units.next()? else {
                    return Ok(None);
                };
                let (time, record) = record(units, line, &text)?;
                Ok(Some(Entry {
                    at: Place { input: 0, line },
                    time,
                    record,
                }))
            }
            Source::Tees(tees) => {
                let Tees { units, heads } = &mut **tees;
                let index = match (&heads[0], &heads[1]) {
                    (None, None) => return Ok(None),
                    (Some(_), None) => 0,
                    (None, Some(_)) => 1,
                    (Some(client), Some(agent)) => match (client.time, agent.time) {
                        (Some(client), Some(agent)) => usize::from(agent < client),
                        _ => usize::from(agent.line < client.line),
                    },
                };
                let next = teed(&mut units[index])?;
                let Some(head) = std::mem::replace(&mut heads[index], next) else {
                    return Ok(None);
                };
                let direction = if index == 0 {
                    Direction::ClientToAgent
                } else {
                    Direction::AgentToClient
                };
                let record = Record::Message {
                    direction,
                    message: head.message,
                };
                Ok(Some(Entry {
                    at: Place {
                        input: index,
                        line: head.line,
                    },
                    time: millis(head.time),
                    record,
                }))
            }
        }
    }
}
