// The fuzz harness's check (`fuzz` of `fuzz/connection.fuzz.mjs`) on every
// fuzz seed, without Jazzer.js and without mutation: each file of the
// folder `ACP_FUZZ_SEEDS` names (written by `cargo xtask test` from the
// hostile wire table and the real captures) must leave both ends neither
// crashed, hung, grown without bound nor with a line unanswered and
// unreported. Each seed is a test named by its file. Run by `cargo xtask
// test` on the default schema's bindings (`ACP_BINDINGS`), the schema the
// harness is written on; the harness loads the package built in
// `typescript/dist`, which `loadBindings` first checks is the one installed.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { loadBindings } from "./bindings.mjs";

const folder = process.env.ACP_BINDINGS;
if (!folder) throw new Error("set ACP_BINDINGS to a folder written by `cargo xtask generate`");
const seeds = process.env.ACP_FUZZ_SEEDS;
if (!seeds) throw new Error("set ACP_FUZZ_SEEDS to the folder of fuzz seeds `cargo xtask test` writes");
await loadBindings(folder);
const { fuzz } = await import("./fuzz/connection.fuzz.mjs");

const files = readdirSync(seeds)
  .filter((name) => statSync(join(seeds, name)).isFile())
  .sort();
if (files.length === 0) throw new Error(`no fuzz seeds in ${seeds}`);

for (const name of files) {
  test(`the fuzz harness passes on the seed ${name}`, async () => {
    await fuzz(readFileSync(join(seeds, name)));
  });
}
