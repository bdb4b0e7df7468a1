import type { MockFault, MockScript, MockTurn } from "./script.js";

/** Which turn a request gets, which attempt at that turn it is, and the fault it meets. */
export interface TurnSelection {
  turn: number;
  attempt: number;
  /** Undefined when the script has no such turn. */
  script: MockTurn | undefined;
  fault: MockFault | undefined;
}

/**
 * Picks turns deterministically. History mode uses the request's assistant-run count;
 * sequential mode a cursor that moves on only when a turn is answered (an error or cut
 * fault leaves it, so a retry gets the same turn). Attempts are counted per turn index.
 */
export class TurnSelector {
  readonly #attempts = new Map<number, number>();
  #cursor = 0;

  /** Selectors of the script's routes, by route index: each counts attempts on its own turns. */
  readonly #routes = new Map<number, TurnSelector>();

  /** The turn for a request: from the first route whose `system` the request's system prompt contains, else the script's. */
  selectFor(script: MockScript, assistantRuns: number, systemText: string): TurnSelection & { route?: number } {
    const route = script.routes?.findIndex((candidate) => systemText.includes(candidate.system)) ?? -1;
    if (route < 0) return this.select(script, assistantRuns);
    let selector = this.#routes.get(route);
    if (!selector) this.#routes.set(route, (selector = new TurnSelector()));
    const turns = script.routes?.[route]?.turns ?? [];
    return { ...selector.select({ turns }, assistantRuns), route };
  }

  select(script: MockScript, assistantRuns: number): TurnSelection {
    const turn = script.mode === "sequential" ? this.#cursor : assistantRuns;
    const attempt = this.#attempts.get(turn) ?? 0;
    this.#attempts.set(turn, attempt + 1);
    const scripted = script.turns[turn];
    const fault = scripted?.faults?.[attempt];
    const answered = scripted !== undefined && (fault === undefined || fault.type === "delay");
    if (script.mode === "sequential" && answered) this.#cursor++;
    return { turn, attempt, script: scripted, fault };
  }

  reset(): void {
    this.#routes.clear();
    this.#attempts.clear();
    this.#cursor = 0;
  }
}
