import type { SDKMessage } from "../protocol/index.js";
import type { AnyTool, ToolCall } from "../tools/index.js";
import type { RunContext } from "./run-context.js";
import { nestedIn } from "./nested-messages.js";
import type { ToolCallObserver } from "./tool-call.js";
import { ToolProgress } from "./tool-progress.js";

/**
 * What a run shows of a running call, as messages (its start is the pipeline's, see
 * tool-call.ts): `tool_progress` for calls that take a while (see tool-progress.ts), measured
 * on the run's clock; its subagent's messages, tagged
 * with the call's id; what the sandbox blocked; the todo list.
 */
export function callObserver(
  context: Pick<RunContext, "timers" | "now" | "stamp">,
  call: ToolCall,
  tool: AnyTool,
  send: (message: SDKMessage) => void,
): ToolCallObserver {
  const { stamp } = context;
  const progress = new ToolProgress({
    timers: context.timers,
    now: context.now,
    emit: (elapsedSeconds, data) =>
      send(
        stamp.stamp({
          type: "tool_progress",
          tool_use_id: call.id,
          tool_name: tool.name,
          parent_tool_use_id: null,
          elapsed_time_seconds: elapsedSeconds,
          ...(data !== undefined && { data }),
        }),
      ),
  });
  return {
    progress: (data) => progress.report(data),
    event: (event) => {
      if (event.type === "message") send(nestedIn(event.message, call.id));
      else if (event.type === "sandbox_violation") {
        const { violations } = event;
        send(stamp.stamp({ type: "system", subtype: "sandbox_violation", tool_use_id: call.id, violations }));
      } else if (event.type === "todos") send(stamp.stamp({ type: "system", subtype: "todos", todos: event.todos }));
    },
    stop: () => progress.stop(),
  };
}
