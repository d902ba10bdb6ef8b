// The TypeScript test agent: the one implementation of the generated
// package's agent handlers that the connection tests
// (`connection.test.mjs`), the interop agents
// (`tests/interop/typescript/agent.mjs`, `agent-v2.mjs`), the bench's
// connection program (`xtask/src/bench/programs/connection.mjs`, which the
// bench writes next to a copy of this file) and the fuzz harness
// (`fuzz/connection.fuzz.mjs`) serve. It plays either protocol version, the
// one of the package it is given (`acp`, whose `PROTOCOL_VERSION` it reads).
//
// `scriptedAgent(acp, options)` returns the `(end) => handlers` that
// `connectAgent` takes. The agent opens a session per `session/new`
// (`session-1`, `session-2`, ...) and answers a prompt on any other session
// with the schema's resource-not-found. A prompt plays a turn: on v1 inside
// the prompt call, answered `end_turn`; on v2 after the call was
// acknowledged (`running`, then the response with the prompt's message id),
// ended by `idle`. The turn is one of:
//
// - `echo` (the default): chunks of the prompt's first text,
//   `"<text> part <n>"`, as many as `chunks()` says, then (v1) a permission
//   request when `ask()` says so; on v2, all of its chunks answer one
//   message, `reply-<text>`, and when `lateIdle()` says so a second idle
//   snapshot (background work) follows while no later prompt was read.
// - `notes`: the interop turn on `notes.txt` in the session's folder. v1:
//   a chunk, a tool call that reads the file (when the client can), a
//   permission request to edit it, the edit (when allowed and the client
//   can write), a closing chunk. v2: the prompt echoed as the user's
//   message, a chunk, a tool call in progress, a permission request on it,
//   the tool call's end (completed when allowed, else failed), a closing
//   chunk; a failed call ends the turn with `error`.
//
// Options, each for the program that needs it:
// - `info`: the agent's name and version in its `initialize` answer.
// - `capabilities`: what its `initialize` answer advertises (none by default).
// - `commands`: `session/new` sends the session's available commands
//   before it answers (session-scoped: rule R1 holds them until the
//   client's `session/ready`).
// - `chunks`, `ask`, `lateIdle`: the `echo` turn's choices (1, no, no).
// - `pause(most)`: awaited between the turn's steps, and after
//   `session/new`'s commands (the connection tests' random waits).
// - `played(text, chunks)`: told when an `echo` turn sent all its chunks.
// - `anySession`: a prompt on any session plays its turn (the fuzz harness,
//   whose inputs prompt without opening a session).
// - `notified(method)`: the agent handles every notification and answers
//   extension requests with `null`, telling `notified` of each notification
//   (the fuzz harness accounts for every line it reads).

import { join } from "node:path";

