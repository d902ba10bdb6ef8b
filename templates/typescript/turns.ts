// The turn tracker's machine of acp-codegen (RFD turn-complete, rules R2 and
// R4; protocol v2's `idle` state update), copied as it is into every
// generated TypeScript package (`src/turns.ts`; the source is
// `templates/typescript/turns.ts`, type-checked alone with `tsc --strict`).
// It reads `session/update` params as their wire JSON through the members
// the schema names, passed in as `TurnMachineRules` (the generated
// `helpers.ts` prints them and holds the typed `TurnTracker` over this
// machine); the client's end of a connection (`connection.ts`) runs it on
// the wire to know when a prompt's turn is drained. A pure state machine:
// the Rust, Python and Go bindings implement the same and decide alike.

/** The schema's members and tags the machine reads (wire names). */
export interface TurnMachineRules {
  /** The notification's session and update members, and the update's tag member. */
  readonly session: string;
  readonly update: string;
  readonly tagProperty: string;
  /** The tags of turn output, and of the agent's reply among them. */
  readonly output: readonly string[];
  readonly replies: readonly string[];
  /** The `turn_complete` update (v1): its tag and its members naming the prompt request and the stop reason. */
  readonly complete: { readonly tag: string; readonly request: string; readonly stopReason: string } | null;
  /** The state update (v2): its tag, its state member and the `idle` state. */
  readonly lifecycle: { readonly tag: string; readonly state: string; readonly idle: string } | null;
}

/** A rule the agent broke: R4 for an update after the prompt response, R2 for the rest. */
export type ViolationKind =
  | "update_after_response"
  | "update_after_turn_complete"
  | "duplicate_turn_complete"
  | "stop_reason_mismatch"
  | "unknown_turn"
  | "update_after_idle";

export interface TurnViolation<R> {
  readonly rule: "R2" | "R4";
  readonly kind: ViolationKind;
  readonly session: string;
  readonly request: R | null;
}

/** What the machine made of one message: its turn, the turn it drained, the rules broken. */
export interface TurnObservation<R> {
  readonly turn: R | null;
  readonly drained: R | null;
  readonly violations: readonly TurnViolation<R>[];
}

interface Turn<R> {
  readonly request: R;
  readonly key: string;
  /** The response arrived; `refused`: it was an error (v1) or did not accept the prompt (v2); `stopReason`: its JSON text (v1). */
  responded: { readonly refused: boolean; readonly stopReason: string } | null;
  /** The `turn_complete` stop reason's JSON text (v1). */
  completed: string | null;
  /** A non-idle state came after the prompt; the `idle` that ended the turn came (v2). */
  working: boolean;
  idled: boolean;
}

function member(value: unknown, name: string): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  return (value as { readonly [key: string]: unknown })[name];
}

function text(value: unknown, name: string): string {
  const found = member(value, name);
  return typeof found === "string" ? found : "";
}

/** The JSON text of a value, which identifies a request id or a stop reason. */
function jsonKey(value: unknown): string {
  return JSON.stringify(value ?? null);
}

/** The turn machine; `R` is the request id as its caller holds it (its wire JSON). */
export class TurnMachine<R> {
  readonly rules: TurnMachineRules;
  /** Whether the agent advertised `turn_complete` (v1): without it a turn is drained by its response alone. */
  readonly turnComplete: boolean;
  /** The turns by session, in the order the sessions were first prompted. */
  readonly #sessions = new Map<string, Turn<R>[]>();
  /** The sessions whose last state was not `idle`. */
  readonly #working = new Set<string>();

  constructor(rules: TurnMachineRules, turnComplete: boolean) {
    this.rules = rules;
    this.turnComplete = turnComplete;
  }

