import { ABORTED, untilAborted } from "../async/index.js";
import { errorMessage } from "../errors/index.js";
import type { HookCallback } from "./config.js";
import type { HookInput } from "./events.js";
import { hookError, type HookErrorKind, type HookRunResult, type HookSource } from "./outcome.js";
import { parseHookOutput } from "./output.js";

export interface CallbackRun {
  callback: HookCallback;
  source: HookSource;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Run one callback hook. Its signal aborts on timeout or when the run's signal aborts;
 * the result does not wait for a callback that ignores its signal. A throw, a timeout
 * or output that does not fit the schema becomes a reported error, never a rejection;
 * what the error does is the matcher's `onFailure` (see `HookError.onFailure`).
 */
export async function runCallback(run: CallbackRun, input: HookInput): Promise<HookRunResult> {
  const { source } = run;
  if (run.signal?.aborted) {
    const message = `Hook ${source.name} was not run: the run was already interrupted.`;
    return { ok: false, source, error: hookError(input.hook_event_name, source, "aborted", message) };
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort("timeout"), run.timeoutMs);
  const onRunAbort = () => controller.abort("aborted");
  run.signal?.addEventListener("abort", onRunAbort, { once: true });
  const toolUseId = "tool_use_id" in input ? input.tool_use_id : undefined;
  const fail = (kind: HookErrorKind, message: string): HookRunResult => ({
    ok: false,
    source,
    error: hookError(input.hook_event_name, source, kind, message),
  });
  try {
    const value = await untilAborted(
      Promise.resolve().then(() => run.callback(input, toolUseId, { signal: controller.signal })),
      controller.signal,
    );
    if (value === ABORTED) {
      return controller.signal.reason === "timeout"
        ? fail("timeout", `Hook ${source.name} timed out after ${run.timeoutMs} ms.`)
        : fail("aborted", `Hook ${source.name} was interrupted.`);
    }
    const parsed = parseHookOutput(value);
    return parsed.ok ? { ok: true, source, output: parsed.output } : fail("invalid_output", parsed.message);
  } catch (error) {
    return fail("threw", `Hook ${source.name} threw: ${errorMessage(error)}`);
  } finally {
    clearTimeout(timer);
    run.signal?.removeEventListener("abort", onRunAbort);
  }
}
