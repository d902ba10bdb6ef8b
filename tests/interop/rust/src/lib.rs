//! What the interop programs share: a process's pipes as the async streams
//! the connection takes, each line recorded in a trace as it passes
//! (`{"direction": "client-to-agent" | "agent-to-client", "message": ...}`,
//! the format `cargo xtask check-trace` reads).

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use futures::channel::mpsc;
use futures::io::{AsyncBufRead, AsyncWrite};
use futures::TryStreamExt;

/// Where every line goes, when a trace file was asked for.
#[derive(Clone, Default)]
pub struct Trace(Option<Arc<Mutex<File>>>);

impl Trace {
    /// A trace written to `path` (none when `None`).
    pub fn create(path: Option<&str>) -> std::io::Result<Trace> {
        Ok(Trace(match path {
            Some(path) => Some(Arc::new(Mutex::new(File::create(path)?))),
            None => None,
        }))
    }

    fn record(&self, direction: &str, line: &[u8]) {
        let Some(file) = &self.0 else { return };
        let message: serde_json::Value = serde_json::from_slice(line).unwrap_or_else(|_| serde_json::Value::String(String::from_utf8_lossy(line).into_owned()));
        let record = serde_json::json!({"direction": direction, "message": message});
        let _ = writeln!(file.lock().unwrap(), "{record}");
    }
}

/// Reads `input` on a thread of its own, line by line, recording each line.
pub fn reader(input: impl Read + Send + 'static, trace: Trace, direction: &'static str) -> impl AsyncBufRead + Unpin {
    let (sender, receiver) = mpsc::unbounded::<std::io::Result<Vec<u8>>>();
    std::thread::spawn(move || {
        let mut input = BufReader::new(input);
        loop {
            let mut line = Vec::new();
            match input.read_until(b'\n', &mut line) {
                Ok(0) => break,
                Ok(_) => {
                    trace.record(direction, line.trim_ascii_end());
                    if sender.unbounded_send(Ok(line)).is_err() {
                        break;
                    }
                }
                Err(error) => {
                    let _ = sender.unbounded_send(Err(error));
                    break;
                }
            }
        }
    });
    receiver.into_async_read()
}

/// Writes to `output` as it is given (a pipe takes a line at once),
/// recording each whole line.
pub struct Writer<W: Write> {
    output: W,
    trace: Trace,
    direction: &'static str,
    line: Vec<u8>,
}

impl<W: Write> Writer<W> {
    pub fn new(output: W, trace: Trace, direction: &'static str) -> Self {
        Writer { output, trace, direction, line: Vec::new() }
    }
}

impl<W: Write + Unpin> AsyncWrite for Writer<W> {
    fn poll_write(mut self: Pin<&mut Self>, _: &mut Context<'_>, buffer: &[u8]) -> Poll<std::io::Result<usize>> {
        let this = &mut *self;
        for byte in buffer {
            if *byte == b'\n' {
                this.trace.record(this.direction, &this.line);
                this.line.clear();
            } else {
                this.line.push(*byte);
            }
        }
        Poll::Ready(this.output.write_all(buffer).map(|()| buffer.len()))
    }

    fn poll_flush(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(self.output.flush())
    }

    fn poll_close(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(self.output.flush())
    }
}
