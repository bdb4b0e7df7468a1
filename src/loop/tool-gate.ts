import { errorMessage } from "../errors/index.js";
import type { HookRunner } from "../hooks/index.js";
import {
  type CanUseTool,
  type PermissionDecision,
  type PermissionPolicy,
  type PermissionResult,
  PermissionUpdate,
} from "../permissions/index.js";
import type { SDKMessage, TerminalReason } from "../protocol/index.js";
import type { AnyTool, ToolCall } from "../tools/index.js";
import type { MessageStamp } from "./messages.js";
import { canUseToolFailure, hookReports } from "./hook-reports.js";
import type { DoomLoopDetector } from "./doom-loop.js";

export interface ToolGateConfig {
  hooks: HookRunner | undefined;
  canUseTool: CanUseTool | undefined;
  cwd: string;
  signal: AbortSignal;
  stamp: MessageStamp;
}

/** The part of the run's state the gate reads and changes: rules and mode, and the repetition streak. */
export interface GateState {
  permissions: PermissionPolicy;
  doomLoop: DoomLoopDetector;
}

export type GateDecision =
  /**
   * `path`: the real path of the file or search folder the permission policy judged, when the
   * input that runs is the input it judged (see `FileGuard.approvedPath`).
   */
  | {
      behavior: "allow";
      input: unknown;
      context: string[];
      path?: string;
      /** Why the call may run: the rule or mode (the policy's reason), a hook's allow, or an answer when asked. */
      reason?: string;
    }
  | {
      behavior: "deny";
      message: string;
      /** Counted in the result's `permission_denials`. */
      denial: boolean;
      /** End the run after this turn, for this reason. */
      stop?: TerminalReason;
    }
  /** Nobody answers now: the run pauses with the call pending until the caller approves or denies it. */
  | { behavior: "defer"; reason: string; input: unknown };

type Ask = { reason: string; suggestions?: PermissionUpdate[]; kind: "permission" | "doom_loop"; path?: string };

/** A call past its PreToolUse hooks: the input that will run, the context they added, and their answer. */
interface HookedCall {
  input: unknown;
  context: string[];
  hookDecision:
    { behavior: "allow" } | { behavior: "ask"; reason: string } | { behavior: "defer"; reason: string } | undefined;
}

/**
 * Decides whether one validated tool call runs, in Claude Code's order: doom-loop check,
 * PreToolUse hooks (which may allow, deny, ask or rewrite the input), the permission
 * policy, then — when someone must be asked — PermissionRequest hooks and `canUseTool`.
 * When nobody can be asked, the answer is no. A hook that fails never approves: under
 * `onFailure: "block"` (settings-file commands always) a failed PreToolUse hook denies the
 * call (`aggregate` makes it a deny) and a failed PermissionRequest hook leaves the question
 * to `canUseTool`; under `continue` the failed hook counts for nothing and the rest of the
 * gate decides. A `canUseTool` that throws denies. Every failure is yielded to the caller as
 * a `hook_response` message; the gate keeps nothing between calls (rules, mode and the
 * repetition streak are run state).
 */
export class ToolGate {
  constructor(readonly config: ToolGateConfig) {}

  async *check(
    state: GateState,
    tool: AnyTool,
    call: ToolCall,
    input: unknown,
  ): AsyncGenerator<SDKMessage, GateDecision> {
    const repeat = yield* this.#repetition(state, tool, call, input);
    if (repeat.behavior !== "allow") return repeat;
    const hooked = yield* this.#preToolUseHooks(tool, call, repeat.input);
    if ("behavior" in hooked) return hooked;
    const { context } = hooked;
    const decided = await this.#policyDecision(state, tool, hooked);
    if (!("ask" in decided)) {
      if (decided.behavior === "allow") leavePlanMode(state, tool);
      return decided;
    }
    const asked = yield* this.#ask(state, tool, call, hooked.input, decided.ask);
    if (asked.behavior === "allow") leavePlanMode(state, tool);
    return asked.behavior === "allow" ? { ...asked, context: [...context, ...asked.context] } : asked;
  }

