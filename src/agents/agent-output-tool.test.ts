import { describe, expect, it } from "vitest";
import { prepareCall, ToolRegistry, type ToolResult } from "../tools/index.js";
import { type AgentOutputRequest, agentOutputTool } from "./agent-output-tool.js";
import { agentTool, type SubagentCall } from "./agent-tool.js";
import { GENERAL_PURPOSE, GENERAL_PURPOSE_NAME } from "../run/index.js";

const answered: ToolResult = { content: "ok" };

function registry() {
  const calls: SubagentCall[] = [];
  const reads: AgentOutputRequest[] = [];
  const tools = new ToolRegistry([
    agentTool(new Map([[GENERAL_PURPOSE_NAME, GENERAL_PURPOSE]]), async (call) => (calls.push(call), answered)),
    agentOutputTool(async (request) => (reads.push(request), answered)),
  ]);
  return { tools, calls, reads };
}

/** The input as the tool would run with it, or the error the model would see. */
function prepared(tools: ToolRegistry, name: string, input: unknown) {
  const call = prepareCall(tools, { id: "t1", name, input });
  return call.ok ? { input: call.input } : { error: JSON.stringify(call.result.content) };
}

describe("AgentOutput and the Agent tool's run_in_background, as the model sees them", () => {
  it("pins their JSON Schemas", () => {
    const { tools } = registry();
    const schemas = Object.fromEntries(tools.definitions().map((tool) => [tool.name, tool.inputSchema]));
    expect(schemas.AgentOutput).toMatchSnapshot();
    expect((schemas.Agent as { properties: Record<string, unknown> }).properties.run_in_background).toMatchSnapshot();
  });

  it("defaults block to true and timeout to 30 s, clamps a longer timeout, answers to TaskOutput", async () => {
    const { tools, reads } = registry();
    const tool = tools.get("TaskOutput");
    expect(tool?.name).toBe("AgentOutput");
    for (const input of [
      { task_id: "a" },
      { task_id: "b", block: false, timeout: 5 },
      { task_id: "c", timeout: 9e9 },
    ]) {
      const call = prepared(tools, "TaskOutput", input);
      expect(call.error).toBeUndefined();
      await tool?.execute?.(call.input, {} as never);
    }
    expect(reads).toEqual([
      { taskId: "a", block: true, timeoutMs: 30_000 },
      { taskId: "b", block: false, timeoutMs: 5 },
      { taskId: "c", block: true, timeoutMs: 600_000 },
    ]);
  });

  it("rejects a missing or empty task_id, a negative timeout, a string block and unknown keys", () => {
    const { tools } = registry();
    for (const input of [
      {},
      { task_id: "" },
      { task_id: "a", timeout: -1 },
      { task_id: "a", block: "yes" },
      { task_id: "a", shell_id: "b" },
    ]) {
      expect(prepared(tools, "AgentOutput", input).error).toBeDefined();
    }
  });

  it("passes run_in_background on only when true", async () => {
    const { tools, calls } = registry();
    const base = { description: "d", prompt: "p", subagent_type: GENERAL_PURPOSE_NAME };
    for (const input of [base, { ...base, run_in_background: false }, { ...base, run_in_background: true }]) {
      const call = prepared(tools, "Agent", input);
      await tools.get("Agent")?.execute?.(call.input, {} as never);
    }
    expect(calls.map((call) => call.runInBackground)).toEqual([undefined, undefined, true]);
    expect(prepared(tools, "Agent", { ...base, run_in_background: "true" }).error).toBeDefined();
  });
});
