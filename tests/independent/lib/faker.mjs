// Driving json-schema-faker: the copy of the schema it is given, the seed and
// options of every attempt, and filling a type's bucket up to a quota of
// distinct valid values.
//
// The copy differs from the raw schema in two ways, both because of how
// json-schema-faker 0.6 reads schemas (values are still classified by ajv
// against the RAW schema):
// - annotations (`x-*`, `description`, `title`, `discriminator`, `default`, ...)
//   are dropped: in an object schema without `properties` json-schema-faker
//   writes every unknown keyword out as a member (`env` became
//   `{"x-deserialize-default-on-null": true}`);
// - a "filled" variant adds `minProperties: 1` to map-like objects (no
//   `properties`, `additionalProperties` not false), which json-schema-faker
//   otherwise always generates empty;
// - a `$ref` with sibling keywords (2020-12 applies both; the default schema's
//   tagged unions are written so) becomes `allOf: [{$ref}]` beside them, since
//   json-schema-faker otherwise follows the `$ref` alone and never writes the
//   tag the siblings require.

import { generateSync } from "json-schema-faker";
import { isObject } from "./json.mjs";

const ANNOTATIONS = new Set([
  "$comment",
  "contentEncoding",
  "contentMediaType",
  "default",
  "deprecated",
  "description",
  "discriminator",
  "examples",
  "readOnly",
  "title",
  "writeOnly",
]);
const SCHEMA_MAPS = new Set(["$defs", "properties", "patternProperties", "dependentSchemas"]);
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const SCHEMA_SINGLES = new Set([
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
]);

/**
 * Options cycled through by attempt number: optional members always / often /
 * rarely present, shallow and deep recursion, empty or filled maps.
 */
const ATTEMPT_OPTIONS = [
  { alwaysFakeOptionals: true, maxDepth: 5, fillMaps: false },
  { optionalsProbability: 0.5, maxDepth: 5, fillMaps: true },
  { alwaysFakeOptionals: true, maxDepth: 8, fillMaps: true },
  { optionalsProbability: 0.2, maxDepth: 3, fillMaps: false },
  { optionalsProbability: 0.8, maxDepth: 6, fillMaps: true, maxDefaultItems: 1 },
  { optionalsProbability: 0.5, maxDepth: 4, fillMaps: false, maxDefaultItems: 5 },
];

/** Consecutive attempts without a new distinct valid value after which a type counts as exhausted. */
const STALE_LIMIT = 30;

function forFaker(node, fillMaps) {
  if (!isObject(node)) return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k.startsWith("x-") || ANNOTATIONS.has(k)) continue;
    if (SCHEMA_MAPS.has(k)) out[k] = Object.fromEntries(Object.entries(v).map(([n, s]) => [n, forFaker(s, fillMaps)]));
    else if (SCHEMA_LISTS.has(k)) out[k] = v.map((s) => forFaker(s, fillMaps));
    else if (SCHEMA_SINGLES.has(k)) out[k] = forFaker(v, fillMaps);
    else out[k] = v;
  }
  const isMap =
    node.properties === undefined && node.additionalProperties !== undefined && node.additionalProperties !== false;
  if (fillMaps && isMap) out.minProperties = Math.max(1, node.minProperties ?? 0);
  if (typeof out.$ref === "string" && Object.keys(out).length > 1) {
    out.allOf = [{ $ref: out.$ref }, ...(out.allOf ?? [])];
    delete out.$ref;
  }
  return out;
}

function localRefs(node, found = new Set()) {
  if (Array.isArray(node)) node.forEach((n) => localRefs(n, found));
  else if (isObject(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/")) found.add(v.slice("#/$defs/".length));
      else localRefs(v, found);
    }
  }
  return found;
}

/** 32-bit FNV-1a of a string, never 0 (json-schema-faker treats a missing seed as 1). */
export function hash32(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0 || 1;
}

export class FakerSource {
  constructor(doc, seed) {
    this.seed = seed;
    this.defs = { plain: forFaker(doc, false).$defs, filled: forFaker(doc, true).$defs };
    this.closures = new Map();
  }

  /** Names of the `$defs` a type reaches through `$ref`, itself included. */
  closure(name) {
    if (!this.closures.has(name)) {
      const seen = new Set([name]);
      const todo = [name];
      while (todo.length) {
        for (const ref of localRefs(this.defs.plain[todo.pop()])) {
          if (seen.has(ref)) continue;
          seen.add(ref);
          todo.push(ref);
        }
      }
      this.closures.set(name, [...seen].sort());
    }
    return this.closures.get(name);
  }

  /** One seeded generation for a type: `{value}` or `{error}`. */
  attempt(name, n) {
    const { fillMaps, ...options } = ATTEMPT_OPTIONS[n % ATTEMPT_OPTIONS.length];
    const defs = fillMaps ? this.defs.filled : this.defs.plain;
    const schema = {
      $defs: Object.fromEntries(this.closure(name).map((d) => [d, defs[d]])),
      $ref: `#/$defs/${name}`,
    };
    const seed = hash32(`${this.seed}/${name}/${n}`);
    try {
      return { value: generateSync(schema, { ...options, seed }) };
    } catch (e) {
      return { error: String(e?.message ?? e).split("\n")[0] };
    }
  }

  /** Generates into the bucket until it holds `quota` distinct valid values or stops finding new ones. */
  fill(bucket, quota) {
    while (bucket.validCount < quota && !bucket.exhausted) {
      const result = this.attempt(bucket.type, bucket.attempts++);
      let fresh = false;
      if (result.error !== undefined) {
        bucket.thrown++;
        bucket.noteProblem(`json-schema-faker threw: ${result.error}`);
      } else {
        const entry = bucket.offer("generator", result.value);
        fresh = entry?.valid === true;
        if (entry && !entry.valid) bucket.noteProblem(`invalid value, first error at "${entry.errors[0]}"`);
      }
      bucket.sinceNew = fresh ? 0 : bucket.sinceNew + 1;
      bucket.exhausted = bucket.sinceNew >= STALE_LIMIT;
    }
  }
}
