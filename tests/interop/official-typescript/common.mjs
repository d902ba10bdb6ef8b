// What the programs on the official TypeScript SDK share, v1 and v2: the
// clients' command line (our clients') and the recording of every message
// (the SDK has no hook for them, so its message stream is wrapped).

import { appendFileSync, writeFileSync } from "node:fs";
import { isAbsolute } from "node:path";

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

/**
 * A function making, for a direction, a stream that passes the SDK's
 * messages on and writes each to `path` (emptied first), as `check-trace`
 * reads them; nothing is written without a path.
 */
export function recorder(path) {
  if (path) writeFileSync(path, "");
  return (direction) =>
    new TransformStream({
      transform(message, controller) {
        if (path) appendFileSync(path, `${JSON.stringify({ direction, message })}\n`);
        controller.enqueue(message);
      },
    });
}