const OPTIONS = [
  { optionId: "allow", name: "Allow", kind: "allow_once" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

/** Whether a permission answer selected "allow". */
function allowed(answer) {
  return answer.outcome.outcome === "selected" && answer.outcome.optionId === "allow";
}

/** The text of a prompt's first block ("" without one). */
function textOf(prompt) {
  return prompt[0]?.type === "text" ? prompt[0].text : "";
}

export function scriptedAgent(acp, options = {}) {
  const v2 = acp.PROTOCOL_VERSION === 2;
  const { info = { name: "acp-codegen test agent (TypeScript)", version: "0.1.0" } } = options;
  const chunks = options.chunks ?? (() => 1);
  const ask = options.ask ?? (() => false);
  const lateIdle = options.lateIdle ?? (() => false);
  const pause = options.pause ?? (() => undefined);
  const played = options.played ?? (() => undefined);
  return (end) => {
    let client = undefined;
    let opened = 0;
    let messages = 0;
    /** The folder of each open session. */
    const sessions = new Map();
    /** Prompts read per session: a late idle snapshot is sent only while no new one was. */
    const prompted = new Map();
    const update = (sessionId, value) => end.notify("session/update", { sessionId, update: value });
    const permission = (sessionId, toolCallId, title) =>
      end.request(
        "session/request_permission",
        v2
          ? {
              sessionId,
              title: `${title}?`,
              subject: { type: "tool_call", toolCall: { toolCallId } },
              options: OPTIONS,
            }
          : { sessionId, toolCall: { toolCallId, title, kind: "edit" }, options: OPTIONS },
      );

    const echoV1 = async (sessionId, text) => {
      const count = chunks();
      for (let index = 0; index < count; index += 1) {
        await pause(3);
        update(sessionId, {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: `${text} part ${index}` },
        });
      }
      if (ask()) await permission(sessionId, "call-1", "Edit");
      played(text, count);
    };

    const notesV1 = async (sessionId) => {
      const notes = join(sessions.get(sessionId), "notes.txt");
      update(sessionId, {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "Reading notes.txt." },
      });
      update(sessionId, {
        sessionUpdate: "tool_call",
        toolCallId: "call-1",
        title: "Read notes.txt",
        kind: "read",
        status: "in_progress",
      });
      const text = client?.fs?.readTextFile
        ? (await end.request("fs/read_text_file", { sessionId, path: notes })).content
        : "";
      update(sessionId, {
        sessionUpdate: "tool_call_update",
        toolCallId: "call-1",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text } }],
      });
      const edit = allowed(await permission(sessionId, "call-2", "Edit notes.txt"));
      if (edit && client?.fs?.writeTextFile)
        await end.request("fs/write_text_file", { sessionId, path: notes, content: `${text}edited\n` });
      update(sessionId, {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: edit ? "Edited." : "Left as it was." },
      });
    };

    const echoV2 = async (sessionId, text) => {
      const count = chunks();
      for (let index = 0; index < count; index += 1) {
        await pause(3);
        update(sessionId, {
          sessionUpdate: "agent_message_chunk",
          messageId: `reply-${text}`,
          content: { type: "text", text: `${text} part ${index}` },
        });
      }
      played(text, count);
      update(sessionId, { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
      if (lateIdle()) {
        const turn = prompted.get(sessionId);
        await pause(6);
        if (prompted.get(sessionId) === turn)
          update(sessionId, { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn", background: [] });
      }
    };

    const notesV2 = async (sessionId, prompt, messageId) => {
      const chunk = (text) =>
        update(sessionId, {
          sessionUpdate: "agent_message_chunk",
          messageId: `reply-to-${messageId}`,
          content: { type: "text", text },
        });
      let stopReason = "end_turn";
      try {
        update(sessionId, { sessionUpdate: "user_message", messageId, content: prompt });
        chunk("Editing notes.txt.");
        update(sessionId, {
          sessionUpdate: "tool_call_update",
          toolCallId: "call-1",
          title: "Edit notes.txt",
          kind: "edit",
          status: "in_progress",
        });
        const edit = allowed(await permission(sessionId, "call-1", "Edit notes.txt"));
        update(sessionId, {
          sessionUpdate: "tool_call_update",
          toolCallId: "call-1",
          status: edit ? "completed" : "failed",
        });
        chunk(edit ? "Edited." : "Left as it was.");
      } catch (error) {
        console.error(`the turn of ${messageId} failed: ${error?.message ?? error}`);
        stopReason = "error";
      }
      update(sessionId, { sessionUpdate: "state_update", state: "idle", stopReason });
    };

    const open = (params) => {
      opened += 1;
      const sessionId = `session-${opened}`;
      sessions.set(sessionId, params.cwd);
      return sessionId;
    };
    const known = (sessionId) => {
      if (!options.anySession && !sessions.has(sessionId)) throw acp.sessionNotFound(sessionId);
    };

    const handlers = {
      initialize: (params) => {
        client = params.clientCapabilities;
        const capabilities =
          options.capabilities === undefined
            ? {}
            : { [v2 ? "capabilities" : "agentCapabilities"]: options.capabilities };
        return { protocolVersion: acp.PROTOCOL_VERSION, [v2 ? "info" : "agentInfo"]: info, ...capabilities };
      },
      sessionNew: options.commands
        ? async (params) => {
            const sessionId = open(params);
            const commands = {
              sessionUpdate: "available_commands_update",
              availableCommands: [{ name: "explain", description: "Explains the code" }],
            };
            update(sessionId, commands);
            await pause(3);
            return { sessionId };
          }
        : (params) => ({ sessionId: open(params) }),
      sessionPrompt: v2
        ? ({ sessionId, prompt }) => {
            known(sessionId);
            messages += 1;
            const text = textOf(prompt);
            const messageId = options.turn === "notes" ? `message-${messages}` : `message-${text}`;
            prompted.set(sessionId, (prompted.get(sessionId) ?? 0) + 1);
            update(sessionId, { sessionUpdate: "state_update", state: "running" });
            const turn =
              options.turn === "notes" ? () => notesV2(sessionId, prompt, messageId) : () => echoV2(sessionId, text);
            setImmediate(() => void turn());
            return { messageId };
          }
        : async ({ sessionId, prompt }) => {
            known(sessionId);
            if (options.turn === "notes") await notesV1(sessionId);
            else await echoV1(sessionId, textOf(prompt));
            return { stopReason: "end_turn" };
          },
    };
    if (v2) {
      // `session` offers these with `session/new` and `session/prompt`: the
      // end advertises it only when the agent answers them all.
      handlers.sessionList = () => ({ sessions: [] });
      handlers.sessionResume = ({ sessionId }) => {
        known(sessionId);
        return {};
      };
      handlers.sessionClose = ({ sessionId }) => {
        sessions.delete(sessionId);
        return {};
      };
    }
    if (options.notified) {
      for (const [handler, method] of [
        ["sessionCancel", "session/cancel"],
        ["sessionReady", "session/ready"],
        ["cancelRequest", "$/cancel_request"],
        ["extensionNotification", "extension"],
      ])
        handlers[handler] = () => options.notified(method);
      handlers.extensionRequest = () => null;
    }
    return handlers;
  };
}
