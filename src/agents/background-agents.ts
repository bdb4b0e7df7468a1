import { untilAborted, type Timers } from "../async/index.js";
import type { SubagentCall } from "./agent-tool.js";
import { GyreError } from "../errors/index.js";
import type { AgentOutputRequest } from "./agent-output-tool.js";
import { errorResult, type ToolContext, type ToolResult } from "../tools/index.js";
import { joinedText, nestedIn, type RunBackground, type RunChannel, type RunContext } from "../loop/index.js";

/** `stopped`: the run that started it ended (or was interrupted) before it finished. */
export type BackgroundStatus = "running" | "completed" | "failed" | "stopped";

interface BackgroundTask {
  readonly id: string;
  readonly call: SubagentCall;
  readonly controller: AbortController;
  status: BackgroundStatus;
  /** The answer a foreground call would have returned; set once it has finished. */
  result: ToolResult | undefined;
  /** Settles (never rejects) once the agent has finished and its messages are out. */
  done: Promise<void>;
  /** The model has seen its result, or was reminded of it: the run-end reminder leaves it out. */
  noticed: boolean;
}

/** Runs a subagent to its end with the tool context it is given (the loop's `runSubagent`, in its slot). */
export type RunAgent = (context: ToolContext) => Promise<ToolResult>;

/**
 * The background agents one run started (`run_in_background`). Each runs under its own abort
 * controller, tied to the run's signal; its messages go to the top run's channel tagged with
 * the Agent call's id. The run stops those still running when it ends ({@link stopAll}).
 */
/** The background agents of a run, when it has the Agent tool (the loop knows them only as `RunBackground`). */
export function backgroundAgentsOf(context: RunContext): BackgroundAgents | undefined {
  return context.background instanceof BackgroundAgents ? context.background : undefined;
}

export class BackgroundAgents implements RunBackground {
  readonly #tasks = new Map<string, BackgroundTask>();

  /** `channel`: the top run's, shared by the background agents of its subagents. */
  constructor(readonly channel: RunChannel) {}

  /** The registry of a subagent that may start its own: its agents die with it, its messages reach the same stream. */
  forSubagent(): BackgroundAgents {
    return new BackgroundAgents(this.channel);
  }

  /**
   * Starts `run` without waiting for it and returns what the Agent call answers at once: the
   * task id (the call's own id) and how to read the result. `runSignal` is the starting run's.
   */
  start(call: SubagentCall, toolContext: ToolContext, runSignal: AbortSignal, run: RunAgent): ToolResult {
    const id = this.#freeId(toolContext.toolUseId);
    const controller = new AbortController();
    const onRunAbort = () => controller.abort(runSignal.reason);
    if (runSignal.aborted) onRunAbort();
    else runSignal.addEventListener("abort", onRunAbort, { once: true });
    const task: BackgroundTask = {
      id,
      call,
      controller,
      status: "running",
      result: undefined,
      done: Promise.resolve(),
      noticed: false,
    };
    const context: ToolContext = {
      ...toolContext,
      signal: controller.signal,
      // Nothing waits on the call's progress any more; its messages go to the run's stream.
      reportProgress: () => undefined,
      emit: (event) => {
        if (event.type === "message") this.channel.push(nestedIn(event.message, toolContext.toolUseId));
      },
    };
    this.#tasks.set(id, task);
    task.done = run(context)
      .catch((error: unknown) =>
        errorResult(`Error: The ${call.subagentType} agent failed: ${(error as Error).message}`),
      )
      .then((result) => {
        task.result = result;
        task.status = !result.isError ? "completed" : controller.signal.aborted ? "stopped" : "failed";
      })
      .finally(() => runSignal.removeEventListener("abort", onRunAbort));
    return {
      content:
        `The ${call.subagentType} agent is working in the background. task_id: ${id}\n` +
        `Read its answer with AgentOutput (task_id "${id}"); block: false checks without waiting. ` +
        "If you give your final answer while it still runs, it is stopped and its work is lost.",
      data: { task_id: id, agent: call.subagentType, status: "running" },
    };
  }

