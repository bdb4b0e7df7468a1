import { z } from "zod";
import type { Tool, ToolResult } from "../tools/index.js";
import type { AgentDefinition } from "../run/index.js";

/**
 * The tool name of a handoff to `agent`, as the OpenAI Agents SDK names it: `transfer_to_`
 * and the name with every character outside `[A-Za-z0-9]` made `_`.
 */
export function handoffToolName(agent: string): string {
  return `transfer_to_${agent.replace(/[^a-zA-Z0-9]/g, "_")}`;
}

/** The agent a handoff tool transfers to, by tool object (only tools made by {@link handoffTool}). */
const TARGETS = new WeakMap<object, string>();

/** The agent `tool` hands the run to; undefined for every other tool. */
export function handoffTarget(tool: object | undefined): string | undefined {
  return tool ? TARGETS.get(tool) : undefined;
}

/** What the transferring model sees as the tool's result (the OpenAI Agents SDK's). */
export function transferMessage(agent: string): string {
  return JSON.stringify({ assistant: agent });
}

const NoInput = z.strictObject({});

/**
 * The `transfer_to_<agent>` tool: no input, the target's description for the model to choose
 * by. `transfer` does the checks that can fail (the target's model); the switch itself is the
 * loop's, after the turn's tools ran. It changes nothing outside the run, so it needs no
 * permission, but rules and hooks still see it as any other call.
 */
export function handoffTool(
  agent: string,
  definition: AgentDefinition,
  transfer: () => Promise<ToolResult>,
): Tool<Record<string, never>> {
  const tool: Tool<Record<string, never>> = {
    name: handoffToolName(agent),
    description: `Handoff to the ${agent} agent to handle the request. ${definition.description}`,
    inputSchema: NoInput,
    sideEffect: "none",
    execute: () => transfer(),
  };
  TARGETS.set(tool, agent);
  return tool;
}
