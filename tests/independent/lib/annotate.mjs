// Per-value annotations from walking the value with the RAW schema:
// - `repairable`: JSON pointers where an x-deserialize rule applies
//   (a) present members whose property schema has x-deserialize-default-on-error,
//   (b) null members whose property schema has x-deserialize-default-on-null,
//   (c) every item of an array member with x-deserialize-skip-invalid-items;
// - `skipArrays`: the pointers of those arrays;
// - `intFormatIssues`: numbers under an integer `format` (int32, uint64, ...)
//   whose exact text is not an integer within the format's range. ajv does not
//   check these formats (and sees numbers beyond 2^53 rounded), so a value it
//   accepts may still be one a typed decoder must reject.

import { RawNumber, getAt, pointer, toPlain } from "./json.mjs";
import { FLAG_ON_ERROR, FLAG_ON_NULL, FLAG_SKIP_ITEMS } from "./schema.mjs";
import { intFormatRange } from "./extras.mjs";

function outsideIntFormat(view, raw) {
  const range = intFormatRange(view);
  if (!range) return false;
  const text = raw instanceof RawNumber ? raw.text : JSON.stringify(raw);
  if (!/^-?\d+$/.test(text)) return true;
  const n = BigInt(text);
  return n < range[0] || n > range[1];
}

export function annotate(index, typeName, value) {
  const repairable = new Set();
  const skipArrays = [];
  const intFormatIssues = [];
  index.walk(toPlain(value), [index.defNode(typeName)], ({ value: v, view, path, inObject }) => {
    const ptr = pointer(path);
    if (inObject && view.flags.has(FLAG_ON_ERROR)) repairable.add(ptr);
    if (inObject && v === null && view.flags.has(FLAG_ON_NULL)) repairable.add(ptr);
    if (inObject && Array.isArray(v) && view.flags.has(FLAG_SKIP_ITEMS)) {
      skipArrays.push(ptr);
      v.forEach((_, i) => repairable.add(pointer([...path, i])));
    }
    if (typeof v === "number" && outsideIntFormat(view, getAt(value, path))) intFormatIssues.push(ptr);
  });
  return { repairable: [...repairable], skipArrays, intFormatIssues };
}
