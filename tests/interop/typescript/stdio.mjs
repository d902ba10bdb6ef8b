// What our TypeScript interop programs share, whatever the protocol
// version: the clients' command line, the trace they record, the permission
// answer, and the stdio plumbing of both ends (a client runs its agent as a
// child process; an agent serves its own stdio). The protocol's own turn
// lives in each client program and, for the agents, in the TypeScript test
// agent (`tests/typescript/scripted-agent.mjs`), on the generated package of its
// protocol version (`acp`, which the program imports from `ACP_PACKAGE`).

import { spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import { createInterface } from "node:readline";

/**
 * `--cwd DIR [--trace FILE] [--authenticate METHOD] [--prompt TEXT]... -- AGENT [ARGS]...`
 * (`--authenticate` where `authenticate` is set); exits 2 with `usage` on a bad line.
 */
export function clientOptions(usage, { authenticate }) {
  const args = process.argv.slice(2);
  const options = { prompts: [] };
  for (let index = 0; index < args.length; index++) {
    const argument = args[index];
    if (argument === "--") {
      options.agent = args.slice(index + 1);
      break;
    }
    const value = args[++index];
    if (argument === "--cwd") options.cwd = value;
    else if (argument === "--trace") options.trace = value;
    else if (argument === "--authenticate" && authenticate) options.authenticate = value;
    else if (argument === "--prompt") options.prompts.push(value);
    else {
      console.error(`unknown argument ${argument}`);
      process.exit(2);
    }
  }
  if (!options.agent?.length || !options.cwd || !isAbsolute(options.cwd)) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  if (options.prompts.length === 0) options.prompts.push("Read notes.txt, then update it.");
  return options;
}

/** A function that writes each message with its direction to `path` (emptied first), as `check-trace` reads them. */
export function recorder(path) {
  if (path) writeFileSync(path, "");
  return (direction, line) => {
    if (!path) return;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      message = line;
    }
    appendFileSync(path, `${JSON.stringify({ direction, message })}\n`);
  };
}

/** The first "allow once" option (else the first), or `cancelled` without options. */
export function permissionOutcome(params) {
  const chosen = params.options.find((option) => option.kind === "allow_once") ?? params.options[0];
  return {
    outcome: chosen === undefined ? { outcome: "cancelled" } : { outcome: "selected", optionId: chosen.optionId },
  };
}

/**
 * Runs the agent command of `options`, connects a client's end with
 * `handlers` to it, plays the session (`play(client, step)` returns the
 * summary printed as JSON; `step(what, call)` names a failed call) and exits
 * 0, or 1 naming the first failure and what the connection dropped (`seen.dropped`).
 */
export async function runClient(acp, options, seen, handlers, play) {
  const record = recorder(options.trace);
  // A process group of its own (`detached`), so that its children stop with it.
  const agent = spawn(options.agent[0], options.agent.slice(1), {
    cwd: options.cwd,
    stdio: ["pipe", "pipe", "inherit"],
    detached: true,
  });
  const stop = () => {
    try {
      process.kill(-agent.pid, "SIGKILL");
    } catch {
      // The group has ended already.
    }
  };
  const client = acp.connectClient(
    () => handlers,
    (text) => {
      record("client-to-agent", text);
      agent.stdin.write(`${text}\n`);
    },
    { dropped: ({ method, error }) => seen.dropped.push(`${method}: ${error.message}`) },
  );
  createInterface({ input: agent.stdout }).on("line", (line) => {
    if (line.trim() === "") return;
    record("agent-to-client", line);
    void client.receive(line);
  });
  agent.on("exit", () => client.close(new Error("the agent exited")));
  agent.stdin.on("error", (error) => client.close(error));
  const step = async (what, call) => {
    try {
      return await call();
    } catch (error) {
      throw new Error(`${what}: ${error?.message ?? error} ${JSON.stringify(error?.data ?? "")}`);
    }
  };
  try {
    console.log(JSON.stringify(await play(client, step)));
    stop();
    process.exit(0);
  } catch (error) {
    console.error(`FAIL: ${error.message} (dropped: ${JSON.stringify(seen.dropped)})`);
    stop();
    process.exit(1);
  }
}

/**
 * Serves an agent's end with the handlers `agent(connection)` makes over
 * this process's stdio, recording every message to `ACP_INTEROP_TRACE`
 * when it is set; exits when the client closes its side.
 */
export function serveAgent(acp, agent) {
  const record = recorder(process.env.ACP_INTEROP_TRACE);
  const end = acp.connectAgent(agent, (text) => {
    record("agent-to-client", text);
    process.stdout.write(`${text}\n`);
  });
  createInterface({ input: process.stdin })
    .on("line", (line) => {
      if (line.trim() === "") return;
      record("client-to-agent", line);
      void end.receive(line);
    })
    .on("close", () => process.exit(0));
}
