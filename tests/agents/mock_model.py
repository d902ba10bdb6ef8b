#!/usr/bin/env python3
"""A scripted, deterministic mock LLM server for capturing real ACP agents' traffic.

This module owns the model side of a capture: an HTTP server on 127.0.0.1 that
speaks just enough of four provider APIs for the agents in `capture.py`:

* OpenAI Chat Completions  - POST /v1/chat/completions (SSE chunks, `tool_calls` deltas)
* OpenAI Responses         - POST /v1/responses (SSE events, `function_call` items)
* Anthropic Messages       - POST /v1/messages (SSE events, `tool_use` blocks),
                             POST /v1/messages/count_tokens
* Gemini                   - POST /v1beta/models/M:streamGenerateContent?alt=sse,
                             :generateContent, :countTokens

plus the model lists the agents probe (GET .../models).

The conversation is a script chosen by a marker in the user's prompt,
`ACP-SCRIPT:<name>`; each tool result the agent sends back advances one step:

* `edit`:  read `notes.txt`, then write `notes.txt`, then a final text answer
* `shell`: run a shell command, then a final text answer

For each step the server picks, among the tools the agent offered in that
request, the one that does the job (e.g. `Read`, `read`, `read_file`, or a shell
tool running `cat`), and fills its arguments from its parameter names. A request
with no marker, or with no tools (titles, summaries, topic checks), gets a short
text answer (or, for Gemini's JSON-schema requests, the simplest conforming JSON).

Every response is built whole before it is sent (with a Content-Length, also for
SSE), so the bytes depend only on the request. The server stops by itself after
`--idle` seconds without a request or `--max-time` seconds in all.

Usage: mock_model.py --port 0 --project DIR [--log FILE]   (prints `PORT <n>` first)
"""

import argparse
import gzip
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

MODEL_ID = "mock-model"
MARKER = "ACP-SCRIPT:"
SCRIPTS = {"edit": ["read", "write"], "shell": ["shell"]}
FINAL_TEXT = "Done: the scripted steps ran."
PLAIN_TEXT = "ACP capture session"
NEW_NOTES = "hello from the mock model\n"
NOTES_PATCH = "*** Begin Patch\n*** Update File: notes.txt\n@@\n-hello\n+hello from the mock model\n*** End Patch\n"

# Tool names by job, in order of preference; an `mcp__acp__` prefix (the
# agent's own ACP-backed copy of a tool) is preferred over the plain name.
TOOL_NAMES = {
    "read": ["Read", "read", "read_file"],
    "write": ["Write", "write", "write_file", "apply_patch"],
    "shell": ["Bash", "bash", "run_shell_command", "shell_command", "shell", "exec_command"],
}
PATH_KEYS = ["file_path", "filePath", "absolute_path", "path"]


class Script:
    """Decides the next model move from a normalised view of one request."""

    def __init__(self, project):
        self.project = project
        self.calls = 0
        self.lock = threading.Lock()

    def next_call_id(self):
        with self.lock:
            self.calls += 1
            return "call_%d" % self.calls

    def decide(self, turns, tools):
        """turns: list of ("user", text) | ("tool_result", None); tools: {name: params schema}.

        Returns ("text", str), ("tool", name, args dict) or, for a freeform tool of
        the Responses API, ("custom", name, input str).
        """
        start = None
        for i, (kind, text) in enumerate(turns):
            if kind == "user" and MARKER in text:
                start = i
        if start is None or not tools:
            return ("text", PLAIN_TEXT)
        script_name = turns[start][1].split(MARKER, 1)[1].split()[0].strip(".,:;")
        steps = SCRIPTS.get(script_name, [])
        done = sum(1 for kind, _ in turns[start + 1 :] if kind == "tool_result")
        if done >= len(steps):
            return ("text", FINAL_TEXT)
        return self.tool_for(steps[done], tools)

    def tool_for(self, job, tools):
        name = pick_tool(TOOL_NAMES[job], tools)
        if name is None and job in ("read", "write"):
            shell = pick_tool(TOOL_NAMES["shell"], tools)
            if shell is not None:
                command = "cat notes.txt" if job == "read" else "printf 'hello from the mock model\\n' > notes.txt"
                return ("tool", shell, self.shell_args(shell, tools[shell], command))
        if name is None:
            return ("text", "No tool for step %r among %s" % (job, sorted(tools)))
        if name == "apply_patch":
            if (tools[name] or {}).get("custom"):
                return ("custom", name, NOTES_PATCH)
            return ("tool", name, {"input": NOTES_PATCH})
        props = (tools[name] or {}).get("properties", {})
        path = os.path.join(self.project, "notes.txt")
        if job == "shell":
            return ("tool", name, self.shell_args(name, tools[name], "ls"))
        args = {next((k for k in PATH_KEYS if k in props), "file_path"): path}
        if job == "write":
            args["content"] = NEW_NOTES
        return ("tool", name, fill_required(args, tools[name]))

    def shell_args(self, name, schema, command):
        props = (schema or {}).get("properties", {})
        if "cmd" in props:
            args = {"cmd": command}
        elif props.get("command", {}).get("type") == "array":
            args = {"command": ["bash", "-lc", command]}
        else:
            args = {"command": command}
        if "workdir" in props:
            args["workdir"] = self.project
        if "description" in props:
            args["description"] = "Run " + command
        return fill_required(args, schema)


