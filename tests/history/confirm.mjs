// Confirms the review's witnesses with a second validator, ajv (the one in
// tests/independent): each witness payload must pass the writer's schema node
// and, where the reader's schema (not its method table) refused it, fail the
// reader's node. Reads the cases from argv[2], prints one JSON summary line,
// exits 1 on any disagreement.
//
// A case: {"label", "writer": {"file", "pointer"}, "reader": {"file",
// "pointer"} | null, "payload"}.

import fs from "node:fs";
import Ajv2020 from "../independent/node_modules/ajv/dist/2020.js";

const cases = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const validators = new Map();

function validator(file, pointer) {
  const key = `${file}#${pointer}`;
  if (!validators.has(key)) {
    if (!validators.has(file)) {
      const doc = JSON.parse(fs.readFileSync(file, "utf8"));
      delete doc.$schema;
      const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
      ajv.addSchema(doc, "urn:history:document");
      validators.set(file, ajv);
    }
    const ajv = validators.get(file);
    const escaped = pointer
      .split("/")
      .map((token) => encodeURIComponent(token))
      .join("/");
    validators.set(key, ajv.compile({ $ref: `urn:history:document#${escaped}` }));
  }
  return validators.get(key);
}

const disagreements = [];
let readerChecked = 0;
for (const item of cases) {
  if (!validator(item.writer.file, item.writer.pointer)(item.payload)) {
    disagreements.push(`${item.label}: the writer's schema rejects the witness`);
  }
  if (item.reader) {
    readerChecked += 1;
    if (validator(item.reader.file, item.reader.pointer)(item.payload)) {
      disagreements.push(`${item.label}: the reader's schema accepts the witness`);
    }
  }
}
console.log(JSON.stringify({ witnesses: cases.length, readerChecked, disagreements }));
process.exit(disagreements.length === 0 ? 0 : 1);
