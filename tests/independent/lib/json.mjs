// JSON values as this tool handles them: plain JS values plus `RawNumber`
// leaves whose exact text must survive (2^64-1, `1.0` vs `1`). Owns the exact
// JSON writer, the canonical form used for de-duplication, the conversion to
// plain JS values for ajv, JSON pointers, and copy-on-write edits that keep
// member order and treat `__proto__` as an ordinary member.

/** A number whose JSON text is written verbatim. */
export class RawNumber {
  constructor(text) {
    this.text = text;
  }
}

/**
 * Whether `v` holds, anywhere, a number whose text a reading as doubles
 * loses: an integer beyond ±2^53, or an integral value written as a
 * fraction or exponent (`1.0`, `-0.0`), which reads as the integer.
 */
export function doubleLossy(v) {
  if (v instanceof RawNumber) {
    if (/^-?\d+$/.test(v.text)) return BigInt(v.text) > 2n ** 53n || BigInt(v.text) < -(2n ** 53n);
    return Number.isInteger(Number(v.text));
  }
  if (Array.isArray(v)) return v.some(doubleLossy);
  if (v !== null && typeof v === "object") return Object.values(v).some(doubleLossy);
  return false;
}

export function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof RawNumber);
}

/** JSON kind name of a value: null, boolean, number, string, array, object. */
export function kindOf(v) {
  if (v === null) return "null";
  if (v instanceof RawNumber) return "number";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/** Defines an own enumerable member, even one named `__proto__`. */
export function setOwn(obj, key, value) {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  return obj;
}

/** JSON text; members in insertion order, or sorted when `sortKeys`. */
export function toJson(v, sortKeys = false) {
  if (v instanceof RawNumber) return v.text;
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x) => toJson(x, sortKeys)).join(",")}]`;
  const keys = Object.keys(v);
  if (sortKeys) keys.sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${toJson(v[k], sortKeys)}`).join(",")}}`;
}

export const canonical = (v) => toJson(v, true);

/** The value as ajv sees it: RawNumber becomes the nearest JS number. */
export function toPlain(v) {
  if (v instanceof RawNumber) return Number(v.text);
  if (Array.isArray(v)) return v.map(toPlain);
  if (!isObject(v)) return v;
  const out = {};
  for (const k of Object.keys(v)) setOwn(out, k, toPlain(v[k]));
  return out;
}

/** One JSON pointer reference token. */
export function escapeToken(token) {
  return String(token).replaceAll("~", "~0").replaceAll("/", "~1");
}

export function pointer(path) {
  return path.map((t) => `/${escapeToken(t)}`).join("");
}

export function getAt(root, path) {
  return path.reduce((node, t) => node[t], root);
}

/** Copy of `root` with the node at `path` replaced by `fn(node)`; containers on the way are copied. */
export function updateAt(root, path, fn) {
  if (path.length === 0) return fn(root);
  const [head, ...rest] = path;
  const child = updateAt(root[head], rest, fn);
  if (Array.isArray(root)) return root.map((x, i) => (i === head ? child : x));
  return withMember(root, head, child);
}

/** Copy of `obj` with member `key` set; a new member goes right after `afterKey` (or last). */
export function withMember(obj, key, value, afterKey) {
  const out = {};
  let placed = false;
  for (const k of Object.keys(obj)) {
    setOwn(out, k, k === key ? value : obj[k]);
    placed ||= k === key;
    if (k === afterKey && !placed && !Object.hasOwn(obj, key)) {
      setOwn(out, key, value);
      placed = true;
    }
  }
  return placed ? out : setOwn(out, key, value);
}

export function withoutMember(obj, key) {
  const out = {};
  for (const k of Object.keys(obj)) if (k !== key) setOwn(out, k, obj[k]);
  return out;
}
