// The turn tracker of the TypeScript package for protocol v2 (the latest
// release's stable schema) on the v2 scenarios of `tests/helpers.json`:
// `session/update` params decoded with `decodeUpdateSessionNotification`,
// turns ended by the `idle` state update, and the agent's reply after it
// reported (the Rust and Python helpers run the same scenarios). Run by
// `cargo xtask test` on the v2 stable bindings; the folder comes from
// `ACP_BINDINGS`.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { loadBindings } from "./bindings.mjs";

const folder = process.env.ACP_BINDINGS;
if (!folder) {
  throw new Error("set ACP_BINDINGS to a folder written by `cargo xtask generate`");
}
const bindings = await loadBindings(folder);
const table = JSON.parse(readFileSync(new URL("../helpers.json", import.meta.url), "utf8"));
const scenarios = table.scenarios.filter((scenario) => scenario.schema === "v2-stable");

test("the table has v2 scenarios, all of the turn tracker", () => {
  assert.ok(scenarios.length >= 5);
  assert.ok(scenarios.every((scenario) => scenario.helper === "turns"));
});

for (const scenario of scenarios) {
  test(`turns: ${scenario.name}`, () => {
    const tracker = bindings.TurnTracker.fromNegotiated(
      bindings.negotiate(
        { protocolVersion: 2, info: { name: "client", version: "1" } },
        { protocolVersion: 2, info: { name: "agent", version: "1" } },
      ),
    );
    let checked = 0;
    for (const [index, step] of scenario.steps.entries()) {
      let got;
      if ("prompt" in step) {
        tracker.prompt(step.prompt.session, step.prompt.request);
        assert.deepEqual(tracker.pending(step.prompt.session), step.prompt.request);
        continue;
      } else if ("update" in step) {
        const decoded = bindings.decodeUpdateSessionNotification(step.update);
        assert.ok(decoded.ok, JSON.stringify(decoded));
        got = tracker.update(decoded.value);
      } else if ("response" in step) got = tracker.response(step.response.request, step.response.accepted);
      else throw new Error(`unknown turn step ${JSON.stringify(step)}`);
      assert.deepEqual(JSON.parse(JSON.stringify(got)), step.expect, `step ${index}`);
      checked += 1;
    }
    assert.ok(checked > 0, "a scenario checks something");
  });
}
