#!/usr/bin/env node
// Independent test values for the ACP bindings, made from the RAW JSON Schema
// (draft 2020-12, types under `$defs`) and not from the code generator's IR.
//
//   node values.mjs --schema FILE --seed N --valid-target N --out FILE.jsonl
//                   [--types A,B] [--extras-per-kind N]
//
// This file owns the command line, the per-type buckets of distinct values, how
// the valid-value target is spread over the types, the output lines and the
// summary on stderr. Values come from json-schema-faker (lib/faker.mjs), from a
// minimal fallback generator for types it cannot do (lib/fallback.mjs) and from
// adversarial edits of valid values (lib/extras.mjs); every value is classified
// by ajv against `#/$defs/<Type>` (lib/schema.mjs) and annotated
// (lib/annotate.mjs). A line:
//   {"type", "name": "<origin>-<n>", "kind": "valid"|"invalid", "detail"?,
//    "errors"? (invalid ones), "repairable", "skipArrays", "intFormatIssues"?,
//    "doubleLossy"? (a number text a reading as doubles loses), "value"}
// Same arguments, same bytes.

import fs from "node:fs";
import { parseArgs } from "node:util";
import { canonical, doubleLossy, toJson } from "./lib/json.mjs";
import { SchemaIndex } from "./lib/schema.mjs";
import { FakerSource } from "./lib/faker.mjs";
import { minimalValue } from "./lib/fallback.mjs";
import { EXTRA_KINDS, deriveExtras } from "./lib/extras.mjs";
import { annotate } from "./lib/annotate.mjs";

const ORIGINS = ["generator", "fallback", ...EXTRA_KINDS];
/** Valid values per type used as bases for the extras. */
const MAX_BASES = 32;
/** Rounds of handing the unmet part of the target to types that can still produce. */
const MAX_TOP_UP_ROUNDS = 8;

function readOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      schema: { type: "string" },
      seed: { type: "string", default: "1" },
      "valid-target": { type: "string", default: "12000" },
      out: { type: "string" },
      types: { type: "string" },
      "extras-per-kind": { type: "string", default: "40" },
    },
  });
  if (!values.schema || !values.out) {
    throw new Error(
      "usage: node values.mjs --schema FILE --seed N --valid-target N --out FILE.jsonl [--types A,B] [--extras-per-kind N]",
    );
  }
  const count = (name) => {
    const n = Number(values[name]);
    if (!Number.isSafeInteger(n) || n < 0)
      throw new Error(`--${name} needs a non-negative integer, got ${values[name]}`);
    return n;
  };
  return {
    schema: values.schema,
    out: values.out,
    seed: count("seed"),
    validTarget: count("valid-target"),
    extrasPerKind: count("extras-per-kind"),
    types: values.types
      ?.split(",")
      .map((t) => t.trim())
      .filter(Boolean),
  };
}

/** The distinct values of one type, in the order they were made. */
class TypeBucket {
  constructor(index, type) {
    this.index = index;
    this.type = type;
    this.entries = [];
    this.seen = new Set();
    this.validCount = 0;
    this.attempts = 0;
    this.sinceNew = 0;
    this.exhausted = false;
    this.thrown = 0;
    this.problem = undefined; // first reason json-schema-faker failed, if it did
  }

  /** Classifies and keeps a value unless an equal one is already kept; returns the entry or null. */
  offer(origin, value, detail) {
    const key = canonical(value);
    if (this.seen.has(key)) return null;
    this.seen.add(key);
    const { valid, errors } = this.index.classify(this.type, value);
    const entry = { origin, value, valid, errors, detail };
    this.entries.push(entry);
    if (valid) this.validCount++;
    return entry;
  }

  noteProblem(reason) {
    this.problem ??= reason;
  }

  validValues() {
    return this.entries.filter((e) => e.valid).map((e) => e.value);
  }
}

/** Fills every bucket to an equal share, then hands what is missing to the types that still produce. */
function generateAll(source, buckets, target) {
  const share = Math.max(1, Math.ceil(target / buckets.length));
  for (const b of buckets) source.fill(b, share);
  for (let round = 0; round < MAX_TOP_UP_ROUNDS; round++) {
    const missing = target - buckets.reduce((n, b) => n + b.validCount, 0);
    const open = buckets.filter((b) => !b.exhausted);
    if (missing <= 0 || open.length === 0) return;
    const extra = Math.ceil(missing / open.length);
    for (const b of open) source.fill(b, b.validCount + extra);
  }
}

/** Types json-schema-faker gave no valid value get one from the minimal generator. */
function addFallbacks(index, buckets) {
  const needed = [];
  for (const b of buckets.filter((x) => x.validCount === 0)) {
    const entry = b.offer("fallback", minimalValue(index, index.defNode(b.type)));
    const reason = `${b.attempts} attempts, ${b.thrown} threw; first problem: ${b.problem ?? "none"}`;
    needed.push({ type: b.type, reason, fallbackValid: entry?.valid ?? false });
  }
  return needed;
}

