import { z } from "zod";
import { defineTool } from "../../define-tool.js";
import type { Tool, ToolResult } from "../../tool.js";
import { backgroundShellsOf } from "./background-shells.js";

/** KillShell input, as in Claude Code. */
export const KillShellInput = z.object({
  shell_id: z.string().min(1).describe("The ID of the background shell to kill"),
});
export type KillShellInput = z.infer<typeof KillShellInput>;

const DESCRIPTION = `Kills a running background bash shell by its ID.

- Takes the shell ID that Bash returned for a command run with run_in_background.
- Stops the shell and every process it started.
- Use it to stop servers, watchers and other long-running commands you no longer need.`;

/** KillShell: stop a background shell and its whole process tree. */
export function killShellTool(): Tool<KillShellInput> {
  return defineTool({
    name: "KillShell",
    description: DESCRIPTION,
    inputSchema: KillShellInput,
    sideEffect: "mutating",
    execute: async (input, context): Promise<ToolResult> => {
      const shells = backgroundShellsOf(context.session);
      const shell = shells.get(input.shell_id);
      if (!shell) return { content: `No shell found with ID: ${input.shell_id}`, isError: true };
      if (shell.status !== "running") {
        return {
          content: `Shell ${shell.id} is not running, so cannot be killed (status: ${shell.status})`,
          isError: true,
        };
      }
      await shells.kill(shell.id);
      const message = `Successfully killed shell: ${shell.id} (${shell.command})`;
      return { content: message, data: { message, shell_id: shell.id } };
    },
  });
}
