import { z } from "zod";
import { defineTool } from "../../define-tool.js";
import type { Tool, ToolResult } from "../../tool.js";
import { backgroundShellsOf } from "./background-shells.js";
import { describeLeftoversStopped, describeSurvivors } from "./stop-report-text.js";

/** KillShell input, as in Claude Code. */
export const KillShellInput = z.object({
  shell_id: z.string().min(1).describe("The ID of the background shell to kill"),
});
export type KillShellInput = z.infer<typeof KillShellInput>;

const DESCRIPTION = `Kills a running background bash shell by its ID.

- Takes the shell ID that Bash returned for a command run with run_in_background.
- Stops the shell and every process it started.
- Use it to stop servers, watchers and other long-running commands you no longer need.`;

/** KillShell: stop a background shell and every process it started. */
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
      const status = shell.status;
      const wasRunning = status === "running";
      const { report } = (await shells.kill(shell.id))!;
      const survivors = describeSurvivors(report);
      if (survivors) return fail(`Shell ${shell.id} (${shell.command}) was not fully stopped: ${survivors}.`);
      if (wasRunning) return succeed(shell.id, `Successfully killed shell: ${shell.id} (${shell.command})`);
      // An ended shell may have left processes running (`setsid server &`): those are stopped.
      if (report.stopped === 0) {
        return fail(`Shell ${shell.id} is not running, so cannot be killed (status: ${status})`);
      }
      const stopped = describeLeftoversStopped(report, "it");
      return succeed(shell.id, `Shell ${shell.id} had already ended (${status}); ${stopped}.`);
    },
  });
}

const fail = (content: string): ToolResult => ({ content, isError: true });
const succeed = (shellId: string, message: string): ToolResult => ({
  content: message,
  data: { message, shell_id: shellId },
});