  /** The `AgentOutput` tool's answer: the task's status, and its result once it has finished. */
  async output(request: AgentOutputRequest, toolContext: ToolContext, timers: Timers): Promise<ToolResult> {
    const task = this.#tasks.get(request.taskId);
    if (!task) {
      const known = [...this.#tasks.keys()];
      return errorResult(
        `Error: No background agent has task_id "${request.taskId}". ` +
          (known.length > 0 ? `Known task_ids: ${known.join(", ")}.` : "No background agent was started in this run."),
      );
    }
    let waited = false;
    if (request.block && task.status === "running") {
      waited = true;
      await finishedWithin(task, request.timeoutMs, toolContext.signal, timers);
      if (toolContext.signal.aborted) return errorResult("Error: AgentOutput was interrupted while it waited.");
    }
    const retrieval = task.status !== "running" ? "success" : waited ? "timeout" : "not_ready";
    if (task.status !== "running") task.noticed = true;
    return outputResult(task, retrieval);
  }

  /**
   * A reminder for the model before the run ends on its answer: background agents still
   * running, or finished with a result it has not read. Each agent is named once; undefined
   * when there is nothing new to say.
   */
  reminder(): string | undefined {
    // A stopped agent is gone with an earlier run of this session: nothing the model can act on.
    const unnoticed = [...this.#tasks.values()].filter((task) => !task.noticed && task.status !== "stopped");
    if (unnoticed.length === 0) return undefined;
    for (const task of unnoticed) task.noticed = true;
    const list = unnoticed.map(
      (task) => `- ${task.id} (${task.call.subagentType}: ${task.call.description}): ${task.status}`,
    );
    return [
      "<system-reminder>",
      "Background agents you started have results you have not read:",
      ...list,
      "Read them with AgentOutput (it waits for a running agent) if you need them. If you answer now, the ones still running are stopped.",
      "</system-reminder>",
    ].join("\n");
  }

  /** Stops the agents still running (their tools are aborted too) and waits until each has ended. */
  async stopAll(): Promise<void> {
    const tasks = [...this.#tasks.values()];
    for (const task of tasks) {
      if (task.status === "running") task.controller.abort(new GyreError("aborted", "The run that started it ended"));
    }
    await Promise.all(tasks.map((task) => task.done));
  }

  /** The call's id, unless an earlier task has it (ids are unique per history, so only across resumed runs). */
  #freeId(toolUseId: string): string {
    let id = toolUseId;
    for (let n = 2; this.#tasks.has(id); n++) id = `${toolUseId}_${n}`;
    return id;
  }
}

/** Waits until the task has finished, the timeout passed or the call was aborted, whichever comes first. */
async function finishedWithin(task: BackgroundTask, ms: number, signal: AbortSignal, timers: Timers): Promise<void> {
  let timer: unknown;
  const timeout = new Promise<void>((resolve) => (timer = timers.setTimeout(resolve, ms)));
  try {
    await untilAborted(Promise.race([task.done, timeout]), signal);
  } finally {
    timers.clearTimeout(timer);
  }
}

function outputResult(task: BackgroundTask, retrieval: "success" | "timeout" | "not_ready"): ToolResult {
  const finished = task.result;
  const lines = [
    `<retrieval_status>${retrieval}</retrieval_status>`,
    `<task_id>${task.id}</task_id>`,
    "<task_type>local_agent</task_type>",
    `<status>${task.status}</status>`,
  ];
  if (finished) lines.push(`<output>\n${joinedText(finished.content, "\n")}\n</output>`);
  else lines.push("The agent is still running: call AgentOutput again to wait for it.");
  const data = {
    retrieval_status: retrieval,
    task: {
      task_id: task.id,
      task_type: "local_agent",
      status: task.status,
      description: task.call.description,
      agent: task.call.subagentType,
      ...(finished && { output: joinedText(finished.content, "\n"), result: finished.data }),
    },
  };
  return { content: lines.join("\n"), data, ...(finished?.isError && { isError: true }) };
}