function addExtras(index, bucket, cap) {
  const bases = bucket.validValues().slice(0, MAX_BASES);
  deriveExtras(index, bucket.type, bases, cap, (kind, value, detail) => bucket.offer(kind, value, detail) !== null);
}

function outputLine(index, type, name, entry) {
  const fields = [
    `"type":${JSON.stringify(type)}`,
    `"name":${JSON.stringify(name)}`,
    `"kind":${JSON.stringify(entry.valid ? "valid" : "invalid")}`,
  ];
  if (entry.detail !== undefined) fields.push(`"detail":${JSON.stringify(entry.detail)}`);
  const { repairable, skipArrays, intFormatIssues } = annotate(index, type, entry.value);
  if (!entry.valid) fields.push(`"errors":${JSON.stringify(entry.errors)}`);
  fields.push(`"repairable":${JSON.stringify(repairable)}`, `"skipArrays":${JSON.stringify(skipArrays)}`);
  if (intFormatIssues.length) fields.push(`"intFormatIssues":${JSON.stringify(intFormatIssues)}`);
  if (doubleLossy(entry.value)) fields.push(`"doubleLossy":true`);
  fields.push(`"value":${toJson(entry.value)}`);
  return `{${fields.join(",")}}\n`;
}

function writeOutput(index, buckets, file) {
  const fd = fs.openSync(file, "w");
  try {
    for (const b of buckets) {
      const counters = new Map();
      const lines = b.entries.map((entry) => {
        const n = (counters.get(entry.origin) ?? 0) + 1;
        counters.set(entry.origin, n);
        return outputLine(index, b.type, `${entry.origin}-${n}`, entry);
      });
      fs.writeSync(fd, lines.join(""));
    }
  } finally {
    fs.closeSync(fd);
  }
}

function summarize(options, buckets, fallbacks, seconds) {
  const byOrigin = new Map(ORIGINS.map((o) => [o, { valid: 0, invalid: 0 }]));
  for (const b of buckets) for (const e of b.entries) byOrigin.get(e.origin)[e.valid ? "valid" : "invalid"]++;
  const spread = (counts) => {
    const sorted = [...counts].sort((a, b) => a - b);
    return `min ${sorted[0]} / median ${sorted[Math.floor(sorted.length / 2)]} / max ${sorted.at(-1)}`;
  };
  const totalValid = [...byOrigin.values()].reduce((n, c) => n + c.valid, 0);
  const totalInvalid = [...byOrigin.values()].reduce((n, c) => n + c.invalid, 0);
  const lines = [
    `schema ${options.schema}: ${buckets.length} types, seed ${options.seed}, ${seconds.toFixed(1)} s`,
    "origin       valid  invalid",
    ...[...byOrigin].map(([o, c]) => `${o.padEnd(10)} ${String(c.valid).padStart(7)} ${String(c.invalid).padStart(8)}`),
    `distinct values per type: ${spread(buckets.map((b) => b.entries.length))}`,
    `distinct valid values per type: ${spread(buckets.map((b) => b.validCount))}`,
    `total valid ${totalValid}, total invalid ${totalInvalid} (valid target ${options.validTarget})`,
    `json-schema-faker: ${buckets.reduce((n, b) => n + b.attempts, 0)} attempts, ${buckets.reduce((n, b) => n + b.thrown, 0)} threw, ` +
      `${buckets.filter((b) => b.exhausted).length} types ran out of new values`,
  ];
  if (fallbacks.length === 0) lines.push("every type got a valid value from json-schema-faker");
  for (const f of fallbacks) {
    lines.push(
      `no valid value from json-schema-faker: ${f.type}: ${f.reason}; fallback ${f.fallbackValid ? "valid" : "ALSO INVALID"}`,
    );
  }
  process.stderr.write(`${lines.join("\n")}\n`);
}

function main() {
  const started = process.hrtime.bigint();
  const options = readOptions(process.argv.slice(2));
  const doc = JSON.parse(fs.readFileSync(options.schema, "utf8"));
  const index = new SchemaIndex(doc);
  const unknown = (options.types ?? []).filter((t) => !(t in doc.$defs));
  if (unknown.length) throw new Error(`not in $defs: ${unknown.join(", ")}`);
  const names = options.types ? [...new Set(options.types)].sort() : index.typeNames();
  const buckets = names.map((t) => new TypeBucket(index, t));
  generateAll(new FakerSource(doc, options.seed), buckets, options.validTarget);
  const fallbacks = addFallbacks(index, buckets);
  for (const b of buckets) addExtras(index, b, options.extrasPerKind);
  writeOutput(index, buckets, options.out);
  summarize(options, buckets, fallbacks, Number(process.hrtime.bigint() - started) / 1e9);
}

try {
  main();
} catch (e) {
  process.stderr.write(`values.mjs: ${e.message}\n`);
  process.exit(2);
}
