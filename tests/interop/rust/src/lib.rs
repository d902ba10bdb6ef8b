//! What the interop programs share, on either protocol version: a
//! process's pipes as the async streams the connection takes, each line
//! recorded in a trace as it passes (`{"direction": "client-to-agent" |
//! "agent-to-client", "message": ...}`, the format `cargo xtask
//! check-trace` reads), and the clients' command line, agent process and
//! ending.

use std::fs::File;
use std::future::Future;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use futures::channel::mpsc;
use futures::future::Either;
use futures::io::{AsyncBufRead, AsyncWrite};
use futures::TryStreamExt;

/// A client's command line: `--cwd DIR [--trace FILE] [--authenticate
/// METHOD] [--prompt TEXT]... -- AGENT [ARGS]...`.
pub struct Arguments {
    pub cwd: PathBuf,
    pub trace: Option<String>,
    pub authenticate: Option<String>,
    pub prompts: Vec<String>,
    pub agent: Vec<String>,
}

impl Arguments {
    /// This process's command line (with `--authenticate` where
    /// `authenticate`), or exits 2 printing what is wrong or `usage`.
    pub fn parse(usage: &str, authenticate: bool) -> Arguments {
        Self::read(std::env::args().skip(1), usage, authenticate).unwrap_or_else(|message| {
            eprintln!("{message}");
            std::process::exit(2);
        })
    }

    fn read(mut given: impl Iterator<Item = String>, usage: &str, authenticate: bool) -> Result<Arguments, String> {
        let mut arguments = Arguments {
            cwd: PathBuf::new(),
            trace: None,
            authenticate: None,
            prompts: Vec::new(),
            agent: Vec::new(),
        };
        while let Some(argument) = given.next() {
            match argument.as_str() {
                "--cwd" => arguments.cwd = given.next().ok_or("--cwd needs a folder")?.into(),
                "--trace" => arguments.trace = Some(given.next().ok_or("--trace needs a file")?),
                "--authenticate" if authenticate => {
                    arguments.authenticate = Some(given.next().ok_or("--authenticate needs a method id")?)
                }
                "--prompt" => arguments.prompts.push(given.next().ok_or("--prompt needs text")?),
                "--" => arguments.agent = given.by_ref().collect(),
                other => return Err(format!("unknown argument {other}")),
            }
        }
        if arguments.agent.is_empty() || !arguments.cwd.is_absolute() {
            return Err(format!("usage: {usage}"));
        }
        if arguments.prompts.is_empty() {
            arguments.prompts.push("Read notes.txt, then update it.".to_owned());
        }
        Ok(arguments)
    }
}

/// The agent of `arguments`, started in its folder in a process group of
/// its own (so that its children stop with it), with its output as the
/// stream a client's end reads and its input as the one it writes, each
/// line recorded in the trace; exits 1 when the agent cannot start.
pub fn spawn_agent(arguments: &Arguments) -> (Child, impl AsyncBufRead + Unpin, Writer<ChildStdin>) {
    let spawned = Command::new(&arguments.agent[0])
        .args(&arguments.agent[1..])
        .current_dir(&arguments.cwd)
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let mut child = spawned.unwrap_or_else(|error| {
        eprintln!("FAIL ours: cannot start {}: {error}", arguments.agent[0]);
        std::process::exit(1);
    });
    let trace = Trace::create(arguments.trace.as_deref()).expect("the trace file");
    let input = reader(
        child.stdout.take().expect("its output is piped"),
        trace.clone(),
        "agent-to-client",
    );
    let output = Writer::new(
        child.stdin.take().expect("its input is piped"),
        trace,
        "client-to-agent",
    );
    (child, input, output)
}

/// Plays `session` while `driver` (the connection's) runs, then stops the
/// agent `child` and its process group: an agent need not exit when its
/// input ends, so the session decides. A failed session comes with how the connection ended,
/// if it had.
pub fn play<T, D>(
    session: impl Future<Output = Result<T, String>>,
    driver: impl Future<Output = D>,
    child: &mut Child,
) -> Result<T, (String, Option<D>)> {
    let outcome = futures::executor::block_on(async {
        match futures::future::select(Box::pin(session), Box::pin(driver)).await {
            Either::Left((outcome, _)) => outcome.map_err(|message| (message, None)),
            Either::Right((driven, session)) => session.await.map_err(|message| (message, Some(driven))),
        }
    });
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stderr(Stdio::null())
        .status();
    let _ = child.kill();
    let _ = child.wait();
    outcome
}

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
        let message: serde_json::Value = serde_json::from_slice(line)
            .unwrap_or_else(|_| serde_json::Value::String(String::from_utf8_lossy(line).into_owned()));
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
        Writer {
            output,
            trace,
            direction,
            line: Vec::new(),
        }
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
