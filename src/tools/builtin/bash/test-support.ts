import type { ToolContext, ToolEvent } from "../../tool.js";
import { ToolSession } from "../../tool-session.js";

/** A ToolContext for tests, with what the tool reported and emitted collected in arrays. */
export interface TestToolContext extends ToolContext {
  readonly controller: AbortController;
  readonly progress: unknown[];
  readonly events: ToolEvent[];
}

let calls = 0;

/** Build a context for calling a tool's `execute` directly (one fresh session unless given). */
export function createTestToolContext(overrides: Partial<ToolContext> = {}): TestToolContext {
  const controller = new AbortController();
  const sessionId = overrides.sessionId ?? `test-session-${process.pid}`;
  const progress: unknown[] = [];
  const events: ToolEvent[] = [];
  calls += 1;
  return {
    cwd: process.cwd(),
    signal: controller.signal,
    sessionId,
    toolUseId: `toolu_test_${calls}`,
    session: new ToolSession(sessionId),
    reportProgress: (data) => progress.push(data),
    emit: (event) => events.push(event),
    ...overrides,
    controller,
    progress,
    events,
  };
}

/**
 * Poll `check` until it returns a value other than undefined/false, for at most `timeoutMs`.
 * For tests that wait on real events (a process ending, output appearing), never on time.
 */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 15_000, intervalMs = 20, what = "condition" } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
