import {
  type ContextDocument,
  type ContextOption,
  loopSection,
  retrievedContextSection,
  type SystemPromptFunction,
  todosSection,
} from "../context/index.js";
import { errorMessage, GyreError } from "../errors/index.js";
import type { RunContext, TurnPrompt } from "../loop/index.js";
import { readTodos } from "../tools/builtin/index.js";
import type { QueryOptions } from "./options.js";

/**
 * The system prompt of each model call, from the `systemPrompt` and `context` options: the
 * preset (or an agent's own prompt) then the retrieved context and the plan (TodoWrite's list),
 * read afresh for every call, so the model works against the current plan; a function gets
 * all of it and has the last word. Literal text without `context` is sent exactly, as the
 * Claude Agent SDK sends it: no builder then.
 */
export function turnPrompt(options: Pick<QueryOptions, "systemPrompt" | "context">): TurnPrompt | undefined {
  const spec = options.systemPrompt;
  const custom = typeof spec === "function" ? spec : undefined;
  // The preset (the default) carries the plan; literal text is the caller's, exactly.
  const withPlan = typeof spec !== "string";
  if (!withPlan && options.context === undefined) return undefined;
  return async (context, { turn }) => {
    const todos = readTodos(context.session);
    const documents = await documentsFor(options.context, { turn, todos, cwd: context.cwd, signal: context.signal });
    const sections = [
      context.systemPrompt,
      withPlan ? loopSectionOf(context) : "",
      retrievedContextSection(documents),
      withPlan ? todosSection(todos) : "",
    ];
    const defaultPrompt = sections.filter(Boolean).join("\n\n");
    if (!custom) return defaultPrompt;
    return await callCustom(custom, context, { defaultPrompt, todos, documents, turn });
  };
}

async function documentsFor(
  option: ContextOption | undefined,
  request: Parameters<Extract<ContextOption, (...args: never[]) => unknown>>[0],
): Promise<readonly ContextDocument[]> {
  if (option === undefined) return [];
  if (typeof option !== "function") return option;
  try {
    return await option(request);
  } catch (error) {
    throw new GyreError("hook_error", `The context function failed: ${errorMessage(error)}`, { cause: error });
  }
}

async function callCustom(
  custom: SystemPromptFunction,
  context: RunContext,
  built: Pick<Parameters<SystemPromptFunction>[0], "defaultPrompt" | "todos" | "documents" | "turn">,
): Promise<string> {
  const prompt = await custom({
    ...built,
    tools: context.registry.names(),
    loopControl: context.loopControl,
    cwd: context.cwd,
    agent: context.agent?.type,
    signal: context.signal,
  });
  if (typeof prompt !== "string")
    throw new GyreError("config_error", `The systemPrompt function returned ${typeof prompt}, not a string.`);
  return prompt;
}

/**
 * The loop section of a run: built once per set of tools. MCP tools are named as a kind, not one
 * by one: there may be hundreds (tool search sends only their names, in ToolSearch's description).
 */
const loopSections = new WeakMap<RunContext, { tools: string; text: string }>();
function loopSectionOf(context: RunContext): string {
  const offered = context.registry.offered();
  const tools = offered.filter((tool) => !tool.mcp).map((tool) => tool.name);
  if (offered.some((tool) => tool.mcp)) tools.push("the MCP servers' tools (mcp__server__tool)");
  const key = tools.join(",");
  const cached = loopSections.get(context);
  if (cached?.tools === key) return cached.text;
  const { maxTurns, maxBudgetUsd, maxBudgetTokens } = context.limits;
  const text = loopSection({ tools, maxTurns, maxBudgetUsd, maxBudgetTokens });
  loopSections.set(context, { tools: key, text });
  return text;
}
