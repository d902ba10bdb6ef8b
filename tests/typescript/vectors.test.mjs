// Runs every shared vector of a bindings folder through the TypeScript
// package's `roundtrip`: valid values come back equal (member order aside),
// invalid ones throw a `DecodeError` whose every issue is at exactly the
// vector's `pointer`, lenient ones come back as their `expected`, and no
// decode changes the value it was given (decoders copy what they change). The folder comes from the `ACP_BINDINGS` environment
// variable: `ACP_BINDINGS=target/bindings/default node --test tests/typescript/`.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import { jsonEqual, loadBindings } from "./bindings.mjs";

const folder = process.env.ACP_BINDINGS;
if (!folder) {
  throw new Error("set ACP_BINDINGS to a folder written by `cargo xtask generate`");
}
const bindings = await loadBindings(folder);
const vectorsFolder = join(folder, "vectors");
const files = readdirSync(vectorsFolder)
  .filter((name) => name.endsWith(".json"))
  .sort();

const counts = { valid: [0, 0], invalid: [0, 0], lenient: [0, 0] };

/** Names a JSON pointer: the message says `at "<pointer>"`. */
const POINTER = /at "(\/[^"]*)?"/;

function check(kind, vector, run) {
  counts[kind][1] += 1;
  const before = structuredClone(vector.value);
  const problem =
    run() ??
    (jsonEqual(vector.value, before) ? null : `the decode changed its input to ${JSON.stringify(vector.value)}`);
  if (problem === null) {
    counts[kind][0] += 1;
    return null;
  }
  return `${kind} ${vector.name}: ${problem}`;
}

function roundtripValid(type, vector) {
  let actual;
  try {
    actual = bindings.roundtrip(type, vector.value);
  } catch (error) {
    return `threw ${error.message}`;
  }
  return jsonEqual(actual, vector.value) ? null : `came back as ${JSON.stringify(actual)}`;
}

function roundtripInvalid(type, vector) {
  let actual;
  try {
    actual = bindings.roundtrip(type, vector.value);
  } catch (error) {
    if (!(error instanceof bindings.DecodeError)) return `threw something other than a DecodeError: ${error}`;
    const paths = error.issues.map((issue) => issue.path);
    if (paths.length === 0 || paths.some((path) => path !== vector.pointer)) {
      return `the error is at ${JSON.stringify(paths)}, expected ${JSON.stringify(vector.pointer)}: ${error.message}`;
    }
    return POINTER.test(error.message) ? null : `the message names no path: ${error.message}`;
  }
  return `decoded, as ${JSON.stringify(actual)}`;
}

function roundtripLenient(type, vector) {
  let actual;
  try {
    actual = bindings.roundtrip(type, vector.value);
  } catch (error) {
    return `threw ${error.message}`;
  }
  return jsonEqual(actual, vector.expected)
    ? null
    : `came back as ${JSON.stringify(actual)}, expected ${JSON.stringify(vector.expected)}`;
}

test("the vectors folder is not empty", () => {
  assert.ok(files.length > 0, `no vector files in ${vectorsFolder}`);
});

test("an unknown type name throws", () => {
  assert.throws(() => bindings.roundtrip("NoSuchTypeName", {}), /NoSuchTypeName/);
});

test("every method payload type decodes by name", () => {
  const known = new Set(files.map((file) => file.replace(/\.json$/, "")));
  const missing = [];
  for (const [method, uses] of Object.entries(bindings.METHOD_TYPES)) {
    for (const use of Object.values(uses)) {
      for (const typeName of [use.params, use.result].filter((name) => name !== undefined)) {
        const result = bindings.decodeByName(typeName, null);
        if (!known.has(typeName) || result.issues?.some((issue) => issue.message.startsWith("unknown type"))) {
          missing.push(`${method}: ${typeName}`);
        }
      }
    }
  }
  assert.ok(Object.keys(bindings.METHOD_TYPES).length > 0, "no methods");
  assert.deepEqual(missing, []);
});

test("roundtrip-batch.mjs writes one value or error per line", () => {
  const scratch = mkdtempSync(join(tmpdir(), "acp-roundtrip-batch-"));
  try {
    const sample = files
      .map((file) => JSON.parse(readFileSync(join(vectorsFolder, file), "utf8")))
      .find((vectors) => vectors.valid.length > 0 && vectors.invalid.length > 0);
    assert.ok(sample !== undefined, "no type with valid and invalid vectors");
    const lines = [
      { type: sample.type, value: sample.valid[0].value },
      { type: sample.type, value: sample.invalid[0].value },
    ];
    const input = join(scratch, "in.jsonl");
    const output = join(scratch, "out.jsonl");
    writeFileSync(input, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
    execFileSync(process.execPath, [
      fileURLToPath(new URL("./roundtrip-batch.mjs", import.meta.url)),
      folder,
      input,
      output,
    ]);
    const results = readFileSync(output, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    assert.equal(results.length, 2);
    assert.equal(results[0].type, sample.type);
    assert.ok(jsonEqual(results[0].value, sample.valid[0].value), JSON.stringify(results[0]));
    assert.equal(results[1].type, sample.type);
    assert.match(results[1].error, POINTER);
    assert.equal(results[1].pointer, sample.invalid[0].pointer);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

for (const file of files) {
  const vectors = JSON.parse(readFileSync(join(vectorsFolder, file), "utf8"));
  test(vectors.type, () => {
    const problems = [
      ...vectors.valid.map((vector) => check("valid", vector, () => roundtripValid(vectors.type, vector))),
      ...vectors.invalid.map((vector) => check("invalid", vector, () => roundtripInvalid(vectors.type, vector))),
      ...vectors.lenient.map((vector) => check("lenient", vector, () => roundtripLenient(vectors.type, vector))),
    ].filter((problem) => problem !== null);
    assert.deepEqual(problems, []);
  });
}

after(() => {
  const total = Object.values(counts).reduce((sum, [, all]) => sum + all, 0);
  const passed = Object.values(counts).reduce((sum, [ok]) => sum + ok, 0);
  const parts = Object.entries(counts).map(([kind, [ok, all]]) => `${kind} ${ok}/${all}`);
  console.log(`vectors passed: ${passed}/${total} (${parts.join(", ")}) from ${files.length} types`);
});
