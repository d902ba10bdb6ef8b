// Reading the RAW JSON Schema (draft 2020-12, types under `$defs`) the way the
// extras and annotations need it. Owns: the ajv instance and its validators
// (for a `$defs` type or for any node of the document), the "shape" of a schema
// node (what `$ref`/`allOf` contribute, with `anyOf`/`oneOf` kept aside as
// unions), the "view" of a node for one value (its shape plus the union
// branches that accept that value; when none does, the branches whose tag
// matches, or else every branch: an over-approximation), tags of tagged unions,
// and the walk over a value and its schema together.

import Ajv2020 from "ajv/dist/2020.js";
import { escapeToken, isObject, toPlain } from "./json.mjs";

export const FLAG_ON_ERROR = "x-deserialize-default-on-error";
export const FLAG_ON_NULL = "x-deserialize-default-on-null";
export const FLAG_SKIP_ITEMS = "x-deserialize-skip-invalid-items";

const ROOT_ID = "root";

function emptyShape() {
  return {
    types: null, // Set of JSON Schema type names, or null when unconstrained
    consts: [],
    enums: [],
    props: new Map(), // member name -> schema nodes
    required: new Set(),
    additional: [], // additionalProperties nodes (true/false included)
    items: [],
    flags: new Set(),
    formats: new Set(),
    minimum: undefined,
    maximum: undefined,
    minItems: undefined,
    minLength: undefined,
    unions: [], // arrays of branch nodes, from anyOf/oneOf
  };
}

function mergeShape(acc, s) {
  if (s.types) acc.types = acc.types ? new Set([...acc.types].filter((t) => s.types.has(t))) : new Set(s.types);
  acc.consts.push(...s.consts);
  acc.enums.push(...s.enums);
  for (const [name, nodes] of s.props) acc.props.set(name, [...(acc.props.get(name) ?? []), ...nodes]);
  for (const r of s.required) acc.required.add(r);
  acc.additional.push(...s.additional);
  acc.items.push(...s.items);
  for (const f of s.flags) acc.flags.add(f);
  for (const f of s.formats) acc.formats.add(f);
  if (s.minimum !== undefined) acc.minimum = Math.max(acc.minimum ?? -Infinity, s.minimum);
  if (s.maximum !== undefined) acc.maximum = Math.min(acc.maximum ?? Infinity, s.maximum);
  if (s.minItems !== undefined) acc.minItems = Math.max(acc.minItems ?? 0, s.minItems);
  if (s.minLength !== undefined) acc.minLength = Math.max(acc.minLength ?? 0, s.minLength);
  acc.unions.push(...s.unions);
  return acc;
}

export class SchemaIndex {
  constructor(doc) {
    this.doc = doc;
    this.ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
    this.ajv.addSchema(doc, ROOT_ID);
    this.pointers = new WeakMap(); // schema object -> JSON pointer in doc
    this.ids = new WeakMap(); // schema object -> small integer, for cache keys
    this.nodeCount = 0;
    this.indexNodes(doc, "");
    this.shapes = new WeakMap();
    this.validators = new WeakMap();
    this.views = new Map();
    this.tags = new WeakMap();
  }

  indexNodes(node, ptr) {
    if (node === null || typeof node !== "object") return;
    this.pointers.set(node, ptr);
    this.ids.set(node, ++this.nodeCount);
    for (const [k, v] of Object.entries(node)) {
      this.indexNodes(v, `${ptr}/${escapeToken(k)}`);
    }
  }

  typeNames() {
    return Object.keys(this.doc.$defs).sort();
  }

  defNode(name) {
    return this.doc.$defs[name];
  }

  resolveRef(ref) {
    if (!ref.startsWith("#")) throw new Error(`only local $ref is supported: ${ref}`);
    const tokens = ref.slice(1).split("/").slice(1);
    return tokens.reduce((n, t) => n[decodeURIComponent(t).replaceAll("~1", "/").replaceAll("~0", "~")], this.doc);
  }

