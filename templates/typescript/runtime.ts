// The decoding runtime of acp-codegen, copied as it is into every generated
// TypeScript package (`src/runtime.ts`; the source is
// `templates/typescript/runtime.ts`, type-checked alone with `tsc --strict`).
// `decode.ts` builds one codec per schema type from these combinators.
//
// Zero-dependency decoders. A decoded value has the wire shape: it is the
// input itself, but for copies of the arrays and objects in which a decode
// rule changed something, so encoding it gives it back as it is. Decoding
// applies every constraint and `x-deserialize-*` rule of the schema and
// keeps unknown values of open enums and extensible unions.

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One failure: the JSON pointer of the failing location and what failed. */
export interface DecodeIssue {
  readonly path: string;
  readonly message: string;
}

/** A decoded value, or every failure found. */
export type DecodeResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly issues: readonly DecodeIssue[] };

/** A value that does not decode as its type; the message names every failing JSON pointer. */
export class DecodeError extends Error {
  readonly typeName: string;
  readonly issues: readonly DecodeIssue[];

  constructor(typeName: string, issues: readonly DecodeIssue[]) {
    const details = issues.map((issue) => `at ${JSON.stringify(issue.path)}: ${issue.message}`).join("; ");
    super(`cannot decode ${typeName}: ${details}`);
    this.name = "DecodeError";
    this.typeName = typeName;
    this.issues = issues;
  }
}

/**
 * One decode: the issues found so far, and whether the whole input is
 * already known to be plain JSON (then untyped values need no check of their own).
 */
interface Run {
  readonly issues: DecodeIssue[];
  pure: boolean;
}

/**
 * Where a codec is in the decoded value: the location holding it (`null` at
 * the root) and its key there. A codec gives the members it decodes one
 * location of its own whose key it moves from member to member, so that a
 * JSON pointer is only written for a failure. That location is made once
 * and kept (`inner`): every codec at the same depth moves the key of the
 * same one, setting it before it decodes a member.
 */
interface At {
  readonly up: At | null;
  key: string | number;
  readonly run: Run;
  inner: At | undefined;
}

/** What a codec returns for a value that does not decode; its issues are in the run. */
const FAILED: unique symbol = Symbol("failed");

/**
 * A codec returns the decoded value, which is the input itself unless a
 * decode rule changed something inside it, or `FAILED`.
 */
export type Codec = (value: unknown, at: At) => unknown;
type JsonObject = { readonly [key: string]: unknown };
type Fallback =
  { readonly kind: "absent" } | { readonly kind: "value"; readonly json: string } | { readonly kind: "reject" };
type Additional = { readonly policy: "kept"; readonly codec: Codec } | { readonly policy: "denied" };

/** One field: its rules are off and its fallback is `reject` unless given. */
interface FieldSpec {
  readonly name: string;
  readonly codec: Codec;
  readonly required?: true;
  readonly nullable?: true;
  readonly onError?: true;
  readonly onNull?: true;
  readonly fallback?: Fallback;
}

export const absent: Fallback = { kind: "absent" };
export const reject: Fallback = { kind: "reject" };
export const denied: Additional = { policy: "denied" };

function start(pure: boolean): At {
  return { up: null, key: "", run: { issues: [], pure }, inner: undefined };
}

/** The location of the members of the value at `at`. */
function inside(at: At): At {
  let inner = at.inner;
  if (inner === undefined) {
    inner = { up: at, key: "", run: at.run, inner: undefined };
    at.inner = inner;
  }
  return inner;
}

/**
 * The root `decodeWith` starts from when no decode is running (none starts
 * inside another, but one that did would get a root of its own): kept with
 * the locations below it, so that a decode makes none.
 */
let resting: At | null = start(false);

/** The JSON pointer of `at`. */
function pathOf(at: At): string {
  const keys: Array<string | number> = [];
  for (let step: At | null = at; step.up !== null; step = step.up) keys.push(step.key);
  return keys.reverse().reduce<string>((path, key) => pointer(path, key), "");
}

/** How many arrays and objects the value at `at` sits in, itself counted. */
function depthOf(at: At): number {
  let depth = 1;
  for (let step = at.up; step !== null; step = step.up) depth += 1;
  return depth;
}

function fail(at: At, message: string): typeof FAILED {
  at.run.issues.push({ path: pathOf(at), message });
  return FAILED;
}