def fill_required(args, schema):
    """Gives the required parameters the script did not set a value (a timeout: one minute, in ms)."""
    props = (schema or {}).get("properties", {})
    for key in (schema or {}).get("required", []):
        if key not in args:
            args[key] = 60000 if key == "timeout" else json_for_schema(props.get(key, {}))
    return args


def pick_tool(candidates, tools):
    for name in candidates:
        if "mcp__acp__" + name in tools:
            return "mcp__acp__" + name
    for name in candidates:
        if name in tools:
            return name
    return None


def text_of(content):
    """Concatenated text of an API message's content (a string or a list of parts)."""
    if isinstance(content, str):
        return content
    out = []
    for part in content or []:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            out.append(part["text"])
    return "\n".join(out)


def sse(events):
    """SSE body from (event name or None, data) pairs."""
    chunks = []
    for name, data in events:
        payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
        chunks.append(("event: %s\n" % name if name else "") + "data: %s\n\n" % payload)
    return "".join(chunks).encode()


# --- OpenAI Chat Completions -------------------------------------------------


def chat_request(body):
    turns = []
    for m in body.get("messages", []):
        if m.get("role") == "user":
            turns.append(("user", text_of(m.get("content"))))
        elif m.get("role") == "tool":
            turns.append(("tool_result", None))
    tools = {}
    for t in body.get("tools") or []:
        fn = t.get("function", {})
        tools[fn.get("name")] = fn.get("parameters")
    return turns, tools


