// Loads the compiled TypeScript package of a bindings folder written by
// `cargo xtask generate` (the folder holding `typescript/` and `vectors/`),
// or of a package folder itself.

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export async function loadBindings(folder) {
  const root = resolve(folder);
  const candidates = [join(root, "typescript", "dist", "index.js"), join(root, "dist", "index.js")];
  const entry = candidates.find((candidate) => existsSync(candidate));
  if (entry === undefined) {
    throw new Error(`no compiled package in ${root}: looked for ${candidates.join(", ")} (run npm run build first)`);
  }
  return import(pathToFileURL(entry).href);
}

/** JSON equality, object member order aside. */
export function jsonEqual(left, right) {
  if (left === right) return true;
  if (Array.isArray(left) || Array.isArray(right)) {
    return Array.isArray(left) && Array.isArray(right) && left.length === right.length && left.every((item, index) => jsonEqual(item, right[index]));
  }
  if (typeof left === "object" && typeof right === "object" && left !== null && right !== null) {
    const keys = Object.keys(left);
    return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]));
  }
  return false;
}