/** The outcome of a decode that started at `root`. */
function outcome<T>(value: unknown, root: At): DecodeResult<T> {
  return value === FAILED ? { ok: false, issues: root.run.issues.slice() } : { ok: true, value: value as T };
}

function failure(path: string, message: string): DecodeResult<never> {
  return { ok: false, issues: [{ path, message }] };
}

function pointer(path: string, key: string | number): string {
  return `${path}/${typeof key === "number" ? key : escapeToken(key)}`;
}

/** A member name as a JSON pointer segment (RFC 6901): the package's one escape. */
export function escapeToken(key: string): string {
  return key.includes("~") || key.includes("/") ? key.replace(/~/g, "~0").replace(/\//g, "~1") : key;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function hasMember(object: JsonObject, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** Sets an own member, even one called `__proto__`. */
function setMember(target: { [key: string]: unknown }, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** A copy of an object's own members, in their order. */
function copyOf(value: JsonObject): { [key: string]: unknown } {
  const copy: { [key: string]: unknown } = {};
  for (const key of Object.keys(value)) {
    setMember(copy, key, value[key]);
  }
  return copy;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  return `${typeof value} ${String(value)}`;
}

/**
 * The most arrays and objects a decoded value may nest, itself included: the
 * limit of Rust's `serde_json` parser, so that every binding takes the same
 * documents (`codegen/DECODING.md`).
 */
const MAX_DEPTH = 127;

function isPlain(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** A member on the way down from the value `jsonIssue` checks: its key and the member holding it. */
type Trail = { readonly parent: Trail; readonly key: string | number } | null;

function trailPointer(path: string, trail: Trail): string {
  const keys: Array<string | number> = [];
  for (let step = trail; step !== null; step = step.parent) keys.push(step.key);
  return keys.reverse().reduce<string>((at, key) => pointer(at, key), path);
}

/**
 * Whether `value`, `depth` levels down, has none of the failures
 * `jsonIssue` looks for: the common case, walked without building a single
 * path. It recurses no deeper than `MAX_DEPTH` levels.
 */
function jsonClean(value: unknown, depth: number, wireOnly: boolean): boolean {
  if (value === null || typeof value === "boolean" || typeof value === "string") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) {
    if (depth > MAX_DEPTH) return false;
    for (let index = 0; index < value.length; index += 1) {
      if (!jsonClean(value[index], depth + 1, wireOnly)) return false;
    }
    return true;
  }
  if (isObject(value) && isPlain(value)) {
    if (depth > MAX_DEPTH) return false;
    // `for in` walks the own members without an array of their names.
    for (const key in value) {
      if (hasMember(value, key) && !jsonClean(value[key], depth + 1, wireOnly)) return false;
    }
    return true;
  }
  return wireOnly;
}

/**
 * The first failure of `value` (found at `path`, `depth` levels down) as
 * JSON, in document order: a number that is not finite (`1e400` parses as
 * `Infinity`), an array or object nested more than `MAX_DEPTH` deep, counted
 * from the root of the decoded value, and unless `wireOnly` anything else
 * JSON does not have (`undefined`, a function, a class instance). It walks
 * with a stack of its own: no depth of input exhausts the call stack.
 */
function jsonIssue(value: unknown, path: string, depth: number, wireOnly: boolean): DecodeIssue | null {
  if (jsonClean(value, depth, wireOnly)) return null;
  const pending: Array<readonly [unknown, Trail, number]> = [[value, null, depth]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, trail, depth] = next;
    if (current === null || typeof current === "boolean" || typeof current === "string") continue;
    if (typeof current === "number" && Number.isFinite(current)) continue;
    let members: Array<readonly [string | number, unknown]>;
    if (Array.isArray(current)) {
      members = current.map((item: unknown, index: number) => [index, item] as const);
    } else if (isObject(current) && isPlain(current)) {
      members = Object.entries(current);
    } else if (wireOnly && typeof current !== "number") {
      continue;
    } else {
      return { path: trailPointer(path, trail), message: `expected a JSON value, got ${describe(current)}` };
    }
    if (depth > MAX_DEPTH)
      return { path: trailPointer(path, trail), message: `nested more than ${MAX_DEPTH} arrays and objects deep` };
    for (let index = members.length - 1; index >= 0; index -= 1) {
      const [key, member] = members[index] ?? [index, undefined];
      pending.push([member, { parent: trail, key }, depth + 1]);
    }
  }
  return null;
}

/** JSON equality, object member order aside. */
function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((item: unknown, index: number) => jsonEqual(item, right[index]));
  }
  if (isObject(left) && isObject(right) && !Array.isArray(left) && !Array.isArray(right)) {
    const keys = Object.keys(left);
    return (
      keys.length === Object.keys(right).length &&
      keys.every((key) => hasMember(right, key) && jsonEqual(left[key], right[key]))
    );
  }
  return false;
}

