// Our full-surface TypeScript agent on protocol v2, for `cargo xtask
// conformance`: the same agent as `tests/interop/python/agent_full_v2.py`,
// on the connection of the v2 stable bindings' package (`ACP_PACKAGE` names
// its built `dist/index.js`) over its own stdio. It advertises every
// capability of the v2 schema (`capabilities.session` with its prompt
// content, MCP transports, `delete` and `additionalDirectories`) and
// implements each simply: sessions in memory (new, list with the `cwd`
// filter, resume with `replayFrom: start` replaying the conversation, close,
// delete), config options (a mode, a model and a boolean), an agent-handled
// authentication method that always succeeds, a terminal one (offered when
// the client can run it: `--login`, which always succeeds) and
// `auth/logout`. A prompt is acknowledged at once (`running`, then its
// message id) and its turn played after: the user message, a plan, a tool
// call that asks permission (the connection reports `requires_action`
// meanwhile) and runs in a
// terminal, the prompt's words streamed back one chunk at a time, and
// `idle`. `session/cancel` is the connection's: the turn's cancellation
// signal ends it at once with an `idle` the connection marks `cancelled`
// (the agent has no `session/cancel` handler); `session/close` ends it
// the same way, with the `cancelled` stop reason of its own. Nothing of the
// turn follows it.

import { serveAgent } from "./stdio.mjs";

// The terminal authentication method runs the agent with `--login`: nothing to log in to.
if (process.argv.includes("--login")) {
  console.log("Logged in: this agent needs no credentials.");
  process.exit(0);
}

const acp = await import(process.env.ACP_PACKAGE);

const MODES = [
  { value: "ask", name: "Ask" },
  { value: "code", name: "Code" },
];
const MODELS = [
  { value: "small", name: "Small" },
  { value: "large", name: "Large" },
];
// The pause between two steps of a turn, so that a turn lasts long enough to be cancelled.
const PAUSE_MS = 50;

let created = 0;
let messages = 0;
const sessions = new Map();

const invalid = (message) => new acp.RequestError(-32602, message);
const now = () => new Date().toISOString();

function configOptions(session) {
  return [
    { configId: "mode", name: "Mode", category: "mode", type: "select", currentValue: session.mode, options: MODES },
    {
      configId: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: session.model,
      options: MODELS,
    },
    { configId: "brief", name: "Brief answers", type: "boolean", currentValue: session.brief },
  ];
}

function find(sessionId) {
  const session = sessions.get(sessionId);
  if (session === undefined) throw acp.sessionNotFound(sessionId);
  return session;
}

