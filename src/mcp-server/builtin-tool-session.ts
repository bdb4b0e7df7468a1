import { randomUUID } from "node:crypto";
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { HookRunner } from "../hooks/index.js";
import {
  DoomLoopDetector,
  MessageStamp,
  runToolCall,
  type ToolCallEnv,
  type ToolCallObserver,
  ToolGate,
} from "../loop/index.js";
import { PermissionPolicy } from "../permissions/index.js";
import type { SDKMessage } from "../protocol/index.js";
import { untrustedPermissionsFolder } from "../settings/index.js";
import { type ToolCall, ToolSession } from "../tools/index.js";
import type { CallExtra } from "./agent-tool.js";
import type { BuiltinToolSetup } from "./builtin-tool-setup.js";
import { ProgressReporter } from "./progress.js";
import { toCallToolResult } from "./tool-result-content.js";

/**
 * Gyre's built-in tools for one MCP client connection. Every call goes through the loop's
 * tool-call pipeline, as a run's call does: input validation, then the same gate (PreToolUse
 * and PermissionRequest hooks, then the permission rules and mode of the server's settings
 * and flags), then the tool with the run's `toolTimeoutMs`, then PostToolUse hooks. Nobody
 * can be asked, so a call that needs asking is denied. Files read and background shells
 * belong to the connection and end with it.
 */
export class BuiltinToolSession {
  readonly #setup: BuiltinToolSetup;
  readonly #session: ToolSession;
  readonly #permissions: PermissionPolicy;
  readonly #closed = new AbortController();
  /** What every call runs with but its signal and progress. */
  readonly #env: Omit<ToolCallEnv, "signal" | "observe">;

  private constructor(setup: BuiltinToolSetup, sessionId: string, hooks: HookRunner | undefined) {
    const { cwd, permissionMode, allowedTools, disallowedTools, additionalDirectories, toolTimeoutMs, permissionHint } =
      setup.config.query;
    this.#setup = setup;
    this.#session = new ToolSession(sessionId);
    this.#permissions = PermissionPolicy.fromSettings(setup.settings, {
      cwd,
      mode: permissionMode ?? setup.settings.permissions.defaultMode ?? "default",
      allow: allowedTools ?? [],
      deny: disallowedTools ?? [],
      additionalDirectories: additionalDirectories ?? [],
      hint: permissionHint,
      untrustedFolder: untrustedPermissionsFolder(setup.settings.ignored),
    });
    const stamp = new MessageStamp(sessionId);
    this.#env = {
      registry: setup.registry,
      gate: new ToolGate({ hooks, canUseTool: undefined, cwd, signal: this.#closed.signal, stamp }),
      // A client may well read one file many times: repetition is the model's problem, not the server's.
      state: { permissions: this.#permissions, doomLoop: new DoomLoopDetector(0) },
      hooks,
      stamp,
      session: this.#session,
      cwd,
      toolTimeoutMs,
      now: Date.now,
    };
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
    return this.#permissions.mode;
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
    const signal = AbortSignal.any([extra.signal, this.#closed.signal]);
    const progress = progressOf(new ProgressReporter(extra));
    const calls = runToolCall({ ...this.#env, signal, observe: () => progress }, call);
    for (;;) {
      const next = await calls.next();
      if (next.done) return toCallToolResult(next.value);
      this.#logHookFailure(next.value);
    }
  }

  /** Ends background shells and hooks still running. */
  async close(): Promise<void> {
    this.#closed.abort();
    await this.#session.dispose();
  }

  #logHookFailure(message: SDKMessage): void {
    if (message.type !== "system" || message.subtype !== "hook_response" || message.outcome === "success") return;
    this.#setup.config.log(`${message.hook_event} hook ${JSON.stringify(message.hook_name)} failed: ${message.output}`);
  }
}

/** A call's progress as MCP progress notifications, each report as it comes; other events have no place in MCP. */
function progressOf(reporter: ProgressReporter): ToolCallObserver {
  return {
    progress: (data) => void reporter.report(typeof data === "string" ? data : JSON.stringify(data)),
    event: () => {},
    stop: () => {},
  };
}
