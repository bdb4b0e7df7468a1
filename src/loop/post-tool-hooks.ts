import type { HookRunner } from "../hooks/index.js";
import type { SDKMessage } from "../protocol/index.js";
import type { AnyTool, ToolCall, ToolResult } from "../tools/index.js";
import { hookReports } from "./hook-reports.js";
import type { MessageStamp } from "./messages.js";
import { joinedText } from "./joined-text.js";

/** What the hooks after a call had to say: notes for the model, and whether one stopped the run. */
export interface AfterCall {
  notes: string[];
  stop?: "hook_stopped";
}

/**
 * The PostToolUse hooks after a call that succeeded, PostToolUseFailure after one that failed
 * (told whether the call was interrupted). A hook's block reason and additional context
 * become notes for the model; its reports go to the caller.
 */
export async function* postToolHooks(
  env: { hooks: HookRunner | undefined; signal: AbortSignal; stamp: MessageStamp },
  ran: { tool: AnyTool; input: unknown; call: ToolCall; result: ToolResult },
): AsyncGenerator<SDKMessage, AfterCall> {
  const { hooks, signal, stamp } = env;
  const { tool, result } = ran;
  const event = result.isError ? "PostToolUseFailure" : "PostToolUse";
  if (!hooks?.has(event)) return { notes: [] };
  const common = {
    tool_name: tool.name,
    tool_input: ran.input,
    tool_use_id: ran.call.id,
    ...(tool.mcp && { mcp_server: tool.mcp.server }),
  };
  const outcome =
    event === "PostToolUse"
      ? await hooks.run("PostToolUse", { ...common, tool_response: result.data ?? result.content }, { signal })
      : await hooks.run(
          "PostToolUseFailure",
          { ...common, error: joinedText(result.content, "\n"), is_interrupt: signal.aborted },
          { signal },
        );
  yield* hookReports(stamp, outcome);
  const notes = [...(outcome.block ? [outcome.block.reason] : []), ...outcome.additionalContext];
  return { notes, ...(!outcome.continue && { stop: "hook_stopped" as const }) };
}

/** Notes for the model after a call's result, as system reminders. */
export function withNotes(result: ToolResult, notes: readonly string[]): ToolResult {
  if (notes.length === 0) return result;
  const extra = notes.map((note) => `<system-reminder>\n${note}\n</system-reminder>`).join("\n");
  if (typeof result.content === "string") return { ...result, content: `${result.content}\n\n${extra}` };
  return { ...result, content: [...result.content, { type: "text", text: extra }] };
}
