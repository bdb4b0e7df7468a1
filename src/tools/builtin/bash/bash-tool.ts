import { z } from "zod";
import { defineTool } from "../../define-tool.js";
import type { Tool, ToolContext, ToolResult } from "../../tool.js";
import { backgroundShellsOf } from "./background-shells.js";
import { BASH_MAX_OUTPUT_CHARS, type BashToolsOptions, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS } from "./bash-options.js";
import { foregroundCallsOf } from "./foreground-calls.js";
import { formatForeground } from "./format-foreground.js";
import { confiningSandbox, SANDBOX_DESCRIPTION, withSandboxReport } from "./sandbox-report.js";
import { runForeground } from "./run-foreground.js";
import { commandEnvironment, resolveShell, withheldVariables } from "./shell-environment.js";
import { spillDirectoryOf } from "./spill-directory.js";

/** Bash input, field for field as in Claude Code. `timeout` above the maximum is clamped, not rejected. */
export const BashInput = z.object({
  command: z.string().min(1).describe("The command to execute"),
  timeout: z.number().positive().optional().describe(`Optional timeout in milliseconds (max ${MAX_TIMEOUT_MS})`),
  description: z
    .string()
    .optional()
    .describe(
      "Clear, concise description of what this command does in 5-10 words, in active voice. " +
        'Examples: "Lists files in current directory", "Installs package dependencies"',
    ),
  run_in_background: z
    .boolean()
    .optional()
    .describe("Set to true to run this command in the background. Use BashOutput to read the output later."),
});
export type BashInput = z.infer<typeof BashInput> & { dangerouslyDisableSandbox?: boolean };

/** Bash input when commands run sandboxed: Claude Code's escape hatch is offered too. */
const SandboxedBashInput = BashInput.extend({
  dangerouslyDisableSandbox: z
    .boolean()
    .optional()
    .describe(
      "Set to true to run this command outside the sandbox, only when it failed because of the sandbox " +
        "(a blocked write or connection). It then needs the user's permission.",
    ),
});

const DESCRIPTION = `Executes a bash command in a non-interactive shell and returns its output.

- The command runs in the working directory of the session. Quote paths that contain spaces.
- stdout and stderr are returned together, in the order they were written. A non-zero exit is reported as an error with "Exit code N".
- stdin is closed: commands that wait for input get end-of-file, and pagers and credential prompts are disabled.
- timeout is in milliseconds: default ${DEFAULT_TIMEOUT_MS} (2 minutes), at most ${MAX_TIMEOUT_MS} (10 minutes); larger values are clamped. On timeout the command and every process it started are killed.
- Output longer than ${BASH_MAX_OUTPUT_CHARS} characters is cut to its beginning and end; up to 64 MiB of it (beginning and end) is saved to a file whose path is given, which is deleted when the session's run ends.
- For long-running processes (servers, watchers) set run_in_background: true; you get a shell ID at once. Read new output with BashOutput and stop it with KillShell. Do not use '&' for this: processes left behind by a foreground command are stopped when it exits.
- Prefer the dedicated tools for reading, searching and editing files over cat, grep, find, sed and echo.
- Chain dependent commands with '&&'; use ';' only when later commands should run even if earlier ones fail.`;

/** The Bash tool: runs a shell command in the foreground, or in the background with `run_in_background`. */
export function bashTool(options: BashToolsOptions = {}): Tool<BashInput> {
  const withheld = withheldVariables(options);
  return defineTool({
    name: "Bash",
    description: options.sandbox ? `${DESCRIPTION}\n${SANDBOX_DESCRIPTION}` : DESCRIPTION,
    inputSchema: options.sandbox ? SandboxedBashInput : BashInput,
    sideEffect: "mutating",
    maxOutputChars: BASH_MAX_OUTPUT_CHARS,
    execute: (input, context) =>
      input.run_in_background
        ? runInBackground(input, context, options, withheld)
        : run(input, context, options, withheld),
  });
}

async function run(
  input: BashInput,
  context: ToolContext,
  options: BashToolsOptions,
  withheld: ReadonlySet<string>,
): Promise<ToolResult> {
  const timeoutMs = Math.min(input.timeout ?? options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);
  const spills = spillDirectoryOf(context.session);
  const calls = foregroundCallsOf(context.session);
  const sandbox = confiningSandbox(input, options);
  const watch = sandbox?.watch(context.cwd);
  const running = runForeground({
    sandbox,
    command: input.command,
    cwd: context.cwd,
    shell: resolveShell(options.shell),
    env: commandEnvironment(options.env, process.env, withheld),
    pty: options.pty ?? false,
    timeoutMs,
    signal: AbortSignal.any([context.signal, calls.signal]),
    openSpill: () => spills.create(context.toolUseId, options.maxOutputFileBytes),
    killGraceMs: options.killGraceMs,
    progressIntervalMs: options.progressIntervalMs,
    onProgress: (progress) => context.reportProgress(progress),
  });
  let outcome;
  try {
    outcome = await calls.track(running);
  } catch (error) {
    watch?.end();
    throw error;
  }
  return withSandboxReport(formatForeground(outcome, timeoutMs), input, options, watch, context);
}

async function runInBackground(
  input: BashInput,
  context: ToolContext,
  options: BashToolsOptions,
  withheld: ReadonlySet<string>,
): Promise<ToolResult> {
  const shell = await backgroundShellsOf(context.session).start({
    sandbox: confiningSandbox(input, options),
    command: input.command,
    description: input.description,
    cwd: context.cwd,
    shell: resolveShell(options.shell),
    env: commandEnvironment(options.env, process.env, withheld),
    pty: options.pty ?? false,
    killGraceMs: options.killGraceMs,
    maxOutputFileBytes: options.maxOutputFileBytes,
  });
  return {
    content: `Command running in background with ID: ${shell.id}`,
    data: { backgroundTaskId: shell.id },
  };
}