/**
 * The JSON of a decoded (or built) value: the value itself when it already
 * is plain JSON (a decoded value is), otherwise a plain JSON copy. An object
 * member set to `undefined` is left out: an optional member is absent either
 * way.
 */
export function encode(value: unknown): JsonValue {
  return jsonClean(value, 1, false) ? (value as JsonValue) : encodeCopy(value);
}

function encodeCopy(value: unknown): JsonValue {
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => encodeCopy(item));
  if (isObject(value)) {
    const copy: { [key: string]: JsonValue } = {};
    for (const key of Object.keys(value)) {
      const member = value[key];
      if (member !== undefined) setMember(copy, key, encodeCopy(member));
    }
    return copy;
  }
  throw new TypeError(`cannot encode ${describe(value)} as JSON`);
}

/** Any JSON value; nothing to check when the whole input is known to be plain JSON. */
export const anyJson: Codec = (value, at) => {
  if (at.run.pure || jsonClean(value, depthOf(at), false)) return value;
  const issue = jsonIssue(value, pathOf(at), depthOf(at), false);
  if (issue === null) return value;
  at.run.issues.push(issue);
  return FAILED;
};

/**
 * Any JSON value, under the limits every decoder applies (finite numbers,
 * plain objects, at most 127 arrays and objects deep): what extension
 * methods' params are checked with.
 */
export function decodeJson(json: unknown): DecodeResult<JsonValue> {
  const root = start(false);
  return outcome<JsonValue>(anyJson(json, root), root);
}

export const onlyNull: Codec = (value, at) =>
  value === null ? null : fail(at, `expected null, got ${describe(value)}`);

export const bool: Codec = (value, at) =>
  typeof value === "boolean" ? value : fail(at, `expected a boolean, got ${describe(value)}`);

/** The length of a string in code points (surrogate pairs count once). */
function codePoints(value: string): number {
  let length = value.length;
  for (let index = 0; index < value.length; index += 1) {
    const unit = value.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < value.length) {
      const next = value.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length -= 1;
        index += 1;
      }
    }
  }
  return length;
}

/** Any string, unchecked: the codec of every string without constraints. */
export const anyString: Codec = (value, at) =>
  typeof value === "string" ? value : fail(at, `expected a string, got ${describe(value)}`);

export function text(minLength: number | null, maxLength: number | null, pattern: string | null): Codec {
  if (minLength === null && maxLength === null && pattern === null) return anyString;
  let compiled: RegExp | null | undefined;
  return (value, at) => {
    if (typeof value !== "string") return fail(at, `expected a string, got ${describe(value)}`);
    if (minLength !== null || maxLength !== null) {
      const length = codePoints(value);
      if (minLength !== null && length < minLength)
        return fail(at, `expected at least ${minLength} characters, got ${length}`);
      if (maxLength !== null && length > maxLength)
        return fail(at, `expected at most ${maxLength} characters, got ${length}`);
    }
    if (pattern !== null) {
      if (compiled === undefined) {
        try {
          compiled = new RegExp(pattern, "u");
        } catch {
          compiled = null;
        }
      }
      if (compiled === null)
        return fail(at, `the pattern ${JSON.stringify(pattern)} is not a valid regular expression`);
      if (!compiled.test(value)) return fail(at, `does not match the pattern ${JSON.stringify(pattern)}`);
    }
    return value;
  };
}

/** Integers within every minimum and maximum, and below `below` when given. */
export function int(minimums: readonly number[], maximums: readonly number[], below: number | null): Codec {
  return (value, at) => {
    if (typeof value !== "number" || !Number.isInteger(value))
      return fail(at, `expected an integer, got ${describe(value)}`);
    for (const minimum of minimums) {
      if (value < minimum) return fail(at, `${value} is below the minimum ${minimum}`);
    }
    for (const maximum of maximums) {
      if (value > maximum) return fail(at, `${value} is above the maximum ${maximum}`);
    }
    if (below !== null && value >= below) return fail(at, `${value} is out of range`);
    return value;
  };
}

