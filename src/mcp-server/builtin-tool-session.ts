import { randomUUID } from "node:crypto";
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { HookRunner } from "../hooks/index.js";
import { DoomLoopDetector, type GateDecision, MessageStamp, ToolGate } from "../loop/index.js";
import { PermissionPolicy } from "../permissions/index.js";
import type { SDKMessage } from "../protocol/index.js";
import { executeTool, prepareCall, type ToolCall, type ToolResult, ToolSession } from "../tools/index.js";
import type { CallExtra } from "./agent-tool.js";
import type { BuiltinToolSetup } from "./builtin-tool-setup.js";
import { ProgressReporter } from "./progress.js";
import { errorCallResult, toCallToolResult } from "./tool-result-content.js";

/**
 * Gyre's built-in tools for one MCP client connection. Every call goes the way a run's call
 * goes: input validation, then the same gate (PreToolUse and PermissionRequest hooks, then
 * the permission rules and mode of the server's settings and flags), then the tool. Nobody
 * can be asked, so a call that needs asking is denied. Files read and background shells
 * belong to the connection and end with it.
 */
export class BuiltinToolSession {
  readonly #setup: BuiltinToolSetup;
  readonly #session: ToolSession;
  readonly #gate: ToolGate;
  readonly #state: { permissions: PermissionPolicy; doomLoop: DoomLoopDetector };
  readonly #closed = new AbortController();
  readonly #hooks: HookRunner | undefined;

  private constructor(setup: BuiltinToolSetup, sessionId: string, hooks: HookRunner | undefined) {
    const { cwd, permissionMode, allowedTools, disallowedTools, additionalDirectories } = setup.config.query;
    this.#setup = setup;
    this.#hooks = hooks;
    this.#session = new ToolSession(sessionId);
    this.#state = {
      permissions: PermissionPolicy.fromSettings(setup.settings, {
        cwd,
        mode: permissionMode ?? setup.settings.permissions.defaultMode ?? "default",
        allow: allowedTools ?? [],
        deny: disallowedTools ?? [],
        additionalDirectories: additionalDirectories ?? [],
      }),
      // A client may well read one file many times: repetition is the model's problem, not the server's.
      doomLoop: new DoomLoopDetector(0),
    };
    this.#gate = new ToolGate({
      hooks,
      canUseTool: undefined,
      cwd,
      signal: this.#closed.signal,
      stamp: new MessageStamp(sessionId),
    });
  }

  static async open(setup: BuiltinToolSetup, sessionId = randomUUID()): Promise<BuiltinToolSession> {
    const { cwd } = setup.config.query;
    const settingsHooks = setup.settings.hooks.map((source) => source.hooks);
    let hooks: HookRunner | undefined;
    if (settingsHooks.length > 0) {
      const { HookRunner } = await import("../hooks/index.js");
      hooks = new HookRunner({ settings: settingsHooks, cwd, sessionId, permissionMode: () => session.mode });
    }
    // The hooks read the permission mode of the session built with them.
    const session = new BuiltinToolSession(setup, sessionId, hooks);
    return session;
  }

  get mode(): string {
    return this.#state.permissions.mode;
  }

  /** The tools as `tools/list` shows them, with Gyre's JSON Schemas and read-only hints. */
  definitions(): McpTool[] {
    const registry = this.#setup.registry;
    return registry.definitions().map((definition) => {
      const readOnly = ["none", "read-only"].includes(registry.get(definition.name)?.sideEffect ?? "mutating");
      return {
        name: definition.name,
        description: definition.description,
        inputSchema: definition.inputSchema as McpTool["inputSchema"],
        annotations: { readOnlyHint: readOnly, ...(!readOnly && { destructiveHint: true }) },
      };
    });
  }

  has(name: string): boolean {
    return this.#setup.registry.get(name) !== undefined;
  }

  async call(name: string, args: unknown, extra: CallExtra): Promise<CallToolResult> {
    const call: ToolCall = { id: `mcp_${randomUUID()}`, name, input: args ?? {} };
    const prepared = prepareCall(this.#setup.registry, call);
    if (!prepared.ok) return toCallToolResult(prepared.result);
    const decision = await this.#decide(prepared.tool, call, prepared.input);
    if (decision.behavior === "defer") {
      return errorCallResult(`Permission to use ${name} is required (${decision.reason}), and no one can be asked.`);
    }
    if (decision.behavior === "deny") return errorCallResult(decision.message);
    const progress = new ProgressReporter(extra);
    const signal = AbortSignal.any([extra.signal, this.#closed.signal]);
    const executed = await executeTool(prepared.tool, decision.input, {
      cwd: this.#setup.config.query.cwd,
      signal,
      sessionId: this.#session.id,
      toolUseId: call.id,
      session: this.#session,
      files: {
        ...(decision.path !== undefined && { approvedPath: decision.path }),
        mayRead: (file, found) => this.#state.permissions.mayRead(file, prepared.tool.name, found),
      },
      reportProgress: (data) => void progress.report(typeof data === "string" ? data : JSON.stringify(data)),
      emit: () => {},
    });
    const notes = [...decision.context, ...(await this.#afterTool(prepared.tool.name, decision.input, call, executed))];
    return toCallToolResult(withNotes(executed, notes));
  }

  /** PostToolUse (or PostToolUseFailure) hooks, as in a run: what they have to say joins the result. */
  async #afterTool(toolName: string, input: unknown, call: ToolCall, result: ToolResult): Promise<string[]> {
    const event = result.isError ? "PostToolUseFailure" : "PostToolUse";
    if (!this.#hooks?.has(event)) return [];
    const common = { tool_name: toolName, tool_input: input, tool_use_id: call.id };
    const signal = this.#closed.signal;
    const outcome =
      event === "PostToolUse"
        ? await this.#hooks.run("PostToolUse", { ...common, tool_response: result.data ?? result.content }, { signal })
        : await this.#hooks.run(
            "PostToolUseFailure",
            { ...common, error: textOf(result), is_interrupt: signal.aborted },
            { signal },
          );
    if (outcome.failure) this.#setup.config.log(`${event} hook failed: ${outcome.failure}`);
    return [...(outcome.block ? [outcome.block.reason] : []), ...outcome.additionalContext];
  }

  /** Ends background shells and hooks still running. */
  async close(): Promise<void> {
    this.#closed.abort();
    await this.#session.dispose();
  }

  async #decide(tool: Parameters<ToolGate["check"]>[1], call: ToolCall, input: unknown): Promise<GateDecision> {
    const checks = this.#gate.check(this.#state, tool, call, input);
    for (;;) {
      const next = await checks.next();
      if (next.done) return next.value;
      this.#logHookFailure(next.value);
    }
  }

  #logHookFailure(message: SDKMessage): void {
    if (message.type !== "system" || message.subtype !== "hook_response" || message.outcome === "success") return;
    this.#setup.config.log(`${message.hook_event} hook ${JSON.stringify(message.hook_name)} failed: ${message.output}`);
  }
}

/** Hooks' notes after the result, as system reminders (as a run gives them to the model). */
function withNotes(result: ToolResult, notes: string[]): ToolResult {
  if (notes.length === 0) return result;
  const text = notes.map((note) => `<system-reminder>\n${note}\n</system-reminder>`).join("\n");
  if (typeof result.content === "string") return { ...result, content: `${result.content}\n\n${text}` };
  return { ...result, content: [...result.content, { type: "text", text }] };
}

function textOf(result: ToolResult): string {
  return typeof result.content === "string"
    ? result.content
    : result.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
}
