#!/usr/bin/env python3
"""Capture one real ACP agent's wire traffic as a JSON Lines trace fixture.

This module owns the client side of a capture and the per-agent recipes:

* installing the agent, pinned, from the npm registry into a cache dir
  (`target/agents/<name>` of the repo by default; `--cache` to change);
* a scratch dir (project files, a private HOME, the agent's config pointing at
  `mock_model.py`, which it starts on 127.0.0.1 and stops at the end);
* a raw JSON-RPC 2.0 client over the agent's stdio (newline-delimited JSON,
  standard library only): `initialize`, `authenticate` where the recipe says,
  `session/new`, then two `session/prompt` turns whose `ACP-SCRIPT:` markers make
  the mock model call tools; it answers the agent's requests
  (`session/request_permission`, `fs/*`, `terminal/*`) and records every message
  both ways, as parsed from or written to the wire, with its time;
* scrubbing machine-specific strings (paths, key, port, host and user names)
  from every JSON string, then writing `<out>/<agent>-<version>.jsonl`.

Lines on the agent's stdout that are not JSON go to `<agent>-<version>.stdout.log`
beside the fixture (only when there are any); the agent's stderr and the mock's
request log stay in the scratch dir, whose path is printed.

Usage: capture.py --agent NAME [--out DIR] [--cache DIR] [--keep]
"""

import argparse
import getpass
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
API_KEY = "sk-acp-capture-0123456789abcdef"
PROMPTS = [
    "ACP-SCRIPT:edit Read notes.txt, then update it.",
    "ACP-SCRIPT:shell List the files in the project.",
]
PROJECT_FILES = {
    "notes.txt": "hello\n",
    "README.md": "# Scratch project\n\nA project for capturing ACP traffic.\n",
}
RPC_TIMEOUT = 60
PROMPT_TIMEOUT = 180
SETTLE = 1.5

# Stable placeholders for machine-specific strings (see `Scrubber`).
PROJECT_PLACEHOLDER = "/tmp/acp-project"
HOME_PLACEHOLDER = "/home/user"
WORK_PLACEHOLDER = "/tmp/acp-capture"
KEY_PLACEHOLDER = "sk-test"
ADDRESS_PLACEHOLDER = "127.0.0.1:8080"


# --- Agent recipes -------------------------------------------------------------


class Scratch:
    """The scratch dir of one capture: project/, home/, and logs."""

    def __init__(self, root):
        self.root = Path(root)
        self.project = self.root / "project"
        self.home = self.root / "home"
        self.port = None
        for d in (self.project, self.home):
            d.mkdir(parents=True)
        for name, text in PROJECT_FILES.items():
            (self.project / name).write_text(text)

    @property
    def base(self):
        return "http://127.0.0.1:%d" % self.port


def setup_codex(s):
    """Responses API. `untrusted` asks before any command not known to be read-only; full access
    because codex's own Linux sandbox cannot start in a container like this one."""
    codex_home = s.home / ".codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        'model = "gpt-5.5"\n'
        'model_provider = "mock"\n'
        'approval_policy = "untrusted"\n'
        'sandbox_mode = "danger-full-access"\n'
        "[model_providers.mock]\n"
        'name = "Mock"\n'
        'base_url = "%s/v1"\n'
        'env_key = "OPENAI_API_KEY"\n'
        'wire_api = "responses"\n' % s.base
    )
    return [], {"CODEX_HOME": str(codex_home), "OPENAI_API_KEY": API_KEY}


def setup_opencode(s):
    """Chat Completions, through an OpenAI-compatible provider; `ask` for edits and shell."""
    config = {
        "provider": {
            "mock": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Mock",
                "options": {"baseURL": s.base + "/v1", "apiKey": API_KEY},
                "models": {"mock-model": {"name": "Mock Model", "tool_call": True}},
            }
        },
        "model": "mock/mock-model",
        "small_model": "mock/mock-model",
        "permission": {"edit": "ask", "bash": "ask"},
        "autoupdate": False,
        "share": "disabled",
    }
    path = s.root / "opencode.json"
    path.write_text(json.dumps(config, indent=2))
    return ["acp"], {
        "OPENCODE_CONFIG": str(path),
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
    }


def setup_gemini(s):
    """Gemini API (`authenticate` with the API-key method); telemetry and updates off."""
    gemini_dir = s.home / ".gemini"
    gemini_dir.mkdir()
    (gemini_dir / "settings.json").write_text(
        json.dumps(
            {
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False},
                "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            },
            indent=2,
        )
    )
    return ["--experimental-acp"], {"GEMINI_API_KEY": API_KEY, "GOOGLE_GEMINI_BASE_URL": s.base}


