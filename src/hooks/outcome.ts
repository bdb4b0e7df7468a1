import type { HookEventName } from "./events.js";
import type { HookPermissionDecision, PermissionRequestDecision, SyncHookJSONOutput } from "./output.js";

/**
 * Why a hook failed. Each is reported in `HookOutcome.errors`; whether it also acts as a
 * block is its `onFailure` (see `aggregate`).
 */
export type HookErrorKind =
  /** A callback threw or rejected. */
  | "threw"
  /** A command exited non-zero (other than a blocking exit 2), or exit 2 on an event that cannot block. */
  | "exit_code"
  /** A command could not be started (shell missing, cwd gone, ...). */
  | "spawn_failed"
  /** Output starts with `{` but does not parse, or does not fit the hook output schema. */
  | "invalid_output"
  /** stdout went past the limit; the hook was killed and its output not read. */
  | "output_too_large"
  /** Reading the hook's stdout or stderr failed. */
  | "unreadable"
  | "timeout"
  /** The run's signal aborted while the hook ran. */
  | "aborted";

/**
 * What a hook's failure does (the Claude Agent SDK's `HookCallbackMatcher.onFailure`):
 * `continue` — reported, and the event goes on as if the hook were not there; `block` — it
 * also blocks what the event guards (see `aggregate`).
 */
export type HookOnFailure = "continue" | "block";

/**
 * A hook that failed, as data for the caller. Only `HookOutcome.failure` (a summary naming
 * the blocking failures) can reach the model, as the reason a call was denied.
 */
export interface HookError {
  event: HookEventName;
  /** The command text, or `callback <name>` for callbacks. */
  hook: string;
  kind: HookErrorKind;
  message: string;
  /**
   * What this failure does: the callback matcher's `onFailure` (default `continue`, as in the
   * Claude Agent SDK); always `block` for settings-file commands (Gyre's fail-closed rule) and
   * for a hook cut short because the run was interrupted.
   */
  onFailure: HookOnFailure;
  exitCode?: number;
  stderr?: string;
}

/** Which hook produced a result. */
export interface HookSource {
  kind: "callback" | "command";
  /** The command text, or `callback <name>`. */
  name: string;
  /** What a failure of this hook does; see {@link HookError.onFailure}. */
  onFailure: HookOnFailure;
}

/** What one hook has to tell the caller: a message for the user, or why it failed. */
export interface HookReport {
  /** The command text, or `callback <name>`. */
  hook: string;
  /** The hook's `systemMessage`. */
  systemMessage?: string;
  error?: HookError;
}

/** One hook's result, normalised to hook JSON output (exit codes are translated into it). */
export type HookRunResult =
  { ok: true; source: HookSource; output: SyncHookJSONOutput } | { ok: false; source: HookSource; error: HookError };

/**
 * The combined effect of every hook that matched one event. Fields not meaningful for an
 * event stay unset. Hooks run in parallel; results are combined in configuration order
 * (callbacks first, then settings commands), so "last" below means last in that order.
 */
export interface HookOutcome {
  event: HookEventName;
  /** How many hooks ran. */
  hookCount: number;
  /** PreToolUse: deny beats ask beats allow. Unset when no hook decided. */
  permissionDecision?: HookPermissionDecision;
  /** The reasons of the hooks that gave the winning decision, joined by newlines. */
  permissionDecisionReason?: string;
  /** PreToolUse / PermissionRequest: replacement tool input; the last hook that set one wins. */
  updatedInput?: Record<string, unknown>;
  /** PermissionRequest: deny beats allow; `interrupt` if any deny asked for it. */
  permissionRequest?: PermissionRequestDecision;
  /** PostToolUse: replacement for an MCP tool's output; last one wins. */
  updatedMCPToolOutput?: unknown;
  /** Context for the model, in configuration order. */
  additionalContext: string[];
  /** False when any hook said `continue: false`: the agent should stop. */
  continue: boolean;
  /** Reasons from hooks that said `continue: false`, joined by newlines (for the user). */
  stopReason?: string;
  /** True when any hook asked to hide its output from the transcript. */
  suppressOutput: boolean;
  /** Messages for the user, in configuration order. */
  systemMessages: string[];
  /**
   * A blocking decision (`decision: "block"` or exit 2), reasons joined by newlines.
   * UserPromptSubmit: drop the prompt. PostToolUse/PostToolUseFailure: show the reason to
   * the model. Stop/SubagentStop: keep going with the reason as the next user message.
   */
  block?: { reason: string };
  errors: HookError[];
  /** Per hook, in configuration order: each one that failed or had a message for the user. */
  reports: HookReport[];
  /** The tool call the event is about, when there is one (from the hook input's `tool_use_id`). */
  toolUseId?: string;
  /**
   * Set when a hook failed with `onFailure: "block"`: one line per such hook naming it and
   * saying why. `aggregate` has already made the failure block where the event can; this is
   * the reason to give.
   */
  failure?: string;
}

/** The outcome of an event with no hooks: nothing changes. */
export function emptyOutcome(event: HookEventName): HookOutcome {
  return {
    event,
    hookCount: 0,
    additionalContext: [],
    continue: true,
    suppressOutput: false,
    systemMessages: [],
    errors: [],
    reports: [],
  };
}

/**
 * A failed hook's error. What it does is its source's `onFailure`, except that a hook cut
 * short by an interrupt always blocks: the run is stopping, and nothing should start now.
 */
export function hookError(
  event: HookEventName,
  source: HookSource,
  kind: HookErrorKind,
  message: string,
  extra: Pick<HookError, "exitCode" | "stderr"> = {},
): HookError {
  const onFailure = kind === "aborted" ? "block" : source.onFailure;
  return { event, hook: source.name, kind, message, onFailure, ...extra };
}
