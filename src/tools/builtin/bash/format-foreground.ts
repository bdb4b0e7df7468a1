import type { ToolResult } from "../../tool.js";
import type { ForegroundOutcome } from "./run-foreground.js";
import { describeLeftoversStopped, describeStopped, describeSurvivors } from "./stop-report-text.js";

/**
 * What the model sees of a finished foreground command: its output, then a line for
 * anything that was not a clean exit 0, and one for processes it left running. Anything but
 * a clean exit 0 with nothing left alive is an error result. Claims about stopped processes
 * are only made as far as they were verified.
 */
export function formatForeground(outcome: ForegroundOutcome, timeoutMs: number): ToolResult {
  const lines: string[] = [];
  const output = outcome.output.replace(/\n+$/, "");
  if (output) lines.push(output);
  const ending = describeEnding(outcome, timeoutMs);
  if (ending) lines.push(ending);
  // After a timeout or abort the ending already says what became of the processes.
  const leftovers = stoppedByUs(outcome) ? undefined : describeLeftovers(outcome);
  if (leftovers) lines.push(leftovers);
  const isError = ending !== undefined || outcome.stop.survivors.length > 0;
  if (lines.length === 0) lines.push("(no output)");
  return {
    content: lines.join("\n"),
    isError,
    data: {
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      timedOut: outcome.timedOut,
      interrupted: outcome.interrupted,
      outputChars: outcome.outputChars,
      outputPath: outcome.outputPath,
      ...(outcome.outputFileOmittedBytes > 0 && { outputFileOmittedBytes: outcome.outputFileOmittedBytes }),
      processesStopped: outcome.stop.stopped,
      ...(outcome.stop.survivors.length > 0 && { processesSurviving: outcome.stop.survivors }),
    },
  };
}

const stoppedByUs = (outcome: ForegroundOutcome) => outcome.timedOut || outcome.interrupted;

function describeEnding(outcome: ForegroundOutcome, timeoutMs: number): string | undefined {
  if (outcome.startError) return `Failed to start the shell: ${outcome.startError}`;
  if (outcome.timedOut) {
    return `Command timed out after ${formatDuration(timeoutMs)}; ${describeStopped(outcome.stop)}.`;
  }
  if (outcome.interrupted) return `Command was interrupted; ${describeStopped(outcome.stop)}.`;
  if (outcome.signal) return `Command was killed by ${outcome.signal}`;
  if (outcome.exitCode !== 0) return `Exit code ${outcome.exitCode}`;
  return undefined;
}

/** Processes the command left running when it exited by itself, which were stopped (or not). */
function describeLeftovers(outcome: ForegroundOutcome): string | undefined {
  const { stop } = outcome;
  const survivors = describeSurvivors(stop);
  if (stop.stopped === 0 && !survivors) return undefined;
  const parts: string[] = [];
  if (stop.stopped > 0) parts.push(`${describeLeftoversStopped(stop, "this command")} when it exited`);
  if (survivors) parts.push(survivors);
  return `Note: ${parts.join("; ")}. Use run_in_background for long-running processes.`;
}

function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1_000;
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${Math.round(seconds % 60)}s`;
}