def setup_claude(s):
    """Anthropic Messages API; no traffic but the model's."""
    # IS_SANDBOX=1: Claude Code refuses its permission-bypass flag as root without it.
    return [], {
        "IS_SANDBOX": "1",
        "ANTHROPIC_BASE_URL": s.base,
        "ANTHROPIC_API_KEY": API_KEY,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }


AGENTS = {
    # name: (npm package, pinned version, bin name, setup, authenticate methodId or None)
    "codex": ("@zed-industries/codex-acp", "0.16.0", "codex-acp", setup_codex, None),
    "opencode": ("opencode-ai", "1.18.33", "opencode", setup_opencode, None),
    "gemini": ("@google/gemini-cli", "0.61.0", "gemini", setup_gemini, "gemini-api-key"),
    "claude-code": ("@zed-industries/claude-code-acp", "0.16.2", "claude-code-acp", setup_claude, None),
    "claude-agent": ("@agentclientprotocol/claude-agent-acp", "0.49.0", "claude-agent-acp", setup_claude, None),
}


def install(cache, name):
    package, version, bin_name = AGENTS[name][:3]
    prefix = cache / name
    manifest = prefix / "node_modules" / package / "package.json"
    if not manifest.exists() or json.loads(manifest.read_text())["version"] != version:
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "npm",
                "install",
                "--prefix",
                str(prefix),
                "--no-audit",
                "--no-fund",
                "--save-exact",
                "%s@%s" % (package, version),
            ],
            check=True,
            timeout=600,
        )
    return prefix / "node_modules" / ".bin" / bin_name


# --- Wire -------------------------------------------------------------------------


def now():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Connection:
    """Newline-delimited JSON-RPC over the agent's stdio, recording every message."""

    def __init__(self, argv, env, cwd, stderr_path):
        self.stderr = open(stderr_path, "wb")
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        self.records = []
        self.non_json = []
        self.incoming = queue.Queue()
        self.lock = threading.Lock()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            try:
                message = json.loads(line)
            except ValueError:
                message = None
            if not isinstance(message, (dict, list)):
                self.non_json.append({"time": now(), "line": line})
                continue
            self._record("agent-to-client", message)
            self.incoming.put(message)
        self.incoming.put(None)

    def _record(self, direction, message):
        with self.lock:
            self.records.append({"direction": direction, "message": message, "time": now()})

    def send(self, message):
        self._record("client-to-agent", message)
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params, handler, timeout=RPC_TIMEOUT):
        """Send a request; serve the agent's requests until its response arrives."""
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            message = self.poll(deadline - time.monotonic(), handler)
            if message is None:
                raise TimeoutError("%s: no response within %ss" % (method, timeout))
            if "method" not in message and message.get("id") == rid:
                return message

    def poll(self, timeout, handler):
        """Next message from the agent (None on timeout or EOF), answering its requests."""
        try:
            message = self.incoming.get(timeout=max(timeout, 0))
        except queue.Empty:
            return None
        if message is None:
            self.incoming.put(None)
            return None
        if isinstance(message, dict) and "method" in message and "id" in message:
            self.send(handler.answer(message))
        return message

    def drain(self, seconds, handler):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.poll(deadline - time.monotonic(), handler)

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        for sig, wait in ((None, 3), (signal.SIGTERM, 3), (signal.SIGKILL, 3)):
            if sig is not None:
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
            try:
                self.proc.wait(timeout=wait)
                break
            except subprocess.TimeoutExpired:
                continue
        # The agent's own children (e.g. an LSP server) share its process group.
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.stderr.close()


# --- The client's side of the agent's requests ---------------------------------


class UnknownMethod(Exception):
    pass


