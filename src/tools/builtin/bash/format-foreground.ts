import type { ToolResult } from "../../tool.js";
import type { ForegroundOutcome } from "./run-foreground.js";

/**
 * What the model sees of a finished foreground command: its output, then a line for
 * anything that was not a clean exit 0. Anything but a clean exit 0 is an error result.
 */
export function formatForeground(outcome: ForegroundOutcome, timeoutMs: number): ToolResult {
  const lines: string[] = [];
  const output = outcome.output.replace(/\n+$/, "");
  if (output) lines.push(output);
  const ending = describeEnding(outcome, timeoutMs);
  if (ending) lines.push(ending);
  if (outcome.strayProcessesStopped) {
    lines.push(
      "Note: processes started by this command still held its output open after it exited, so they were " +
        "stopped. Use run_in_background for long-running processes.",
    );
  }
  const isError = ending !== undefined;
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
    },
  };
}

function describeEnding(outcome: ForegroundOutcome, timeoutMs: number): string | undefined {
  if (outcome.startError) return `Failed to start the shell: ${outcome.startError}`;
  if (outcome.timedOut) {
    return `Command timed out after ${formatDuration(timeoutMs)}; it and every process it started were killed.`;
  }
  if (outcome.interrupted) return "Command was interrupted; it and every process it started were killed.";
  if (outcome.signal) return `Command was killed by ${outcome.signal}`;
  if (outcome.exitCode !== 0) return `Exit code ${outcome.exitCode}`;
  return undefined;
}

function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1_000;
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m ${Math.round(seconds % 60)}s`;
}