def chat_response(body, move, call_id):
    base = {"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0, "model": MODEL_ID}
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    if move[0] == "text":
        message = {"role": "assistant", "content": move[1]}
        finish = "stop"
        deltas = [{"role": "assistant", "content": ""}, {"content": move[1]}]
    else:
        arguments = json.dumps(move[2])
        call = {"id": call_id, "type": "function", "function": {"name": move[1], "arguments": arguments}}
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish = "tool_calls"
        half = len(arguments) // 2
        deltas = [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"index": 0, "id": call_id, "type": "function", "function": {"name": move[1], "arguments": ""}}
                ],
            },
            {"tool_calls": [{"index": 0, "function": {"arguments": arguments[:half]}}]},
            {"tool_calls": [{"index": 0, "function": {"arguments": arguments[half:]}}]},
        ]
    if not body.get("stream"):
        return "application/json", json.dumps(
            dict(
                base,
                object="chat.completion",
                usage=usage,
                choices=[{"index": 0, "message": message, "finish_reason": finish}],
            )
        ).encode()
    events = [(None, dict(base, choices=[{"index": 0, "delta": d, "finish_reason": None}])) for d in deltas]
    events.append((None, dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": finish}])))
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append((None, dict(base, choices=[], usage=usage)))
    events.append((None, "[DONE]"))
    return "text/event-stream", sse(events)


# --- OpenAI Responses ---------------------------------------------------------


def responses_request(body):
    turns = []
    items = body.get("input")
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    for item in items or []:
        kind = item.get("type", "message")
        if kind == "message" and item.get("role") == "user":
            turns.append(("user", text_of(item.get("content"))))
        elif kind.endswith("_call_output"):
            turns.append(("tool_result", None))
    tools = {}
    for t in body.get("tools") or []:
        if t.get("type") == "function":
            tools[t.get("name")] = t.get("parameters")
        elif t.get("type") == "custom":
            tools[t.get("name")] = {"custom": True}
        else:
            tools[t.get("type")] = {"builtin": True}
    return turns, tools


def responses_response(body, move, call_id):
    rid = "resp_" + call_id
    if move[0] == "text":
        item = {
            "type": "message",
            "id": "msg_" + call_id,
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": move[1], "annotations": []}],
        }
    elif move[0] == "custom":
        item = {
            "type": "custom_tool_call",
            "id": "ctc_" + call_id,
            "status": "completed",
            "call_id": call_id,
            "name": move[1],
            "input": move[2],
        }
    else:
        item = {
            "type": "function_call",
            "id": "fc_" + call_id,
            "status": "completed",
            "call_id": call_id,
            "name": move[1],
            "arguments": json.dumps(move[2]),
        }
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    }
    response = {
        "id": rid,
        "object": "response",
        "created_at": 0,
        "model": MODEL_ID,
        "status": "in_progress",
        "output": [],
    }
    events = [
        ("response.created", {"type": "response.created", "response": response}),
        (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": 0, "item": dict(item, status="in_progress")},
        ),
    ]
    if move[0] == "text":
        events.append(
            (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": 0,
                    "content_index": 0,
                    "delta": move[1],
                },
            )
        )
    events.append(("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}))
    done = dict(response, status="completed", output=[item], usage=usage)
    events.append(("response.completed", {"type": "response.completed", "response": done}))
    if not body.get("stream"):
        return "application/json", json.dumps(done).encode()
    return "text/event-stream", sse(events)


# --- Anthropic Messages --------------------------------------------------------


def messages_request(body):
    turns = []
    for m in body.get("messages", []):
        if m.get("role") != "user":
            continue
        content = m.get("content")
        if isinstance(content, list) and any(isinstance(p, dict) and p.get("type") == "tool_result" for p in content):
            turns.extend(("tool_result", None) for p in content if p.get("type") == "tool_result")
        else:
            turns.append(("user", text_of(content)))
    tools = {t.get("name"): t.get("input_schema") for t in body.get("tools") or [] if "input_schema" in t}
    return turns, tools


def messages_response(body, move, call_id):
    usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    if move[0] == "text":
        block, stop = {"type": "text", "text": move[1]}, "end_turn"
        start_block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": move[1]}
    else:
        block, stop = {"type": "tool_use", "id": "toolu_" + call_id, "name": move[1], "input": move[2]}, "tool_use"
        start_block = dict(block, input={})
        delta = {"type": "input_json_delta", "partial_json": json.dumps(move[2])}
    message = {
        "id": "msg_" + call_id,
        "type": "message",
        "role": "assistant",
        "model": body.get("model", MODEL_ID),
        "content": [block],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
    if not body.get("stream"):
        return "application/json", json.dumps(message).encode()
    events = [
        ("message_start", {"type": "message_start", "message": dict(message, content=[], stop_reason=None)}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start_block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "text/event-stream", sse(events)


# --- Gemini -------------------------------------------------------------------


def gemini_request(body):
    turns = []
    for c in body.get("contents", []):
        parts = c.get("parts", [])
        if any("functionResponse" in p for p in parts):
            turns.extend(("tool_result", None) for p in parts if "functionResponse" in p)
        elif c.get("role", "user") == "user":
            turns.append(("user", text_of(parts)))
    tools = {}
    for t in body.get("tools") or []:
        for fn in t.get("functionDeclarations", []):
            tools[fn.get("name")] = fn.get("parametersJsonSchema") or fn.get("parameters")
    return turns, tools


def json_for_schema(schema):
    """The simplest value that conforms to a (Gemini) JSON schema: first enum value, the minimum or 1, empty string."""
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "object":
        props = schema.get("properties", {})
        return {k: json_for_schema(props[k]) for k in schema.get("required", props.keys())}
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    return {"array": [], "string": "", "boolean": False}.get(kind)


def gemini_response(body, move, stream):
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if move[0] == "text" and schema:
        part = {"text": json.dumps(json_for_schema(schema))}
    elif move[0] == "text":
        part = {"text": move[1]}
    else:
        part = {"functionCall": {"name": move[1], "args": move[2]}}
    chunk = {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": MODEL_ID,
    }
    if not stream:
        return "application/json", json.dumps(chunk).encode()
    return "text/event-stream", sse([(None, chunk)])


# --- HTTP plumbing ----------------------------------------------------------

MODELS = {
    "object": "list",
    "has_more": False,
    "first_id": MODEL_ID,
    "last_id": MODEL_ID,
    "data": [
        {
            "id": MODEL_ID,
            "object": "model",
            "type": "model",
            "created": 0,
            "created_at": "2025-01-01T00:00:00Z",
            "owned_by": "mock",
            "display_name": "Mock Model",
        }
    ],
    "models": [{"name": "models/" + MODEL_ID, "displayName": "Mock Model"}],
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mock-model/1"

    def log_message(self, *args):
        pass

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                data += self.rfile.read(size)
                self.rfile.readline()
                if size == 0:
                    break
        else:
            data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding") == "gzip":
            data = gzip.decompress(data)
        return data

    def reply(self, status, ctype, payload):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        self.server.touch()
        path = urlsplit(self.path).path
        if path.rstrip("/").endswith("/models"):
            self.server.record("GET", self.path, "models")
            return self.reply(200, "application/json", json.dumps(MODELS).encode())
        self.server.record("GET", self.path, "404")
        self.reply(404, "application/json", b'{"error":{"message":"not found"}}')

    def do_POST(self):
        self.server.touch()
        raw = self.read_body()
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        url = urlsplit(self.path)
        path = url.path
        script = self.server.script
        if path.endswith("/chat/completions"):
            parse, build = chat_request, chat_response
        elif path.endswith("/responses"):
            parse, build = responses_request, responses_response
        elif path.endswith("/messages/count_tokens"):
            self.server.record("POST", self.path, "count_tokens")
            return self.reply(200, "application/json", b'{"input_tokens": 10}')
        elif path.endswith("/messages"):
            parse, build = messages_request, messages_response
        elif path.endswith(":countTokens"):
            self.server.record("POST", self.path, "countTokens")
            return self.reply(200, "application/json", b'{"totalTokens": 10}')
        elif path.endswith(":streamGenerateContent") or path.endswith(":generateContent"):
            stream = path.endswith(":streamGenerateContent")
            turns, tools = gemini_request(body)
            move = script.decide(turns, tools)
            self.server.record("POST", self.path, move, sorted(tools))
            return self.reply(200, *gemini_response(body, move, stream))
        else:
            self.server.record("POST", self.path, "404")
            return self.reply(404, "application/json", b'{"error":{"message":"not found"}}')
        turns, tools = parse(body)
        move = script.decide(turns, tools)
        self.server.record("POST", self.path, move, sorted(tools))
        self.reply(200, *build(body, move, script.next_call_id()))


class MockServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port, project, log_path):
        super().__init__(("127.0.0.1", port), Handler)
        self.script = Script(project)
        self.log = open(log_path, "a") if log_path else None
        self.log_lock = threading.Lock()
        self.last = time.monotonic()

    def touch(self):
        self.last = time.monotonic()

    def record(self, method, path, move, tools=None):
        if self.log:
            with self.log_lock:
                self.log.write(json.dumps({"method": method, "path": path, "move": move, "tools": tools}) + "\n")
                self.log.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=0, help="0 picks a free port")
    ap.add_argument("--project", required=True, help="the agent's project dir (for absolute file paths)")
    ap.add_argument("--log", help="append one JSON line per request here")
    ap.add_argument("--idle", type=float, default=120, help="stop after this many seconds without a request")
    ap.add_argument("--max-time", type=float, default=300, help="stop after this many seconds in all")
    args = ap.parse_args()
    server = MockServer(args.port, os.path.abspath(args.project), args.log)
    print("PORT %d" % server.server_address[1], flush=True)
    started = time.monotonic()

    def watchdog():
        while True:
            time.sleep(0.5)
            now = time.monotonic()
            if now - server.last > args.idle or now - started > args.max_time:
                server.shutdown()
                return

    threading.Thread(target=watchdog, daemon=True).start()
    server.serve_forever()
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