  #drained(turn: Turn<R>): boolean {
    if (turn.responded === null) return false;
    if (turn.responded.refused) return true;
    if (this.rules.lifecycle !== null) return turn.idled;
    return turn.completed !== null || !this.turnComplete;
  }

  #find(key: string): { session: string; turn: Turn<R> } | undefined {
    for (const [session, turns] of this.#sessions) {
      const turn = turns.find((candidate) => candidate.key === key);
      if (turn !== undefined) return { session, turn };
    }
    return undefined;
  }

  /** The client's prompt `request` for `session`. */
  prompt(session: string, request: R): void {
    const turns = (this.#sessions.get(session) ?? []).filter((turn) => !this.#drained(turn));
    turns.push({ request, key: jsonKey(request), responded: null, completed: null, working: false, idled: false });
    this.#sessions.set(session, turns);
  }

  /** A `session/update` notification, as wire JSON. */
  update(notification: unknown): TurnObservation<R> {
    const session = text(notification, this.rules.session);
    const update = member(notification, this.rules.update);
    const tag = text(update, this.rules.tagProperty);
    const lifecycle = this.rules.lifecycle;
    if (lifecycle !== null) {
      if (tag === lifecycle.tag) return this.#state(session, text(update, lifecycle.state) === lifecycle.idle);
      return this.#reply(session, tag);
    }
    const violations: TurnViolation<R>[] = [];
    const violation = (kind: ViolationKind, request: R): TurnViolation<R> => ({
      rule: kind === "update_after_response" ? "R4" : "R2",
      kind,
      session,
      request,
    });
    const complete = this.rules.complete;
    if (complete !== null && tag === complete.tag) {
      const request = member(update, complete.request);
      const stopReason = jsonKey(member(update, complete.stopReason));
      const turn = this.#sessions.get(session)?.find((candidate) => candidate.key === jsonKey(request));
      if (turn === undefined) {
        const unknown = { rule: "R2", kind: "unknown_turn", session, request: (request ?? null) as R | null } as const;
        return { turn: null, drained: null, violations: [unknown] };
      }
      if (turn.responded !== null) violations.push(violation("update_after_response", turn.request));
      if (turn.completed !== null) {
        violations.push(violation("duplicate_turn_complete", turn.request));
        return { turn: turn.request, drained: null, violations };
      }
      if (turn.responded !== null && !turn.responded.refused && turn.responded.stopReason !== stopReason) {
        violations.push(violation("stop_reason_mismatch", turn.request));
      }
      const wasDrained = this.#drained(turn);
      turn.completed = stopReason;
      return { turn: turn.request, drained: !wasDrained && this.#drained(turn) ? turn.request : null, violations };
    }
    const turns = this.#sessions.get(session) ?? [];
    const turn = turns[turns.length - 1];
    if (!this.rules.output.includes(tag) || turn === undefined) return { turn: null, drained: null, violations };
    if (turn.responded !== null) violations.push(violation("update_after_response", turn.request));
    else if (turn.completed !== null) violations.push(violation("update_after_turn_complete", turn.request));
    return { turn: turn.request, drained: null, violations };
  }

  /**
   * Turn output in protocol v2: the agent's message or thought after the
   * `idle` that ended its turn, before new foreground work, breaks R2; tool
   * calls and plans may be background work and are not judged.
   */
  #reply(session: string, tag: string): TurnObservation<R> {
    const turns = this.#sessions.get(session) ?? [];
    const turn = turns[turns.length - 1];
    if (!this.rules.output.includes(tag) || turn === undefined) return { turn: null, drained: null, violations: [] };
    if (!turn.idled) return { turn: turn.request, drained: null, violations: [] };
    if (!this.rules.replies.includes(tag) || this.#working.has(session))
      return { turn: null, drained: null, violations: [] };
    const violation = { rule: "R2", kind: "update_after_idle", session, request: turn.request } as const;
    return { turn: turn.request, drained: null, violations: [violation] };
  }

  /** A state snapshot (v2): a non-idle state marks the open turns as working; `idle` ends those that worked or were answered. */
  #state(session: string, idle: boolean): TurnObservation<R> {
    if (idle) this.#working.delete(session);
    else this.#working.add(session);
    let turn: R | null = null;
    let drained: R | null = null;
    for (const candidate of this.#sessions.get(session) ?? []) {
      if (candidate.idled) continue;
      if (!idle) {
        candidate.working = true;
        turn = candidate.request;
      } else if (candidate.working || candidate.responded !== null) {
        const wasDrained = this.#drained(candidate);
        candidate.idled = true;
        turn = candidate.request;
        if (!wasDrained && this.#drained(candidate)) drained = candidate.request;
      }
    }
    return { turn, drained, violations: [] };
  }

  /**
   * The response to the prompt `request`: `refused` for an error response
   * (v1) or a prompt not accepted (v2); its stop reason's JSON text
   * otherwise (v1).
   */
  response(request: R, refused: boolean, stopReason: string): TurnObservation<R> {
    const found = this.#find(jsonKey(request));
    if (found === undefined) return { turn: null, drained: null, violations: [] };
    const { session, turn } = found;
    if (turn.responded !== null) return { turn: request, drained: null, violations: [] };
    const violations: TurnViolation<R>[] = [];
    if (turn.completed !== null && !refused && turn.completed !== stopReason && this.rules.lifecycle === null) {
      violations.push({ rule: "R2", kind: "stop_reason_mismatch", session, request });
    }
    turn.responded = { refused, stopReason };
    return { turn: request, drained: this.#drained(turn) ? request : null, violations };
  }

  /** Whether the turn of the prompt `request` is drained (false for a request the machine does not track). */
  isDrained(request: R): boolean {
    const found = this.#find(jsonKey(request));
    return found !== undefined && this.#drained(found.turn);
  }

  /** The prompt request of `session`'s turn that is not drained yet. */
  pending(session: string): R | undefined {
    return [...(this.#sessions.get(session) ?? [])].reverse().find((turn) => !this.#drained(turn))?.request;
  }
}