  /**
   * The doom-loop check: a repeated call is one more question, never an approval (an allowed
   * repeat still goes through hooks, rules and mode); a denied one stops the run.
   */
  async *#repetition(
    state: GateState,
    tool: AnyTool,
    call: ToolCall,
    input: unknown,
  ): AsyncGenerator<SDKMessage, GateDecision> {
    if (!state.doomLoop.record(tool.name, input)) return { behavior: "allow", input, context: [] };
    const repeat = yield* this.#ask(state, tool, call, input, {
      kind: "doom_loop",
      reason: `${tool.name} was called with the same input several times in a row`,
    });
    if (repeat.behavior === "deny") {
      return { ...repeat, stop: "doom_loop", message: `${repeat.message} The run stops: it was repeating itself.` };
    }
    if (repeat.behavior === "allow") state.doomLoop.reset();
    return repeat;
  }

  /**
   * PreToolUse hooks: each may stop the run, deny, rewrite the input (checked against the
   * tool's schema) or answer allow, ask or defer for the policy step to weigh.
   */
  async *#preToolUseHooks(
    tool: AnyTool,
    call: ToolCall,
    input: unknown,
  ): AsyncGenerator<SDKMessage, Extract<GateDecision, { behavior: "deny" }> | HookedCall> {
    const hooked: HookedCall = { input, context: [], hookDecision: undefined };
    const hooks = this.config.hooks;
    if (!hooks?.has("PreToolUse")) return hooked;
    const outcome = await hooks.run(
      "PreToolUse",
      {
        tool_name: tool.name,
        tool_input: input,
        tool_use_id: call.id,
        ...(tool.mcp && { mcp_server: tool.mcp.server }),
      },
      { signal: this.config.signal },
    );
    yield* hookReports(this.config.stamp, outcome);
    hooked.context.push(...outcome.additionalContext);
    if (!outcome.continue) {
      return {
        behavior: "deny",
        denial: false,
        message: outcome.stopReason ?? "A hook stopped the run.",
        stop: "hook_stopped",
      };
    }
    // A deny (a failed hook's too) stands whatever input another hook rewrote.
    if (outcome.permissionDecision === "deny") {
      return {
        behavior: "deny",
        denial: true,
        message: outcome.permissionDecisionReason ?? `A hook denied ${tool.name}.`,
      };
    }
    if (outcome.updatedInput !== undefined) {
      const parsed = tool.inputSchema.safeParse(outcome.updatedInput);
      if (!parsed.success) {
        return {
          behavior: "deny",
          denial: false,
          message: `A PreToolUse hook changed the input of ${tool.name} to one that is not valid.`,
        };
      }
      hooked.input = parsed.data;
    }
    const reason = outcome.permissionDecisionReason;
    if (outcome.permissionDecision === "allow") hooked.hookDecision = { behavior: "allow" };
    if (outcome.permissionDecision === "ask")
      hooked.hookDecision = { behavior: "ask", reason: reason ?? "a hook asked for confirmation" };
    if (outcome.permissionDecision === "defer")
      hooked.hookDecision = { behavior: "defer", reason: reason ?? "a hook deferred the decision" };
    return hooked;
  }

  /**
   * The policy judges the input that will run. Its deny stands over any hook's answer; a
   * hook's defer pauses the run, its allow skips the question, its ask asks even what the rules allow.
   */
  async #policyDecision(
    state: GateState,
    tool: AnyTool,
    { input, context, hookDecision }: HookedCall,
  ): Promise<GateDecision | { ask: Ask }> {
    const verdict: PermissionDecision = await state.permissions.evaluateWhenReady({
      toolName: tool.name,
      input,
      sideEffect: tool.sideEffect,
      cwd: this.config.cwd,
    });
    if (verdict.behavior === "deny") return { behavior: "deny", denial: true, message: verdict.message };
    if (tool.exitsPlanMode && state.permissions.mode !== "plan") {
      const message = `${tool.name} is for leaving plan mode, and the run is not in plan mode: go on with the work.`;
      return { behavior: "deny", denial: false, message };
    }
    const judged = verdict.path;
    if (hookDecision?.behavior === "defer") return { behavior: "defer", reason: hookDecision.reason, input };
    if (hookDecision?.behavior === "ask")
      return { ask: { kind: "permission", reason: hookDecision.reason, path: judged } };
    if (hookDecision === undefined && verdict.behavior === "ask")
      return { ask: { kind: "permission", reason: verdict.reason, suggestions: verdict.suggestions, path: judged } };
    // Only a person answers it: no rule or mode does, a hook's allow only when it brings the answer.
    if (tool.requiresUserInteraction && hookDecision === undefined) {
      if (state.permissions.mode === "dontAsk") {
        const message = `${tool.name} needs a person to answer, and dontAsk mode asks no one.`;
        return { behavior: "deny", denial: true, message };
      }
      return { ask: { kind: "permission", reason: `${tool.name} asks the user`, suggestions: [] } };
    }
    const reason =
      hookDecision?.behavior === "allow"
        ? `a PreToolUse hook allowed it`
        : verdict.behavior === "allow"
          ? verdict.reason
          : undefined;
    return {
      behavior: "allow",
      input,
      context,
      ...(judged !== undefined && { path: judged }),
      ...(reason !== undefined && { reason }),
    };
  }

  async *#ask(
    state: GateState,
    tool: AnyTool,
    call: ToolCall,
    input: unknown,
    ask: Ask,
  ): AsyncGenerator<SDKMessage, GateDecision> {
    // A failed PermissionRequest hook allows nothing (its success might have denied), so the
    // question goes on to canUseTool, told of the failure — or, with no one to ask, is denied.
    let hookFailure: string | undefined;
    if (this.config.hooks?.has("PermissionRequest")) {
      const outcome = await this.config.hooks.run(
        "PermissionRequest",
        { tool_name: tool.name, tool_input: input, permission_suggestions: ask.suggestions ?? [] },
        { signal: this.config.signal },
      );
      yield* hookReports(this.config.stamp, outcome, call.id);
      hookFailure = outcome.failure;
      const decision = outcome.permissionRequest;
      if (decision?.behavior === "allow") {
        // Permission updates a hook's allow carries apply as canUseTool's do; malformed ones are ignored.
        for (const update of decision.updatedPermissions ?? []) {
          const parsed = PermissionUpdate.safeParse(update);
          if (parsed.success) state.permissions.applyUpdate(parsed.data);
        }
        const allowed = this.#allowWith(
          tool,
          decision.updatedInput ?? input,
          decision.updatedInput ? undefined : ask.path,
        );
        return withReason(allowed, `asked (${ask.reason}); a PermissionRequest hook allowed it`);
      }
      if (decision?.behavior === "deny") {
        return {
          behavior: "deny",
          denial: true,
          message: decision.message ?? `A hook denied ${tool.name}.`,
          ...(decision.interrupt ? { stop: "permission_denied" as const } : {}),
        };
      }
    }
    const canUseTool = this.config.canUseTool;
    if (!canUseTool && tool.requiresUserInteraction) {
      return {
        behavior: "deny",
        denial: true,
        message:
          `${tool.name} needs a person to answer, and no one can be asked here (no canUseTool callback, ` +
          "not an interactive session). Go on without asking: make a reasonable choice and say which.",
      };
    }
    if (!canUseTool) {
      // The host's advice (the CLI's flags, settings, `gyre trust`), else the library's own.
      const hint = state.permissions.unaskedHint({
        toolName: tool.name,
        input,
        reason: ask.reason,
        suggestions: ask.suggestions ?? [],
      });
      const message = hookFailure
        ? `Permission to use ${tool.name} is required (${ask.reason}). ${hookFailure}\n` +
          (hint
            ? `A PermissionRequest hook that fails cannot approve a call. ${hint}`
            : "A PermissionRequest hook that fails cannot approve a call, and no canUseTool callback can be asked.")
        : `Permission to use ${tool.name} is required (${ask.reason}), and no one can be asked` +
          (hint
            ? `. ${hint}`
            : ": the caller set no canUseTool callback. Allow it with allowedTools or a permission rule, or change permissionMode.");
      return { behavior: "deny", denial: true, message };
    }
    if (this.config.hooks?.has("Notification")) {
      const outcome = await this.config.hooks.run(
        "Notification",
        { message: `Gyre needs your permission to use ${tool.name}`, notification_type: "permission_prompt" },
        { signal: this.config.signal },
      );
      yield* hookReports(this.config.stamp, outcome, call.id);
    }
    try {
      const result = await canUseTool(tool.name, input as Record<string, unknown>, {
        signal: this.config.signal,
        suggestions: ask.suggestions ?? [],
        toolUseID: call.id,
        decisionReason: hookFailure ? `${ask.reason}. ${hookFailure}` : ask.reason,
        kind: ask.kind,
      });
      if (result.behavior === "defer") return { behavior: "defer", reason: result.message ?? ask.reason, input };
      const answered = this.answer(state, tool, input, result, ask.path);
      return withReason(answered, `asked (${ask.reason}); allowed by canUseTool`);
    } catch (error) {
      // A permission callback that fails approves nothing; the caller is told, not only the model.
      const why = errorMessage(error);
      yield canUseToolFailure(this.config.stamp, call.id, `canUseTool threw: ${why}`);
      return { behavior: "deny", denial: true, message: `Permission check failed: ${why}` };
    }
  }

  /**
   * The decision a person's allow or deny makes: now from `canUseTool`, or later for a deferred
   * call. `path`: the real path the policy judged for `input` (kept only if the input stays).
   */
  answer(
    state: GateState,
    tool: AnyTool,
    input: unknown,
    result: Exclude<PermissionResult, { behavior: "defer" }>,
    path?: string,
  ): GateDecision {
    if (result.behavior === "allow") {
      for (const update of result.updatedPermissions ?? []) state.permissions.applyUpdate(update);
      // A person's answers add to what was asked (an answer need not repeat the questions).
      const updated =
        tool.requiresUserInteraction && result.updatedInput
          ? { ...(input as Record<string, unknown>), ...result.updatedInput }
          : result.updatedInput;
      const decision = this.#allowWith(tool, updated ?? input, updated ? undefined : path);
      if (decision.behavior === "allow") leavePlanMode(state, tool);
      return withReason(decision, "allowed when asked");
    }
    return {
      behavior: "deny",
      denial: true,
      message: result.message || `Permission to use ${tool.name} was denied.`,
      ...(result.interrupt ? { stop: "permission_denied" as const } : {}),
    };
  }

  #allowWith(tool: AnyTool, input: unknown, path: string | undefined): GateDecision {
    const parsed = tool.inputSchema.safeParse(input);
    if (parsed.success)
      return { behavior: "allow", input: parsed.data, context: [], ...(path !== undefined && { path }) };
    return {
      behavior: "deny",
      denial: false,
      message: `The approved input for ${tool.name} is not valid for the tool.`,
    };
  }
}

/** `decision` with why it allows, when it does (a deny keeps its message). */
function withReason(decision: GateDecision, reason: string): GateDecision {
  return decision.behavior === "allow" ? { ...decision, reason } : decision;
}

/** An approved plan leaves plan mode: for the mode the answer chose (a `setMode` update), else `default`. */
function leavePlanMode(state: GateState, tool: AnyTool): void {
  if (tool.exitsPlanMode && state.permissions.mode === "plan") state.permissions.setMode("default");
}
