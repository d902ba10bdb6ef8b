// Our full-surface TypeScript agent, for `cargo xtask conformance`: the
// same agent as `tests/interop/python/agent_full.py`, on the generated
// package's connection (`ACP_PACKAGE` names its built `dist/index.js`) over
// its own stdio. It advertises every capability of the v1 schema the
// conformance kit checks: sessions in memory (load with replay, resume,
// list, close, delete), modes, config options, a streamed turn around a tool
// call that ends `cancelled` on `session/cancel` or `session/close`, an
// authentication method that always succeeds, and `logout`.

import { serveAgent } from "./stdio.mjs";

const acp = await import(process.env.ACP_PACKAGE);

const MODES = [
  { id: "ask", name: "Ask", description: "Asks before acting." },
  { id: "code", name: "Code", description: "Acts without asking." },
];
const MODELS = [
  { value: "small", name: "Small" },
  { value: "large", name: "Large" },
];
// The pause between two streamed chunks, so that a turn lasts long enough to be cancelled.
const PAUSE_MS = 50;

let client = {};
let created = 0;
const sessions = new Map();

const invalid = (message) => new acp.RequestError(-32602, message);

function configOptions(session) {
  const options = [
    { id: "model", name: "Model", category: "model", type: "select", currentValue: session.model, options: MODELS },
  ];
  if (client?.session?.configOptions?.boolean != null)
    options.push({ id: "brief", name: "Brief answers", type: "boolean", currentValue: session.brief });
  return options;
}

const state = (session) => ({
  modes: { currentModeId: session.mode, availableModes: MODES },
  configOptions: configOptions(session),
});

function find(sessionId) {
  const session = sessions.get(sessionId);
  if (session === undefined) throw new acp.RequestError(-32002, `no session ${sessionId}`);
  return session;
}

serveAgent(acp, (connection) => {
  const update = (sessionId, update, record = true) => {
    const session = sessions.get(sessionId);
    if (record && session !== undefined) {
      session.history.push(update);
      session.updatedAt = new Date().toISOString();
    }
    connection.notify("session/update", { sessionId, update });
  };
  const stop = (session) => {
    session?.cancel?.();
  };
  return {
    async initialize(params) {
      client = params.clientCapabilities ?? {};
      return {
        protocolVersion: 1,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: true, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {}, delete: {}, additionalDirectories: {}, resume: {}, close: {} },
          auth: { logout: {} },
        },
        authMethods: [{ id: "none", name: "No credentials", description: "Always succeeds." }],
        agentInfo: { name: "acp-codegen full-surface agent (TypeScript)", version: "0.1.0" },
      };
    },
    async authenticate(params) {
      if (params.methodId !== "none") throw invalid("unknown authentication method");
      return {};
    },
    async logout() {
      return {};
    },
    async sessionNew(params) {
      created += 1;
      const sessionId = `session-${created}`;
      const session = {
        cwd: params.cwd,
        directories: params.additionalDirectories ?? [],
        mode: "ask",
        model: "small",
        brief: false,
        history: [],
        updatedAt: new Date().toISOString(),
        cancel: undefined,
      };
      sessions.set(sessionId, session);
      return { sessionId, ...state(session) };
    },
    async sessionLoad(params) {
      const session = find(params.sessionId);
      session.cwd = params.cwd;
      for (const entry of session.history) update(params.sessionId, entry, false);
      return state(session);
    },
    async sessionResume(params) {
      const session = find(params.sessionId);
      session.cwd = params.cwd;
      return state(session);
    },
    async sessionList(params) {
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
    async sessionClose(params) {
      stop(find(params.sessionId));
      sessions.delete(params.sessionId);
      return {};
    },
    async sessionDelete(params) {
      stop(sessions.get(params.sessionId));
      sessions.delete(params.sessionId);
      return {};
    },
    async sessionSetMode(params) {
      const session = find(params.sessionId);
      if (!MODES.some((mode) => mode.id === params.modeId)) throw invalid(`no mode ${params.modeId}`);
      session.mode = params.modeId;
      update(params.sessionId, { sessionUpdate: "current_mode_update", currentModeId: params.modeId }, false);
      return {};
    },
    async sessionSetConfigOption(params) {
      const session = find(params.sessionId);
      if (params.configId === "model" && MODELS.some((model) => model.value === params.value))
        session.model = params.value;
      else if (params.configId === "brief" && typeof params.value === "boolean") session.brief = params.value;
      else throw invalid(`no value ${JSON.stringify(params.value)} for ${params.configId}`);
      return { configOptions: configOptions(session) };
    },
    sessionCancel(params) {
      stop(sessions.get(params.sessionId));
    },
    async sessionPrompt(params) {
      const sessionId = params.sessionId;
      const session = find(sessionId);
      let cancelled = false;
      let wake = () => {};
      const cancel = () => {
        cancelled = true;
        wake();
      };
      session.cancel = cancel;
      try {
        for (const block of params.prompt)
          session.history.push({ sessionUpdate: "user_message_chunk", content: block });
        const words = params.prompt
          .map((block) => block.text ?? `[${block.type}]`)
          .join(" ")
          .split(/\s+/)
          .filter((word) => word !== "");
        const call = `call-${session.history.length}`;
        const steps = [
          { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "Reading the prompt." } },
          { sessionUpdate: "tool_call", toolCallId: call, title: "Count the words", kind: "think" },
          {
            sessionUpdate: "tool_call_update",
            toolCallId: call,
            status: "completed",
            content: [{ type: "content", content: { type: "text", text: `${words.length} words` } }],
          },
          ...words.map((word) => ({
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: `${word} ` },
          })),
        ];
        for (const step of steps) {
          if (cancelled) break;
          update(sessionId, step);
          await new Promise((resolve) => {
            const timer = setTimeout(resolve, PAUSE_MS);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
        return { stopReason: cancelled ? "cancelled" : "end_turn" };
      } finally {
        if (session.cancel === cancel) session.cancel = undefined;
      }
    },
  };
});
