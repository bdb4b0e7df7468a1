import type { ToolContext, ToolResult } from "../../tool.js";
import type { BashToolsOptions } from "./bash-options.js";
import type { CommandSandbox, SandboxWatch } from "./command-sandbox.js";

/** Added to Bash's description when commands run sandboxed. */
export const SANDBOX_DESCRIPTION = `- Commands run in a sandbox: they can read the system, write only inside the working directory, the additional directories and $TMPDIR, and reach only the allowed network hosts (through a proxy set in HTTP_PROXY/HTTPS_PROXY). When the sandbox blocks something, the result says what.`;

type Input = { command: string; dangerouslyDisableSandbox?: boolean };

/** The sandbox this call runs in, or undefined when it runs unconfined (no sandbox, excluded, or honoured opt-out). */
export function confiningSandbox(input: Input, options: BashToolsOptions): CommandSandbox | undefined {
  const sandbox = options.sandbox;
  return sandbox?.confines(input) ? sandbox : undefined;
}

/**
 * The result with what the sandbox blocked appended in words the model can act on, each
 * violation also surfaced to the caller as a `sandbox_violation` event.
 */
export function withSandboxReport(
  result: ToolResult,
  input: Input,
  options: BashToolsOptions,
  watch: SandboxWatch | undefined,
  context: ToolContext,
): ToolResult {
  const notes: string[] = [];
  if (input.dangerouslyDisableSandbox && watch) {
    notes.push(
      "Note: dangerouslyDisableSandbox was ignored: unsandboxed commands are not allowed here " +
        "(sandbox.allowUnsandboxedCommands is false), so the command ran in the sandbox.",
    );
  }
  const violations = watch?.finish(typeof result.content === "string" ? result.content : "") ?? [];
  if (violations.length > 0) {
    context.emit({ type: "sandbox_violation", violations });
    const retry = options.sandbox?.allowsUnsandboxed
      ? " If the command must do this, retry it with dangerouslyDisableSandbox: true (the user will be asked)."
      : " Unsandboxed commands are not allowed here; ask the user to change the sandbox settings if this is needed.";
    notes.push(`The sandbox blocked:\n${violations.map((v) => `- ${v.message}`).join("\n")}\n${retry.trim()}`);
  }
  if (notes.length === 0 || typeof result.content !== "string") return result;
  return { ...result, content: `${result.content}\n\n${notes.join("\n\n")}` };
}
