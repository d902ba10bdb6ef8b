// Adversarial values derived from generated valid values by walking them with
// the RAW schema (through `$ref`, `allOf` and the `anyOf`/`oneOf` branches that
// fit). Each kind enumerates candidates keyed by a site (a position in the type,
// see SchemaIndex.walk) and a variant; per kind a bounded, evenly spread
// selection is materialised. Whether a result is valid is decided later by ajv.
//
// Kinds:
//   twin    - unknown members whose names collide with a declared member in some
//             language (snake/camel twins, `_` added or dropped, keywords)
//   tag     - unclaimed, non-string or missing tags, in values of a known variant
//   null    - null in every declared member, whether the schema allows it or not
//   anyjson - every JSON kind in "any JSON" members and `additionalProperties: true` maps
//   bounds  - integers at and beyond their bounds and format ranges, floats written as `1.0` and `1`
//   mutate  - missing required members, values of the wrong JSON kind, wrong-kind array
//             items, unknown enum strings

import { RawNumber, escapeToken, isObject, kindOf, pointer, updateAt, withMember, withoutMember } from "./json.mjs";
import { hash32 } from "./faker.mjs";

export const EXTRA_KINDS = ["twin", "tag", "null", "anyjson", "bounds", "mutate"];

export const INT_FORMAT_RANGES = {
  int8: [-(2n ** 7n), 2n ** 7n - 1n],
  int16: [-(2n ** 15n), 2n ** 15n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint8: [0n, 2n ** 8n - 1n],
  uint16: [0n, 2n ** 16n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

const KEYWORD_MEMBERS = ["class", "from", "self", "type", "async", "constructor", "__proto__", "toString"];
const UNCLAIMED_TAGS = ["zz_unknown", "_ext/thing"];
const LARGE_INTEGERS = [
  ["2^53+1", 2n ** 53n + 1n],
  ["2^63-1", 2n ** 63n - 1n],
  ["-2^63", -(2n ** 63n)],
  ["2^64-1", 2n ** 64n - 1n],
];
const FLOAT_TEXTS = ["1.0", "1", "-1.5", "0.1", "-0.0", "1e300", "5e-324", "9007199254740993"];
const NESTED_JSON = { list: [1, "two", null, { deep: [[], {}] }], obj: { k: { m: [true, false] } } };
const ANY_JSON_VALUES = [
  ["null", null],
  ["true", true],
  ["zero", 0],
  ["neg-float", -1.5],
  ["empty-string", ""],
  ["empty-array", []],
  ["empty-object", {}],
  ["nested", NESTED_JSON],
  ["float-1.0", new RawNumber("1.0")],
  ["2^64-1", new RawNumber(String(2n ** 64n - 1n))],
  ["every-kind-members", { n: null, b: true, i: 0, f: -1.5, s: "", a: [], o: {}, nested: NESTED_JSON }],
];
const TWIN_VALUES = [
  ["copy", undefined],
  ["string", "zz"],
  ["zero", 0],
  ["null", null],
  ["object", {}],
  ["array", []],
  ["true", true],
];
const WRONG_KIND = { null: {}, boolean: "true", number: "0", string: 0, array: {}, object: [] };

/** A pointer for messages: the root shows as "(root)". */
function where(path) {
  return pointer(path) || "(root)";
}

function snakeCase(name) {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

function camelCase(name) {
  return name.replace(/(?<=[A-Za-z0-9])_([A-Za-z0-9])/g, (_, c) => c.toUpperCase());
}

/** Names another language could map onto `name`. */
function twinNames(name) {
  const names = [snakeCase(name), camelCase(name), `_${name}`, `${name}_`];
  if (name.startsWith("_")) names.push(name.slice(1));
  return [...new Set(names)].filter((n) => n !== name);
}

/** `[label, value]` of a twin member: a copy of its sibling's value or a fixed value of some JSON kind. */
function twinValue(sibling, name, member) {
  const [label, value] = TWIN_VALUES[hash32(`${member}>${name}`) % TWIN_VALUES.length];
  if (label !== "copy") return [label, value];
  return sibling === undefined ? ["string", "zz"] : ["copy", sibling];
}

/** Largest (or, with `smallest`, least) of the defined BigInts; undefined when none is. */
function bigExtreme(values, smallest = false) {
  return values
    .filter((x) => x !== undefined)
    .reduce((a, b) => (a === undefined || (smallest ? b < a : b > a) ? b : a), undefined);
}

/**
 * Range of the integer formats a view names (the widest when branches name
 * several), or undefined unless every format it names is an integer format.
 */
export function intFormatRange(view) {
  const ranges = [...view.formats].map((f) => INT_FORMAT_RANGES[f]);
  if (ranges.length === 0 || ranges.includes(undefined)) return undefined;
  return [
    bigExtreme(
      ranges.map((r) => r[0]),
      true,
    ),
    bigExtreme(ranges.map((r) => r[1])),
  ];
}

function integerVariants(view) {
  const [formatLow, formatHigh] = intFormatRange(view) ?? [];
  const low = bigExtreme([formatLow, view.minimum === undefined ? undefined : BigInt(Math.ceil(view.minimum))]);
  const high = bigExtreme(
    [formatHigh, view.maximum === undefined ? undefined : BigInt(Math.floor(view.maximum))],
    true,
  );
  const out = [];
  if (low !== undefined) out.push(["min", low], ["min-1", low - 1n]);
  if (high !== undefined) out.push(["max", high], ["max+1", high + 1n]);
  out.push(...LARGE_INTEGERS);
  const one = low !== undefined && low > 1n ? low : 1n;
  return [...out.map(([label, n]) => [label, String(n)]), ["integral-float", `${one}.0`]];
}

function numberVariants(view) {
  const out = FLOAT_TEXTS.map((t) => [`float ${t}`, t]);
  if (view.minimum !== undefined) out.push(["min", String(view.minimum)], ["min-1", String(view.minimum - 1)]);
  if (view.maximum !== undefined) out.push(["max", String(view.maximum)], ["max+1", String(view.maximum + 1)]);
  return out;
}

function isIntegerView(view) {
  return intFormatRange(view) !== undefined || (view.types?.has("integer") && !view.types.has("number"));
}

/** Candidate collector: kind -> site -> variant -> {detail, make}. */
class Candidates {
  constructor() {
    this.byKind = new Map(EXTRA_KINDS.map((k) => [k, new Map()]));
  }

  add(kind, site, variant, detail, make) {
    const sites = this.byKind.get(kind);
    if (!sites.has(site)) sites.set(site, new Map());
    const variants = sites.get(site);
    if (!variants.has(variant)) variants.set(variant, { detail, make });
  }

  /**
   * The candidates of a kind in the order they should be taken: round-robin
   * over sites, each site's variants rotated by the site's position so that
   * different sites lead with different variants.
   */
  *select(kind) {
    const lists = [...this.byKind.get(kind).values()].map((variants, i) => {
      const list = [...variants.values()];
      return list.slice(i % list.length).concat(list.slice(0, i % list.length));
    });
    const longest = Math.max(0, ...lists.map((l) => l.length));
    for (let round = 0; round < longest; round++) {
      for (const list of lists) if (round < list.length) yield list[round];
    }
  }
}

function enumerateTwins(pos, add) {
  const { value, view, path, site, base } = pos;
  if (!isObject(value) || view.props.size === 0) return;
  const declared = new Set(view.props.keys());
  for (const member of declared) {
    for (const name of twinNames(member).filter((n) => !declared.has(n))) {
      const [label, twin] = twinValue(value[member], name, member);
      add(
        "twin",
        `${site}/${escapeToken(member)}`,
        name,
        `${where(path)}: add "${name}" (${label}) after "${member}"`,
        () => updateAt(base, path, (o) => withMember(o, name, twin, member)),
      );
    }
  }
  for (const name of KEYWORD_MEMBERS.filter((n) => !declared.has(n))) {
    const [label, twin] = twinValue(undefined, name, site);
    add("twin", `${site}#keywords`, name, `${where(path)}: add keyword member "${name}" (${label})`, () =>
      updateAt(base, path, (o) => withMember(o, name, twin)),
    );
  }
}

function enumerateTags(pos, add, index) {
  const { value, view, path, site, base } = pos;
  if (!isObject(value)) return;
  for (const union of view.unions) {
    const tagged = index.tagOf(union);
    if (!tagged || !tagged.claimed.has(value[tagged.tag])) continue;
    const { tag, claimed } = tagged;
    const tagSite = `${site}#${tag}`;
    const tagAt = pointer([...path, tag]);
    for (const t of [...UNCLAIMED_TAGS.filter((u) => !claimed.has(u)), 5, null]) {
      add("tag", tagSite, JSON.stringify(t), `${tagAt} = ${JSON.stringify(t)}`, () =>
        updateAt(base, path, (o) => withMember(o, tag, t)),
      );
    }
    add("tag", tagSite, "remove", `${tagAt} removed`, () => updateAt(base, path, (o) => withoutMember(o, tag)));
  }
}

function enumerateNulls(pos, add, index) {
  const { value, view, path, site, base } = pos;
  if (!isObject(value)) return;
  for (const [member, nodes] of view.props) {
    if (value[member] === null) continue;
    const allowed = nodes.every((n) => index.allowsNull(n));
    add(
      "null",
      `${site}/${escapeToken(member)}`,
      "null",
      `${pointer([...path, member])} = null (schema ${allowed ? "allows" : "does not allow"} null)`,
      () => updateAt(base, path, (o) => withMember(o, member, null)),
    );
  }
}

function enumerateAnyJson(pos, add, index, rootNode) {
  const { value, view, path, site, base } = pos;
  const replace = (at, shown, target) => {
    for (const [label, v] of ANY_JSON_VALUES) add("anyjson", at, label, `${shown} = ${label}`, () => target(v));
  };
  if (path.length === 0 && index.acceptsAny(rootNode)) replace("", "(root)", (v) => v);
  if (!isObject(value)) return;
  for (const [member, nodes] of view.props) {
    if (!nodes.every((n) => index.acceptsAny(n) || index.isOpenObject(n))) continue;
    replace(`${site}/${escapeToken(member)}`, pointer([...path, member]), (v) =>
      updateAt(base, path, (o) => withMember(o, member, v)),
    );
  }
}

function enumerateBounds(pos, add) {
  const { value, view, path, site, base } = pos;
  if (typeof value !== "number") return;
  const variants = isIntegerView(view) ? integerVariants(view) : numberVariants(view);
  const format = view.formats.size ? ` (${[...view.formats].join("|")})` : "";
  for (const [label, text] of variants) {
    add("bounds", site, text, `${where(path)} = ${text} [${label}${format}]`, () =>
      updateAt(base, path, () => new RawNumber(text)),
    );
  }
}

function enumerateMutations(pos, add, index) {
  const { value, view, path, site, base } = pos;
  const wrong = WRONG_KIND[kindOf(value)];
  add("mutate", site, "wrong-kind", `${where(path)}: ${kindOf(value)} replaced by ${kindOf(wrong)}`, () =>
    updateAt(base, path, () => wrong),
  );
  if (isObject(value)) {
    for (const member of view.required) {
      if (!Object.hasOwn(value, member)) continue;
      add(
        "mutate",
        `${site}/${escapeToken(member)}`,
        "remove-required",
        `${pointer([...path, member])}: required member removed`,
        () => updateAt(base, path, (o) => withoutMember(o, member)),
      );
    }
  }
  if (Array.isArray(value)) {
    const item = value.length ? WRONG_KIND[kindOf(value[0])] : 7;
    add("mutate", `${site}[]`, "wrong-item", `${where(path)}: ${kindOf(item)} item appended`, () =>
      updateAt(base, path, (a) => [...a, item]),
    );
  }
  const choices = typeof value === "string" ? index.stringChoices(view) : null;
  if (choices && !choices.values.has("zz_unknown_variant")) {
    add(
      "mutate",
      `${site}#enum`,
      "enum-unknown",
      `${where(path)} = "zz_unknown_variant" (${choices.open ? "open" : "closed"} enum)`,
      () => updateAt(base, path, () => "zz_unknown_variant"),
    );
  }
}

/**
 * Extra values for one type, derived from its valid values (`bases`, plain JSON),
 * handed to `accept(kind, value, detail)` until `cap` of a kind were accepted;
 * `accept` returns false for a duplicate, which does not count.
 */
export function deriveExtras(index, typeName, bases, cap, accept) {
  const rootNode = index.defNode(typeName);
  const found = new Candidates();
  const add = (...args) => found.add(...args);
  for (const base of bases) {
    index.walk(base, [rootNode], (visit) => {
      const pos = { ...visit, base };
      enumerateTwins(pos, add);
      enumerateTags(pos, add, index);
      enumerateNulls(pos, add, index);
      enumerateAnyJson(pos, add, index, rootNode);
      enumerateBounds(pos, add);
      enumerateMutations(pos, add, index);
    });
  }
  for (const kind of EXTRA_KINDS) {
    let taken = 0;
    for (const candidate of found.select(kind)) {
      if (taken >= cap) break;
      if (accept(kind, candidate.make(), candidate.detail)) taken++;
    }
  }
}