export function num(minimums: readonly number[], maximums: readonly number[]): Codec {
  return (value, at) => {
    if (typeof value !== "number" || !Number.isFinite(value))
      return fail(at, `expected a number, got ${describe(value)}`);
    for (const minimum of minimums) {
      if (value < minimum) return fail(at, `${value} is below the minimum ${minimum}`);
    }
    for (const maximum of maximums) {
      if (value > maximum) return fail(at, `${value} is above the maximum ${maximum}`);
    }
    return value;
  };
}

/** Arrays of `item`; with `skipInvalid`, items that fail are dropped. */
export function array(item: Codec, minItems: number | null, maxItems: number | null, skipInvalid: boolean): Codec {
  return (value, at) => {
    if (!Array.isArray(value)) return fail(at, `expected an array, got ${describe(value)}`);
    const issues = at.run.issues;
    const mark = issues.length;
    const here = inside(at);
    // The decoded items once one differs from its input (or is dropped); until then, the input.
    let items: unknown[] | null = null;
    for (let index = 0; index < value.length; index += 1) {
      here.key = index;
      const before = issues.length;
      const wire: unknown = value[index];
      const decoded = item(wire, here);
      if (decoded === FAILED) {
        if (skipInvalid) {
          issues.length = before;
          items ??= value.slice(0, index);
        }
      } else if (items !== null) {
        items.push(decoded);
      } else if (decoded !== wire) {
        items = value.slice(0, index);
        items.push(decoded);
      }
    }
    if (issues.length > mark) return FAILED;
    const result: readonly unknown[] = items ?? value;
    if (minItems !== null && result.length < minItems)
      return fail(at, `expected at least ${minItems} items, got ${result.length}`);
    if (maxItems !== null && result.length > maxItems)
      return fail(at, `expected at most ${maxItems} items, got ${result.length}`);
    return result;
  };
}

export function dict(values: Codec): Codec {
  return (value, at) => {
    if (!isObject(value)) return fail(at, `expected an object, got ${describe(value)}`);
    const issues = at.run.issues;
    const mark = issues.length;
    const here = inside(at);
    let result: { [key: string]: unknown } | null = null;
    for (const key of Object.keys(value)) {
      here.key = key;
      const wire = value[key];
      const decoded = values(wire, here);
      if (decoded !== FAILED && decoded !== wire) {
        result ??= copyOf(value);
        setMember(result, key, decoded);
      }
    }
    return issues.length > mark ? FAILED : (result ?? value);
  };
}

export function orNull(inner: Codec): Codec {
  return (value, at) => (value === null ? null : inner(value, at));
}

export function enumOfStrings(values: readonly string[], open: boolean): Codec {
  const known = new Set(values);
  return (value, at) => {
    if (typeof value !== "string") return fail(at, `expected a string, got ${describe(value)}`);
    if (open || known.has(value)) return value;
    return fail(
      at,
      `unknown value ${JSON.stringify(value)}, expected one of ${values.map((known) => JSON.stringify(known)).join(", ")}`,
    );
  };
}

export function enumOfIntegers(values: readonly number[], open: boolean, range: Codec): Codec {
  return (value, at) => {
    const decoded = range(value, at);
    if (decoded === FAILED || open || values.includes(decoded as number)) return decoded;
    return fail(at, `unknown value ${String(value)}, expected one of ${values.join(", ")}`);
  };
}

/** What a field whose fallback is `absent` decodes to when a decode rule discards its wire value. */
const DROPPED: unique symbol = Symbol("dropped");

/**
 * A field's wire value (at `at`) was discarded by a decode rule: its
 * fallback, `DROPPED`, or `FAILED` when the fallback is `reject` (the issues
 * since `mark` stay, or `rejected` when none was found).
 */
function fallBack(field: FieldSpec, at: At, mark: number, rejected: string | null): unknown {
  const fallback = field.fallback ?? reject;
  const issues = at.run.issues;
  switch (fallback.kind) {
    case "absent":
      issues.length = mark;
      return DROPPED;
    case "value":
      issues.length = mark;
      return JSON.parse(fallback.json) as unknown;
    case "reject":
      return rejected === null ? FAILED : fail(at, rejected);
  }
}

/**
 * An object: its fields, and the members of the flattened types read from
 * the same object. A field whose wire value a decode rule discarded counts
 * as absent (or as its fallback) for the flattened types too, and the
 * fields' own values win over theirs. Members not `known` are kept or
 * refused as `additional` says. When nothing changes, the result is the
 * input itself.
 */
