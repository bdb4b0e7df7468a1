import { createRequire } from "node:module";
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { errorMessage, GyreError } from "../errors/index.js";
import type { AnyTool, ToolContext, ToolOutput } from "../tools/index.js";
import type { CallKind } from "./call-kinds.js";
import type { ToolPlan } from "./client-tools.js";
import type { CreateResponseRequest } from "./request-schema.js";

// The tools of a response come from tool executors, one interface for every kind: the client's
// function tools (their calls go back to the client), the operator's built-in tools, the
// request's MCP servers, and any an operator registers (a remote sandbox, a container per run)
// through `createServer({ toolExecutors })` or the config file's `toolExecutors` modules.

/** One call as an executor runs it. */
export interface ToolExecutorCall {
  /** The model's call id. */
  id: string;
  name: string;
  /** The call's input, validated against the tool's schema. */
  input: unknown;
}

/** The response a tool executor offers tools to. */
export interface ToolExecutorContext {
  responseId: string;
  request: CreateResponseRequest;
  /** The server's workspace (`workspace` of the config). */
  cwd: string;
  /** Aborted when the response is cancelled or ends. */
  signal: AbortSignal;
}

/**
 * A kind of tool the server's runs can call. `tools` gives the definitions a response offers
 * the model (name, description, input schema); `canExecute` says whether a call is one of this
 * executor's; `execute` runs it on the server (an executor without it hands its calls back to
 * the client, as function tools do). An operator's executor's calls run server-side and show
 * in the response as completed `function_call` items with their outputs, as built-in tools' do;
 * its tools are allowed by the operator's registering them.
 */
export interface ToolExecutor {
  /** What its calls are (`function`, `builtin`, `mcp`, or the operator's own, e.g. `container`). */
  readonly kind: string;
  tools(context: ToolExecutorContext): readonly AnyTool[] | Promise<readonly AnyTool[]>;
  canExecute(call: { name: string }): boolean;
  execute?(call: ToolExecutorCall, context: ToolContext): Promise<ToolOutput>;
  /** Called when the server closes. */
  close?(): Promise<void>;
}

/** An executor module of the config file: `module` (relative to the config file) exports a factory as its default. */
export interface ToolExecutorModule {
  module: string;
  /** Passed to the factory. */
  options?: unknown;
}

/**
 * Loads the config file's executor modules: each module's default export is called with its
 * `options` and gives a {@link ToolExecutor}. A module that cannot be loaded or gives no
 * executor is a `config_error` naming it, at start.
 */
export async function loadToolExecutors(
  modules: readonly ToolExecutorModule[],
  configDir: string,
): Promise<ToolExecutor[]> {
  const executors: ToolExecutor[] = [];
  for (const spec of modules) {
    const path = isAbsolute(spec.module) ? spec.module : resolve(configDir, spec.module);
    let executor: unknown;
    try {
      const loaded = await loadModule(path);
      // An ES module's default export, or a CommonJS module's exports.
      const factory = typeof loaded.default === "function" ? loaded.default : loaded;
      if (typeof factory !== "function") throw new Error("its default export is not a function");
      executor = await (factory as (options: unknown) => unknown)(spec.options);
    } catch (error) {
      throw new GyreError("config_error", `toolExecutors: ${spec.module} could not be loaded: ${errorMessage(error)}`, {
        cause: error,
      });
    }
    if (!isToolExecutor(executor))
      throw new GyreError(
        "config_error",
        `toolExecutors: ${spec.module} gave no tool executor (an object with kind, tools and canExecute)`,
      );
    executors.push(executor);
  }
  return executors;
}

/**
 * A module, CommonJS or ES: required (Node's require of ES modules, which the bundled CLI's
 * code can do where its `import()` cannot), imported when it has top-level await.
 */
async function loadModule(path: string): Promise<{ default?: unknown }> {
  try {
    return createRequire(path)(path) as { default?: unknown };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_REQUIRE_ASYNC_MODULE") throw error;
    return (await import(pathToFileURL(path).href)) as { default?: unknown };
  }
}

function isToolExecutor(value: unknown): value is ToolExecutor {
  if (typeof value !== "object" || value === null) return false;
  const executor = value as Partial<ToolExecutor>;
  return (
    typeof executor.kind === "string" &&
    typeof executor.tools === "function" &&
    typeof executor.canExecute === "function"
  );
}

/** The client's tools (`function`, `custom`; refused ones answer themselves) as an executor. */
export function clientToolExecutor(plan: ToolPlan): ToolExecutor {
  const names = new Set(plan.tools.map((tool) => tool.name));
  return { kind: "function", tools: () => plan.tools, canExecute: (call) => names.has(call.name) };
}

/** Tools that run themselves (the operator's built-in tools, MCP servers' tools) as an executor of `kind`. */
export function selfRunningExecutor(kind: string, tools: readonly AnyTool[]): ToolExecutor {
  const names = new Set(tools.map((tool) => tool.name));
  return { kind, tools: () => tools, canExecute: (call) => names.has(call.name) };
}

/**
 * One response's executors, in order (the first that can execute a call has it): what each
 * call is, and the tools the run gets — an executor's `execute` bound into each of its tools.
 */
export class ResponseExecutors {
  readonly #executors: ToolExecutor[] = [];
  /** What each executor's calls are to the output, where not server-run (`builtin`). */
  readonly #kinds = new Map<ToolExecutor, (name: string) => CallKind | undefined>();
  /** Gyre's built-in tools, offered by name: the run's set-up makes them (sandboxed as configured). */
  readonly #named = new Map<ToolExecutor, readonly string[]>();

  /** Adds an executor; `kindOf` says what its calls are to the response's output (default: server-run, `builtin`). */
  add(executor: ToolExecutor, kindOf?: (name: string) => CallKind | undefined): void {
    this.#executors.push(executor);
    if (kindOf) this.#kinds.set(executor, kindOf);
  }

  /** Gyre's built-in tools the operator enabled, by name (the `builtin` kind). */
  addBuiltin(names: readonly string[]): void {
    const own = new Set(names);
    const executor: ToolExecutor = { kind: "builtin", tools: () => [], canExecute: (call) => own.has(call.name) };
    this.#named.set(executor, names);
    this.add(executor);
  }

  /** What a call of `name` is: its executor's kind, else refused. */
  kindOf(name: string): CallKind {
    const executor = this.#executors.find((candidate) => candidate.canExecute({ name }));
    if (!executor) return { kind: "refused" };
    return this.#kinds.get(executor)?.(name) ?? { kind: "builtin" };
  }

  /** Every executor's tools for the response, each operator executor's calls run by its `execute`. */
  async tools(context: ToolExecutorContext): Promise<{ tools: (AnyTool | string)[]; operatorTools: string[] }> {
    const tools: (AnyTool | string)[] = [];
    const operatorTools: string[] = [];
    for (const executor of this.#executors) {
      tools.push(...(this.#named.get(executor) ?? []));
      const own = await executor.tools(context);
      for (const tool of own) {
        if (!executor.execute) {
          tools.push(tool);
          continue;
        }
        const execute = executor.execute.bind(executor);
        tools.push({
          ...tool,
          execute: (input: unknown, toolContext: ToolContext) =>
            execute({ id: toolContext.toolUseId, name: tool.name, input }, toolContext),
        });
        operatorTools.push(tool.name);
      }
    }
    return { tools, operatorTools };
  }
}