class Client:
    """Answers `session/request_permission`, `fs/*` and `terminal/*` inside the project."""

    def __init__(self, project):
        self.project = project
        self.terminals = {}

    def inside(self, path):
        p = Path(path).resolve()
        if p != self.project and self.project not in p.parents:
            raise PermissionError("outside the project: %s" % path)
        return p

    def answer(self, message):
        method, params = message["method"], message.get("params") or {}
        try:
            result = self.dispatch(method, params)
        except UnknownMethod as e:
            return {
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {"code": -32601, "message": "Method not found: %s" % e.args[0]},
            }
        except Exception as e:  # any failure serving a request becomes its error response
            return {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32603, "message": str(e)}}
        return {"jsonrpc": "2.0", "id": message["id"], "result": result}

    def dispatch(self, method, params):
        if method == "session/request_permission":
            options = params["options"]
            allow = (
                [o for o in options if o.get("kind") == "allow_once"]
                or [o for o in options if str(o.get("kind", "")).startswith("allow")]
                or options
            )
            return {"outcome": {"outcome": "selected", "optionId": allow[0]["optionId"]}}
        if method == "fs/read_text_file":
            lines = self.inside(params["path"]).read_text().splitlines(keepends=True)
            start = max((params.get("line") or 1) - 1, 0)
            end = start + params["limit"] if params.get("limit") else None
            return {"content": "".join(lines[start:end])}
        if method == "fs/write_text_file":
            self.inside(params["path"]).write_text(params["content"])
            return {}
        if method.startswith("terminal/"):
            return self.terminal(method[len("terminal/") :], params)
        raise UnknownMethod(method)

    def terminal(self, op, params):
        if op == "create":
            tid = "term_%d" % (len(self.terminals) + 1)
            cwd = self.inside(params.get("cwd") or self.project)
            env = dict(os.environ, **{v["name"]: v["value"] for v in params.get("env") or []})
            # With no args, `command` is taken as a shell command line.
            argv = [params["command"]] + params["args"] if params.get("args") else ["/bin/sh", "-c", params["command"]]
            proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
            output = proc.stdout.decode("utf-8", "replace")
            limit = params.get("outputByteLimit")
            truncated = bool(limit) and len(output.encode()) > limit
            if truncated:
                output = output.encode()[-limit:].decode("utf-8", "ignore")
            self.terminals[tid] = {
                "output": output,
                "truncated": truncated,
                "exitStatus": {"exitCode": proc.returncode, "signal": None},
            }
            return {"terminalId": tid}
        term = self.terminals[params["terminalId"]]
        if op == "output":
            return dict(term)
        if op == "wait_for_exit":
            return dict(term["exitStatus"])
        if op in ("kill", "release"):
            return {}
        raise UnknownMethod("terminal/" + op)


# --- Scrubbing --------------------------------------------------------------------


class Scrubber:
    """Replaces machine-specific strings inside every JSON string (keys and values)."""

    def __init__(self, scratch):
        pairs = [
            (str(scratch.project), PROJECT_PLACEHOLDER),
            (str(scratch.home), HOME_PLACEHOLDER),
            (str(scratch.root), WORK_PLACEHOLDER),
            (API_KEY, KEY_PLACEHOLDER),
            ("127.0.0.1:%d" % scratch.port, ADDRESS_PLACEHOLDER),
            ("localhost:%d" % scratch.port, ADDRESS_PLACEHOLDER),
        ]
        real_home = os.path.expanduser("~")
        if real_home not in ("/", ""):
            pairs.append((real_home, HOME_PLACEHOLDER))
        host = socket.gethostname()
        if len(host) > 3:
            pairs.append((host, "host"))
        user = getpass.getuser()
        pairs += [("/home/" + user, HOME_PLACEHOLDER), ("/Users/" + user, HOME_PLACEHOLDER)]
        # Agents also show paths without their leading slash (e.g. as a title).
        pairs += [(old[1:], new[1:]) for old, new in pairs if old.startswith("/") and new.startswith("/")]
        # Longest first, so a path is replaced before any prefix of it.
        self.pairs = sorted(set(pairs), key=lambda p: -len(p[0]))

    def text(self, s):
        for old, new in self.pairs:
            s = s.replace(old, new)
        return s

    def value(self, v):
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, dict):
            return {self.text(k): self.value(x) for k, x in v.items()}
        return v


# --- Driver -----------------------------------------------------------------------