  /** ajv validator of a schema node of the document (undefined for boolean nodes). */
  validatorFor(node) {
    if (!isObject(node)) return undefined;
    if (!this.validators.has(node)) {
      const ptr = this.pointers.get(node);
      let fn;
      try {
        fn = this.ajv.getSchema(`${ROOT_ID}#${ptr}`);
      } catch {
        fn = undefined;
      }
      this.validators.set(node, fn);
    }
    return this.validators.get(node);
  }

  /** Validates a value (possibly holding RawNumbers) against a `$defs` type. */
  classify(typeName, value) {
    const validate = this.validatorFor(this.defNode(typeName));
    if (validate(toPlain(value))) return { valid: true, errors: [] };
    return { valid: false, errors: [...new Set(validate.errors.map((e) => e.instancePath))] };
  }

  /** What a node says by itself and through `$ref`/`allOf`; `anyOf`/`oneOf` are kept as unions. */
  shape(node, seen = new Set()) {
    if (node === true || node === undefined) return emptyShape();
    if (node === false) return { ...emptyShape(), types: new Set() };
    if (this.shapes.has(node)) return this.shapes.get(node);
    if (seen.has(node)) return emptyShape();
    seen.add(node);
    const s = emptyShape();
    if (node.type !== undefined) s.types = new Set([node.type].flat());
    if ("const" in node) s.consts.push(node.const);
    if (Array.isArray(node.enum)) s.enums.push(node.enum);
    for (const [name, sub] of Object.entries(node.properties ?? {})) s.props.set(name, [sub]);
    for (const r of node.required ?? []) s.required.add(r);
    if ("additionalProperties" in node) s.additional.push(node.additionalProperties);
    if ("items" in node) s.items.push(node.items);
    for (const f of [FLAG_ON_ERROR, FLAG_ON_NULL, FLAG_SKIP_ITEMS]) if (node[f] === true) s.flags.add(f);
    if (typeof node.format === "string") s.formats.add(node.format);
    s.minimum = node.minimum;
    s.maximum = node.maximum;
    s.minItems = node.minItems;
    s.minLength = node.minLength;
    if (node.$ref) mergeShape(s, this.shape(this.resolveRef(node.$ref), seen));
    for (const sub of node.allOf ?? []) mergeShape(s, this.shape(sub, seen));
    for (const key of ["anyOf", "oneOf"]) if (Array.isArray(node[key])) s.unions.push(node[key]);
    this.shapes.set(node, s);
    return s;
  }

  /**
   * Branches of a union that accept the value and the branch its tag names
   * (a decoder reads the value as that branch, through its rules, even when
   * another branch accepts it as it is); when none of those, all of them.
   */
  plausibleBranches(branches, plain) {
    const tagged = this.tagOf(branches);
    const named = tagged && isObject(plain) && tagged.claimed.has(plain[tagged.tag]) ? plain[tagged.tag] : undefined;
    const picked = branches.filter((b, i) => {
      if (named !== undefined && tagged.branchTags[i] === named) return true;
      const validate = this.validatorFor(b);
      return validate === undefined || validate(plain);
    });
    return picked.length > 0 ? picked : branches;
  }

  /** Merged shape of the nodes for one (plain) value, through the branches that fit it. */
  view(nodes, plain) {
    const parts = [];
    const keyParts = [];
    const expand = (node, depth) => {
      const s = this.shape(node);
      parts.push(s);
      keyParts.push(isObject(node) ? this.ids.get(node) : String(node));
      if (depth > 32) return;
      for (const union of s.unions) {
        for (const b of this.plausibleBranches(union, plain)) expand(b, depth + 1);
      }
    };
    for (const n of nodes) expand(n, 0);
    if (parts.length === 1) return parts[0];
    const key = keyParts.join(",");
    if (!this.views.has(key)) this.views.set(key, parts.reduce(mergeShape, emptyShape()));
    return this.views.get(key);
  }

