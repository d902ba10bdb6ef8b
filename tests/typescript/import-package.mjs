// Copied by `cargo xtask test` into the folder it installs the packed package
// into (`<bindings>/ts-consumer/`), so that a package name resolves from here
// as it does for any dependant: through this folder's `node_modules` and the
// package's `exports`.

/** The package `name` as code in this folder sees it: its resolved URL and its module. */
export async function importPackage(name) {
  return { url: import.meta.resolve(name), module: await import(name) };
}