export function object(
  fields: readonly FieldSpec[],
  bases: readonly Codec[],
  known: readonly string[],
  additional: Additional,
): Codec {
  const knownSet = new Set(known);
  const keepsAnyJson = additional.policy === "kept" && additional.codec === anyJson;
  return (value, at) => {
    if (!isObject(value)) return fail(at, `expected an object, got ${describe(value)}`);
    const issues = at.run.issues;
    const mark = issues.length;
    const here = inside(at);
    // The input with every decoded member that differs from its wire value, once one does.
    let changed: { [key: string]: unknown } | null = null;
    // What the flattened types read: the input with the fields a decode rule discarded as their fallback.
    let view: { [key: string]: unknown } | null = null;
    for (const field of fields) {
      const name = field.name;
      here.key = name;
      if (!hasMember(value, name)) {
        if (field.required === true) fail(here, `missing required member ${JSON.stringify(name)}`);
        continue;
      }
      const wire = value[name];
      if (wire === null && field.nullable === true) continue;
      let decoded: unknown;
      let discarded = false;
      if (wire === null && field.onNull === true) {
        decoded = fallBack(field, here, issues.length, `null is not a valid ${JSON.stringify(name)}`);
        discarded = true;
      } else {
        const before = issues.length;
        decoded = field.codec(wire, here);
        if (decoded === FAILED && field.onError === true) {
          decoded = fallBack(field, here, before, null);
          discarded = true;
        }
      }
      if (discarded && bases.length > 0) {
        view ??= copyOf(value);
        delete view[name];
        if (decoded !== DROPPED && decoded !== FAILED) setMember(view, name, decoded);
      }
      if (decoded === FAILED || decoded === wire) continue;
      changed ??= copyOf(value);
      if (decoded === DROPPED) {
        delete changed[name];
      } else {
        setMember(changed, name, decoded);
      }
    }
    // Whether the result must be merged: a flattened type changed what it read (or read a fallback).
    let remerge = view !== null;
    let decodedBases: unknown[] | null = null;
    // What the flattened types decoded, kept once the result must be merged.
    const seen = view ?? value;
    for (let index = 0; index < bases.length; index += 1) {
      const decoded = (bases[index] as Codec)(seen, at);
      if (decodedBases === null && (remerge || decoded !== seen)) decodedBases = new Array<unknown>(index).fill(seen);
      decodedBases?.push(decoded);
      remerge ||= decoded !== seen;
    }
    // Members kept as any JSON need no look when the input is known to be plain JSON.
    if (!keepsAnyJson || !at.run.pure) {
      for (const key in value) {
        if (!hasMember(value, key) || knownSet.has(key)) continue;
        here.key = key;
        if (additional.policy === "denied") {
          fail(here, `unknown member ${JSON.stringify(key)}`);
          continue;
        }
        const wire = value[key];
        const decoded = additional.codec(wire, here);
        if (decoded !== FAILED && decoded !== wire) {
          changed ??= copyOf(value);
          setMember(changed, key, decoded);
        }
      }
    }
    if (issues.length > mark) return FAILED;
    if (!remerge || decodedBases === null) return changed ?? value;
    // A flattened type changed what it read: its members, then the fields', then the rest.
    const own = changed ?? value;
    const result: { [key: string]: unknown } = {};
    for (const decoded of decodedBases) {
      if (!isObject(decoded)) continue;
      for (const key of Object.keys(decoded)) {
        setMember(result, key, decoded[key]);
      }
    }
    for (const field of fields) {
      if (hasMember(own, field.name)) setMember(result, field.name, own[field.name]);
    }
    for (const key of Object.keys(own)) {
      if (!knownSet.has(key)) setMember(result, key, own[key]);
    }
    return result;
  };
}

/**
 * A union told apart by the string at `property`. The variant without a tag
 * (if any) is used when the property is absent or `null`; an unknown tag
 * keeps the whole object when the union is `open`, and fails otherwise.
 * With `defaultOpen`, the variant without a tag also takes what no tagged
 * variant does (an unknown tag, one that is not a string, a known tag whose
 * payload does not decode), the tag kept among its unknown members.
 */
