// Loads the TypeScript package of a bindings folder written by
// `cargo xtask generate` (the folder holding `typescript/` and `vectors/`) the
// way a dependant does: by its name (`name` in `typescript/package.json`),
// from `<folder>/ts-consumer/`, where `cargo xtask test` installs the packed
// package, so Node resolves it through `node_modules` and its `exports`. The
// package found must be the one built in `typescript/dist`, byte for byte.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export async function loadBindings(folder) {
  const root = resolve(folder);
  const name = JSON.parse(readFileSync(join(root, "typescript", "package.json"), "utf8")).name ?? "acp-bindings";
  const consumer = join(root, "ts-consumer");
  const installed = join(consumer, "node_modules", ...name.split("/"));
  if (!existsSync(join(installed, "package.json"))) {
    throw new Error(`${name} is not installed in ${consumer}: cargo xtask test packs and installs it there`);
  }
  const { importPackage } = await import(pathToFileURL(join(consumer, "import-package.mjs")).href);
  const { url, module } = await importPackage(name);
  const entry = fileURLToPath(url);
  if (!entry.startsWith(installed + sep)) {
    throw new Error(`${name} resolved to ${entry}, outside ${installed}`);
  }
  const built = join(root, "typescript", "dist");
  const differing = readdirSync(built, { recursive: true, withFileTypes: true })
    .filter((file) => file.isFile())
    .map((file) => relative(built, join(file.parentPath, file.name)))
    .filter(
      (path) =>
        !existsSync(join(installed, "dist", path)) ||
        !readFileSync(join(installed, "dist", path)).equals(readFileSync(join(built, path))),
    );
  if (differing.length > 0) {
    throw new Error(
      `${name} installed in ${consumer} is not the package built in ${built}: ${differing.join(", ")} differ`,
    );
  }
  return module;
}

/** JSON equality, object member order aside. */
export function jsonEqual(left, right) {
  if (left === right) return true;
  if (Array.isArray(left) || Array.isArray(right)) {
    return (
      Array.isArray(left) &&
      Array.isArray(right) &&
      left.length === right.length &&
      left.every((item, index) => jsonEqual(item, right[index]))
    );
  }
  if (typeof left === "object" && typeof right === "object" && left !== null && right !== null) {
    const keys = Object.keys(left);
    return (
      keys.length === Object.keys(right).length &&
      keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]))
    );
  }
  return false;
}