def start_mock(scratch, seconds):
    proc = subprocess.Popen(
        [
            sys.executable,
            str(HERE / "mock_model.py"),
            "--port",
            "0",
            "--project",
            str(scratch.project),
            "--log",
            str(scratch.root / "mock.log"),
            "--max-time",
            str(seconds),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    if not line.startswith("PORT "):
        proc.kill()
        raise RuntimeError("mock model did not start: %r" % line)
    scratch.port = int(line.split()[1])
    return proc


def session(conn, client, auth_method, scratch):
    init = conn.request(
        "initialize",
        {
            "protocolVersion": 1,
            "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True},
            "clientInfo": {"name": "acp-capture", "title": "ACP capture client", "version": "0.1.0"},
        },
        client,
    )
    if "error" in init:
        raise RuntimeError("initialize failed: %s" % init["error"])
    if auth_method:
        conn.request("authenticate", {"methodId": auth_method}, client)
    new = conn.request("session/new", {"cwd": str(scratch.project), "mcpServers": []}, client)
    if "error" in new:
        raise RuntimeError("session/new failed: %s" % new["error"])
    sid = new["result"]["sessionId"]
    conn.drain(SETTLE, client)
    for text in PROMPTS:
        reply = conn.request(
            "session/prompt",
            {"sessionId": sid, "prompt": [{"type": "text", "text": text}]},
            client,
            timeout=PROMPT_TIMEOUT,
        )
        print("  %s -> %s" % (text.split()[0], reply.get("result") or reply.get("error")), file=sys.stderr)
    conn.drain(SETTLE, client)


def capture(name, out, cache, keep):
    package, version, _, setup, auth_method = AGENTS[name]
    binary = install(cache, name)
    scratch = Scratch(tempfile.mkdtemp(prefix="acp-capture-%s-" % name))
    print("scratch dir: %s" % scratch.root, file=sys.stderr)
    mock = start_mock(scratch, PROMPT_TIMEOUT * len(PROMPTS) + 120)
    extra_args, extra_env = setup(scratch)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_"))}
    env.update(
        extra_env,
        HOME=str(scratch.home),
        XDG_CONFIG_HOME=str(scratch.home / ".config"),
        XDG_DATA_HOME=str(scratch.home / ".local/share"),
        XDG_CACHE_HOME=str(scratch.home / ".cache"),
        XDG_STATE_HOME=str(scratch.home / ".local/state"),
        NO_COLOR="1",
    )
    conn = Connection([str(binary)] + extra_args, env, scratch.project, scratch.root / "agent.stderr")
    client = Client(scratch.project.resolve())
    failure = None
    try:
        session(conn, client, auth_method, scratch)
    except (TimeoutError, RuntimeError, OSError) as e:
        failure = e
    finally:
        conn.close()
        mock.terminate()
        mock.wait(timeout=10)
    scrub = Scrubber(scratch)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / ("%s-%s" % (name, version))
    with open(str(stem) + ".jsonl", "w") as f:
        for record in conn.records:
            f.write(json.dumps(scrub.value(record), ensure_ascii=False) + "\n")
    if conn.non_json:
        with open(str(stem) + ".stdout.log", "w") as f:
            for entry in conn.non_json:
                f.write(json.dumps(scrub.value(entry), ensure_ascii=False) + "\n")
    counts = {}
    for record in conn.records:
        counts[record["direction"]] = counts.get(record["direction"], 0) + 1
    print("%s %s: %s -> %s.jsonl" % (package, version, counts, stem), file=sys.stderr)
    if not keep:
        shutil.rmtree(scratch.root, ignore_errors=True)
    if failure:
        print("FAILED: %s" % failure, file=sys.stderr)
        return 1
    return 0


def run_client(name, client, trace, cache, keep):
    """Plays the session with another client: `client` (a command line) is run
    as `CLIENT --cwd PROJECT --trace TRACE --prompt P... -- AGENT ARGS...` in the
    agent's environment, against the same mock model. Returns its exit code;
    what it printed passes through."""
    _, _, _, setup, auth_method = AGENTS[name]
    binary = install(cache, name)
    scratch = Scratch(tempfile.mkdtemp(prefix="acp-interop-%s-" % name))
    mock = start_mock(scratch, PROMPT_TIMEOUT * len(PROMPTS) + 120)
    extra_args, extra_env = setup(scratch)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_"))}
    env.update(
        extra_env,
        HOME=str(scratch.home),
        XDG_CONFIG_HOME=str(scratch.home / ".config"),
        XDG_DATA_HOME=str(scratch.home / ".local/share"),
        XDG_CACHE_HOME=str(scratch.home / ".cache"),
        XDG_STATE_HOME=str(scratch.home / ".local/state"),
        NO_COLOR="1",
    )
    command = client.split() + ["--cwd", str(scratch.project.resolve()), "--trace", str(trace)]
    if auth_method:
        command += ["--authenticate", auth_method]
    for text in PROMPTS:
        command += ["--prompt", text]
    command += ["--", str(binary)] + extra_args
    try:
        with open(scratch.root / "agent.stderr", "w") as stderr:
            code = subprocess.run(
                command, env=env, stderr=stderr, timeout=PROMPT_TIMEOUT * len(PROMPTS) + 60
            ).returncode
        if code != 0:
            sys.stderr.write((scratch.root / "agent.stderr").read_text()[-4000:])
    except subprocess.TimeoutExpired:
        print("FAIL: the session did not end in time", file=sys.stderr)
        code = 1
    finally:
        mock.terminate()
        mock.wait(timeout=10)
        if not keep:
            shutil.rmtree(scratch.root, ignore_errors=True)
    return code


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--agent", required=True, choices=sorted(AGENTS))
    ap.add_argument("--out", type=Path, default=REPO / "tests" / "captures")
    ap.add_argument(
        "--cache", type=Path, default=REPO / "target" / "agents", help="where agents are installed, one npm prefix each"
    )
    ap.add_argument("--keep", action="store_true", help="keep the scratch dir (logs, mock requests)")
    ap.add_argument("--client", help="play the session with this client command instead (interop)")
    ap.add_argument("--trace", type=Path, help="with --client: where the client records the session")
    args = ap.parse_args()
    if args.client:
        return run_client(args.agent, args.client, args.trace, args.cache.resolve(), args.keep)
    return capture(args.agent, args.out, args.cache.resolve(), args.keep)


if __name__ == "__main__":
    sys.exit(main())
