// A minimal hand-walking generator, used only for types json-schema-faker could
// not produce a valid value for. It builds the smallest value a node asks for:
// its `const`, the first `enum` value, the required members of an object,
// `minItems` copies of an item, and for every `anyOf`/`oneOf` the first branch
// whose combined value ajv accepts.

import { isObject, setOwn } from "./json.mjs";

const MAX_DEPTH = 24;
const TYPE_PREFERENCE = ["object", "string", "integer", "number", "boolean", "array", "null"];

/** Objects merge member-wise (later wins); anything else is replaced. */
function combine(a, b) {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (!isObject(a) || !isObject(b)) return b;
  const out = {};
  for (const [k, v] of [...Object.entries(a), ...Object.entries(b)]) setOwn(out, k, combine(out[k], v));
  return out;
}

function clampNumber(s) {
  const low = s.minimum ?? -Infinity;
  const high = s.maximum ?? Infinity;
  return Math.min(Math.max(0, Math.ceil(low)), Math.floor(high));
}

/** The value a shape asks for before its unions are considered; undefined when it asks for nothing. */
function baseValue(index, s, depth) {
  if (s.consts.length) return s.consts[0];
  if (s.enums.length) return s.enums[0][0];
  const type = s.types ? TYPE_PREFERENCE.find((t) => s.types.has(t)) : s.props.size ? "object" : undefined;
  switch (type) {
    case "object": {
      const out = {};
      for (const name of s.required) {
        const nodes = s.props.get(name) ?? s.additional.filter((n) => n !== false);
        setOwn(out, name, nodes.reduce((acc, n) => combine(acc, minimalValue(index, n, depth + 1)), undefined) ?? null);
      }
      return out;
    }
    case "array": {
      const item = s.items.reduce((acc, n) => combine(acc, minimalValue(index, n, depth + 1)), undefined) ?? null;
      return Array.from({ length: s.minItems ?? 0 }, () => item);
    }
    case "string":
      return "a".repeat(s.minLength ?? 0);
    case "integer":
    case "number":
      return clampNumber(s);
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return undefined;
  }
}

/** Smallest value for a schema node; null when nothing is asked for or recursion runs too deep. */
export function minimalValue(index, node, depth = 0) {
  if (depth > MAX_DEPTH) return null;
  const s = index.shape(node);
  let value = baseValue(index, s, depth);
  for (const union of s.unions) {
    const options = union.map((b) => combine(value, minimalValue(index, b, depth + 1)));
    value = options.find((v, i) => index.validatorFor(union[i])?.(v ?? null) ?? true) ?? options[0];
  }
  return value ?? null;
}
