import { z } from "zod";
import { errorMessage } from "../../../errors/index.js";
import { defineTool } from "../../define-tool.js";
import type { Tool, ToolContext, ToolResult } from "../../tool.js";
import { type BackgroundShell, backgroundShellsOf } from "./background-shells.js";
import { BASH_MAX_OUTPUT_CHARS } from "./bash-options.js";

/** BashOutput input, as in Claude Code. */
export const BashOutputInput = z.object({
  bash_id: z.string().min(1).describe("The ID of the background shell to retrieve output from"),
  filter: z
    .string()
    .optional()
    .describe(
      "Optional regular expression to filter the output lines. Only lines matching this regex will be " +
        "included in the result. Any lines that do not match will no longer be available to read.",
    ),
});
export type BashOutputInput = z.infer<typeof BashOutputInput>;

const DESCRIPTION = `Retrieves output from a running or completed background bash shell.

- Takes the shell ID that Bash returned for a command run with run_in_background.
- Returns only the output produced since the last time it was read, together with the shell's status (running, completed, failed or killed) and, once it has ended, its exit code.
- Supports an optional regular expression to keep only matching lines.
- Returns at once; it does not wait for new output.`;

/** BashOutput: new output of a background shell since the last read, with its status. */
export function bashOutputTool(): Tool<BashOutputInput> {
  return defineTool({
    name: "BashOutput",
    description: DESCRIPTION,
    inputSchema: BashOutputInput,
    readOnly: true,
    maxOutputChars: BASH_MAX_OUTPUT_CHARS,
    execute: (input, context): ToolResult => {
      const shell = backgroundShellsOf(context.session).get(input.bash_id);
      if (!shell) return { content: `No shell found with ID: ${input.bash_id}`, isError: true };
      let filter: RegExp | undefined;
      try {
        filter = input.filter === undefined ? undefined : new RegExp(input.filter);
      } catch (error) {
        return { content: `Invalid filter regular expression: ${errorMessage(error)}`, isError: true };
      }
      return readShell(shell, filter, context);
    },
  });
}

function readShell(shell: BackgroundShell, filter: RegExp | undefined, context: ToolContext): ToolResult {
  // Read the status first: output that arrives in between is then left for the next read.
  const status = shell.status;
  const exitCode = shell.exit?.exitCode ?? null;
  let output = shell.output.takeUnread();
  const violations = shell.takeViolations(output);
  if (filter) {
    output = output
      .split("\n")
      .filter((line) => filter.test(line))
      .join("\n");
  }
  output = output.replace(/\n+$/, "");
  const sections = [`<status>${status}</status>`];
  if (status !== "running" && exitCode !== null) sections.push(`<exit_code>${exitCode}</exit_code>`);
  if (status !== "running" && shell.exit?.signal) sections.push(`<signal>${shell.exit.signal}</signal>`);
  if (output) sections.push(`<output>\n${output}\n</output>`);
  if (violations.length > 0) {
    context.emit({ type: "sandbox_violation", violations });
    const list = violations.map((violation) => `- ${violation.message}`).join("\n");
    sections.push(`<sandbox_violations>\nThe sandbox blocked:\n${list}\n</sandbox_violations>`);
  }
  sections.push(`<timestamp>${new Date().toISOString()}</timestamp>`);
  return {
    content: sections.join("\n\n"),
    data: { shellId: shell.id, status, exitCode, output },
  };
}