export function taggedUnion(
  property: string,
  variants: ReadonlyArray<readonly [string, Codec]>,
  untagged: Codec | null,
  open: boolean,
  defaultOpen: boolean,
): Codec {
  const table = new Map<string, Codec>(variants);
  const fallback = defaultOpen ? untagged : null;
  return (value, at) => {
    if (!isObject(value)) return fail(at, `expected an object, got ${describe(value)}`);
    const tag = hasMember(value, property) ? value[property] : null;
    if (tag === null) {
      if (untagged !== null) return untagged(value, at);
      const here = inside(at);
      here.key = property;
      return fail(here, `missing tag ${JSON.stringify(property)}`);
    }
    if (typeof tag !== "string") {
      if (fallback !== null) return fallback(value, at);
      const here = inside(at);
      here.key = property;
      return fail(here, `expected a string tag, got ${describe(tag)}`);
    }
    const variant = table.get(tag);
    if (variant === undefined) {
      if (open) return anyJson(value, at);
      if (fallback !== null) return fallback(value, at);
      const here = inside(at);
      here.key = property;
      return fail(
        here,
        `unknown tag ${JSON.stringify(tag)}, expected one of ${[...table.keys()].map((known) => JSON.stringify(known)).join(", ")}`,
      );
    }
    const issues = at.run.issues;
    const mark = issues.length;
    const decoded = variant(value, at);
    if (decoded === FAILED && fallback !== null) {
      // The variant's issues are the ones told when the default fails too.
      const told = issues.splice(mark);
      const taken = fallback(value, at);
      if (taken !== FAILED) return taken;
      issues.splice(mark, issues.length - mark, ...told);
      return FAILED;
    }
    if (!isObject(decoded) || decoded[property] === tag) return decoded;
    const result = copyOf(decoded);
    setMember(result, property, tag);
    return result;
  };
}

/**
 * Among the `variants` that decode `value`, the first whose encoding equals
 * the input, else the first that decodes: its position (-1 for none) and
 * decoded value. When none decodes, the run has an issue for the union and
 * every variant's.
 */
function pick(
  variants: readonly Codec[],
  value: unknown,
  at: At,
): { readonly index: number; readonly decoded: unknown } {
  const issues = at.run.issues;
  const mark = issues.length;
  let first: { readonly index: number; readonly decoded: unknown } | null = null;
  for (let index = 0; index < variants.length; index += 1) {
    const variant = variants[index];
    if (variant === undefined) continue;
    const decoded = variant(value, at);
    if (decoded === FAILED) continue;
    if (decoded === value || jsonEqual(decoded, value)) {
      issues.length = mark;
      return { index, decoded };
    }
    first ??= { index, decoded };
  }
  if (first !== null) {
    issues.length = mark;
    return first;
  }
  issues.splice(mark, 0, { path: pathOf(at), message: "matches no variant of the union" });
  return { index: -1, decoded: FAILED };
}

/** A codec that looks its target up when first used (types refer to each other). */
export function lazy(lookup: () => Codec | undefined, typeName: string): Codec {
  let codec: Codec | undefined;
  return (value, at) => {
    codec ??= lookup();
    return codec === undefined ? fail(at, `unknown type ${JSON.stringify(typeName)}`) : codec(value, at);
  };
}

/** A union told apart by shape, over the variants `variants` gives (see `pick`). */
export function untagged(variants: () => readonly Codec[]): Codec {
  return (value, at) => pick(variants(), value, at).decoded;
}

/** Which of `variants` decoding `value` picks: its position, or -1 when none decodes it. */
export function pickIndex(variants: readonly Codec[], value: unknown): number {
  return pick(variants, value, start(false)).index;
}

/** The result for a type name that has no codec. */
export function unknownType(typeName: string): DecodeResult<never> {
  return failure("", `unknown type ${JSON.stringify(typeName)}`);
}

/** Decodes `json` with `codec`, the top of every decode. */
export function decodeWith(codec: Codec, json: unknown): DecodeResult<unknown> {
  // Checked before the schema's rules, which would otherwise drop a bad
  // `_meta` as invalid: the text is not JSON that every binding reads.
  // Input that is plain JSON throughout (all that `JSON.parse` gives) needs
  // no other check for its untyped values.
  const pure = jsonClean(json, 1, false);
  if (!pure) {
    const issue = jsonIssue(json, "", 1, true);
    if (issue !== null) return { ok: false, issues: [issue] };
  }
  const root = resting ?? start(pure);
  resting = null;
  root.run.pure = pure;
  try {
    return outcome(codec(json, root), root);
  } catch (error) {
    if (error instanceof RangeError) return failure("", `nested too deeply to decode: ${error.message}`);
    throw error;
  } finally {
    root.run.issues.length = 0;
    resting = root;
  }
}