serveAgent(acp, (connection) => {
  const update = (sessionId, update) => connection.notify("session/update", { sessionId, update });
  const state = (sessionId, state, stopReason) =>
    update(sessionId, { sessionUpdate: "state_update", state, ...(stopReason ? { stopReason } : {}) });

  /** Ends `turn`, unless it has ended: its reply joins the history, then `idle` with `stopReason`. */
  const end = (sessionId, session, turn, stopReason) => {
    if (session.turn !== turn) return;
    session.turn = undefined;
    if (turn.text.length > 0) {
      const content = [{ type: "text", text: turn.text.join("") }];
      session.history.push({ sessionUpdate: "agent_message", messageId: turn.reply, content });
    }
    session.updatedAt = now();
    state(sessionId, "idle", stopReason);
    turn.wake();
  };

  /** The turn after its acknowledgement; each step only while the turn lasts. */
  async function play(sessionId, session, turn, prompt) {
    const live = () => session.turn === turn;
    const send = (entry) => {
      if (live()) update(sessionId, entry);
      return live();
    };
    const pause = () =>
      new Promise((resolve) => {
        const timer = setTimeout(resolve, PAUSE_MS);
        turn.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    const words = prompt
      .map((block) => block.text ?? `[${block.type}]`)
      .join(" ")
      .split(/\s+/)
      .filter((word) => word !== "");
    const plan = (status) => ({
      sessionUpdate: "plan_update",
      plan: {
        type: "items",
        planId: `plan-${turn.messageId}`,
        entries: [
          { content: "Count the words", priority: "high", status },
          { content: "Say them back", priority: "medium", status },
        ],
      },
    });
    const call = { sessionUpdate: "tool_call_update", toolCallId: `call-${turn.messageId}` };
    const terminalId = `terminal-${turn.messageId}`;
    try {
      const steps = [
        { sessionUpdate: "user_message", messageId: turn.messageId, content: prompt },
        plan("pending"),
        { ...call, title: "Count the words", kind: "execute", status: "pending" },
      ];
      for (const step of steps) {
        if (!send(step)) return;
        await pause();
      }
      // The connection reports `requires_action` while the client decides, and `running` after.
      const answer = await connection.request("session/request_permission", {
        sessionId,
        title: "Run `wc -w`?",
        subject: { type: "tool_call", toolCall: { toolCallId: call.toolCallId } },
        options: [
          { optionId: "allow", name: "Allow", kind: "allow_once" },
          { optionId: "reject", name: "Reject", kind: "reject_once" },
        ],
      });
      if (!live()) return;
      const allowed = answer.outcome.outcome === "selected" && answer.outcome.optionId === "allow";
      const ran = allowed
        ? [
            { ...call, status: "in_progress", content: [{ type: "terminal", terminalId }] },
            { sessionUpdate: "terminal_update", terminalId, command: "wc -w", cwd: session.cwd },
            {
              sessionUpdate: "terminal_output_chunk",
              terminalId,
              data: Buffer.from(`${words.length}\n`).toString("base64"),
            },
            { sessionUpdate: "terminal_update", terminalId, exitStatus: { exitCode: 0 } },
            { ...call, status: "completed" },
            plan("in_progress"),
          ]
        : [{ ...call, status: "failed" }];
      for (const step of ran) {
        if (!send(step)) return;
        await pause();
      }
      for (const word of allowed ? words : ["Not", "counted."]) {
        const chunk = { type: "text", text: `${word} ` };
        if (!send({ sessionUpdate: "agent_message_chunk", messageId: turn.reply, content: chunk })) return;
        turn.text.push(chunk.text);
        await pause();
      }
      if (!send(plan("completed"))) return;
      end(sessionId, session, turn, "end_turn");
    } catch (error) {
      console.error(`the turn of ${turn.messageId} failed: ${error?.message ?? error}`);
      end(sessionId, session, turn, "error");
    }
  }

  return {
    initialize(params) {
      const authMethods = [
        { type: "agent", methodId: "none", name: "No credentials", description: "Always succeeds." },
      ];
      if (params.capabilities?.auth?.terminal != null)
        authMethods.push({
          type: "terminal",
          methodId: "terminal",
          name: "Terminal login",
          description: "Runs this agent with --login, which always succeeds.",
          args: ["--login"],
        });
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        info: { name: "acp-codegen full-surface agent (TypeScript, v2)", version: "0.1.0" },
        capabilities: {
          session: {
            prompt: { image: {}, audio: {}, embeddedContext: {} },
            mcp: { stdio: {}, http: {} },
            delete: {},
            additionalDirectories: {},
          },
        },
        authMethods,
      };
    },
    authLogin(params) {
      if (params.methodId !== "none") throw invalid(`no authentication method ${params.methodId} for auth/login`);
      return {};
    },
    authLogout() {
      return {};
    },
    sessionNew(params) {
      created += 1;
      const sessionId = `session-${created}`;
      const session = {
        cwd: params.cwd,
        directories: params.additionalDirectories ?? [],
        mcpServers: params.mcpServers ?? [],
        mode: "ask",
        model: "small",
        brief: false,
        history: [],
        updatedAt: now(),
        turn: undefined,
      };
      sessions.set(sessionId, session);
      return { sessionId, configOptions: configOptions(session) };
    },
    sessionResume(params) {
      const session = find(params.sessionId);
      if (params.cwd !== session.cwd) throw invalid(`the session's cwd is ${session.cwd}`);
      const from = params.replayFrom;
      if (from != null && from.type !== "start") throw invalid(`no replay from ${JSON.stringify(from.type)}`);
      session.directories = params.additionalDirectories ?? [];
      session.mcpServers = params.mcpServers ?? [];
      if (from != null) for (const entry of session.history) update(params.sessionId, entry);
      state(params.sessionId, session.turn === undefined ? "idle" : "running");
      return { configOptions: configOptions(session) };
    },
    sessionList(params) {
      const wanted = params.cwd ?? undefined;
      const listed = [];
      for (const [sessionId, session] of sessions) {
        if (wanted !== undefined && session.cwd !== wanted) continue;
        listed.push({
          sessionId,
          cwd: session.cwd,
          title: `Session ${sessionId}`,
          updatedAt: session.updatedAt,
          ...(session.directories.length > 0 ? { additionalDirectories: session.directories } : {}),
        });
      }
      return { sessions: listed };
    },
    sessionClose(params) {
      const session = find(params.sessionId);
      if (session.turn !== undefined) end(params.sessionId, session, session.turn, "cancelled");
      sessions.delete(params.sessionId);
      return {};
    },
    sessionDelete(params) {
      const session = sessions.get(params.sessionId);
      if (session?.turn !== undefined) end(params.sessionId, session, session.turn, "cancelled");
      sessions.delete(params.sessionId);
      return {};
    },
    sessionSetConfigOption(params) {
      const session = find(params.sessionId);
      const { configId, type, value } = params;
      const among = (values) => type === "id" && values.some((known) => known.value === value);
      if (configId === "mode" && among(MODES)) session.mode = value;
      else if (configId === "model" && among(MODELS)) session.model = value;
      else if (configId === "brief" && type === "boolean" && typeof value === "boolean") session.brief = value;
      else throw invalid(`no value ${JSON.stringify(value)} (${type}) for ${configId}`);
      return { configOptions: configOptions(session) };
    },
    sessionPrompt(params) {
      const session = find(params.sessionId);
      if (session.turn !== undefined) throw invalid(`a turn is in progress in ${params.sessionId}`);
      messages += 1;
      const messageId = `message-${messages}`;
      const turn = { messageId, reply: `reply-to-${messageId}`, text: [], wake: () => {} };
      session.turn = turn;
      // On `session/cancel` the turn ends with `idle`, which the connection marks `cancelled`.
      connection
        .cancellation(params.sessionId)
        .addEventListener("abort", () => end(params.sessionId, session, turn, undefined));
      session.history.push({ sessionUpdate: "user_message", messageId, content: params.prompt });
      session.updatedAt = now();
      state(params.sessionId, "running");
      setImmediate(() => void play(params.sessionId, session, turn, params.prompt));
      return { messageId };
    },
    // No terminal or tool call of this agent advertises `capabilities.cancel`.
    terminalCancel(params) {
      find(params.sessionId);
      throw invalid(`terminal ${params.terminalId} is unknown, has exited or cannot be cancelled`);
    },
    toolCallCancel(params) {
      find(params.sessionId);
      throw invalid(`tool call ${params.toolCallId} is unknown, final or cannot be cancelled`);
    },
  };
});