  /** True when the nodes put no constraint on the value ("any JSON": `{}`, `true`, an unconstrained branch). */
  acceptsAny(node, depth = 0) {
    const s = this.shape(node);
    const constrained =
      s.types !== null ||
      s.consts.length ||
      s.enums.length ||
      s.props.size ||
      s.required.size ||
      s.items.length ||
      s.additional.some((a) => a !== true) ||
      s.minimum !== undefined ||
      s.maximum !== undefined;
    if (constrained || depth > 16) return false;
    return s.unions.every((u) => u.some((b) => this.acceptsAny(b, depth + 1)));
  }

  /** Objects with `additionalProperties: true` and no declared members, like `_meta`. */
  isOpenObject(node) {
    const s = this.shape(node);
    return s.props.size === 0 && s.additional.includes(true) && (s.types === null || s.types.has("object"));
  }

  allowsNull(node, depth = 0) {
    const s = this.shape(node);
    if (s.types !== null && !s.types.has("null")) return false;
    if (s.consts.length && !s.consts.includes(null)) return false;
    if (s.enums.some((e) => !e.includes(null))) return false;
    if (depth > 16) return true;
    return s.unions.every((u) => u.some((b) => this.allowsNull(b, depth + 1)));
  }

  /**
   * The tag of a union whose branches are told apart by a required string
   * `const` member: `{tag, claimed, branchTags}` (the tag value of each branch,
   * undefined for a branch without one) or null.
   */
  tagOf(union) {
    if (!this.tags.has(union)) this.tags.set(union, this.findTag(union));
    return this.tags.get(union);
  }

  /** Required members of a node with a string `const`: name -> value. */
  constMembers(node) {
    const s = this.shape(node);
    const out = new Map();
    for (const [name, nodes] of s.props) {
      const consts = nodes.flatMap((n) => this.shape(n).consts).filter((c) => typeof c === "string");
      if (s.required.has(name) && consts.length) out.set(name, consts[0]);
    }
    return out;
  }

  findTag(union) {
    if (union.length < 2) return null;
    const perBranch = union.map((b) => this.constMembers(b));
    const counts = new Map();
    for (const members of perBranch) for (const name of members.keys()) counts.set(name, (counts.get(name) ?? 0) + 1);
    const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    if (ranked.length === 0) return null;
    const tag = ranked[0][0];
    const branchTags = perBranch.map((m) => m.get(tag));
    return { tag, claimed: new Set(branchTags.filter((t) => t !== undefined)), branchTags };
  }

  /**
   * String values an enum offers (`enum`, or a union with string `const`
   * branches): `{values, open}`, open when a branch takes other strings too;
   * null for anything else, a lone `const` (a tag) included.
   */
  stringChoices(view) {
    const values = new Set(view.enums.flat().filter((c) => typeof c === "string"));
    let open = false;
    for (const union of view.unions) {
      for (const b of union) {
        const s = this.shape(b);
        for (const c of [...s.consts, ...s.enums.flat()]) if (typeof c === "string") values.add(c);
        open ||= s.consts.length === 0 && s.enums.length === 0 && (s.types === null || s.types.has("string"));
      }
    }
    return values.size ? { values, open } : null;
  }

  /**
   * Walks a plain value together with its schema nodes, calling
   * `visit({value, view, path, site, inObject})` for every position (pre-order).
   * `site` names the position in the type rather than in this value: array
   * items are `*` and members of maps (not declared in `properties`) are `{}`.
   */
  walk(plain, nodes, visit, path = [], site = "", inObject = false) {
    const view = this.view(nodes, plain);
    visit({ value: plain, view, path, site, inObject });
    if (Array.isArray(plain)) {
      const items = view.items.filter((n) => n !== false);
      if (items.length) plain.forEach((item, i) => this.walk(item, items, visit, [...path, i], `${site}/*`, false));
    } else if (isObject(plain)) {
      for (const key of Object.keys(plain)) {
        const declared = view.props.get(key);
        const sub = (declared ?? view.additional).filter((n) => n !== false);
        const subSite = declared ? `${site}/${escapeToken(key)}` : `${site}/{}`;
        if (sub.length) this.walk(plain[key], sub, visit, [...path, key], subSite, true);
      }
    }
  }
}
