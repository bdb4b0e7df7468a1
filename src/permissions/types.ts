import { z } from "zod";
import { PermissionMode } from "./mode.js";

/** Which list a rule came from. */
export const RuleBehavior = z.enum(["allow", "deny", "ask"]);
export type RuleBehavior = z.infer<typeof RuleBehavior>;

/** A rule as the Claude Agent SDK names it: tool name plus optional content in parentheses. */
export const PermissionRuleValue = z.object({
  toolName: z.string(),
  ruleContent: z.string().optional(),
});
export type PermissionRuleValue = z.infer<typeof PermissionRuleValue>;

/** Where an update is persisted; this engine applies every destination to its in-memory rules. */
export const PermissionUpdateDestination = z.enum([
  "userSettings",
  "projectSettings",
  "localSettings",
  "session",
  "cliArg",
]);
export type PermissionUpdateDestination = z.infer<typeof PermissionUpdateDestination>;

/** A change to the permission state, in the Claude Agent SDK's `PermissionUpdate` shape. */
export const PermissionUpdate = z.discriminatedUnion("type", [
  z.object({
    type: z.enum(["addRules", "replaceRules", "removeRules"]),
    rules: z.array(PermissionRuleValue),
    behavior: RuleBehavior,
    destination: PermissionUpdateDestination,
  }),
  z.object({ type: z.literal("setMode"), mode: PermissionMode, destination: PermissionUpdateDestination }),
  z.object({
    type: z.enum(["addDirectories", "removeDirectories"]),
    directories: z.array(z.string()),
    destination: PermissionUpdateDestination,
  }),
]);
export type PermissionUpdate = z.infer<typeof PermissionUpdate>;

/** The rule that decided a call, for messages and audit: its text, list and settings file. */
export interface RuleRef {
  rule: string;
  behavior: RuleBehavior;
  /** The settings file the rule came from; absent for rules passed as options. */
  source?: string;
}

/**
 * The engine's verdict on one tool call. `ask` means: defer to `canUseTool` or the user.
 * `path`: for a call on a file or a search folder, its real path as the verdict judged it (the
 * tool verifies that what it opens is that file: `FileGuard.approvedPath`).
 */
export type PermissionDecision =
  | { behavior: "allow"; updatedInput?: unknown; reason: string; rule?: RuleRef; path?: string }
  | { behavior: "deny"; message: string; interrupt?: boolean; rule?: RuleRef }
  | { behavior: "ask"; reason: string; suggestions?: PermissionUpdate[]; rule?: RuleRef; path?: string };

/**
 * The answer of a `canUseTool` callback (Claude Agent SDK's `PermissionResult`), plus `defer`
 * (Gyre): no answer now — the run pauses with the call pending (`requires_action`), and a later
 * `query` with `resume` answers it through `approvals`, from this process or another one.
 */
export type PermissionResult =
  | { behavior: "allow"; updatedInput?: Record<string, unknown>; updatedPermissions?: PermissionUpdate[] }
  | { behavior: "deny"; message: string; interrupt?: boolean }
  | { behavior: "defer"; message?: string };

/**
 * Asked when the policy's decision is `ask`, as in the Claude Agent SDK: resolve to allow
 * (optionally with changed input and permission updates to apply) or deny (optionally
 * interrupting the run). `suggestions` are updates a UI can offer as "always allow".
 * `kind` is `doom_loop` when the model has repeated the same call; denying it stops the run.
 */
export type CanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: {
    signal: AbortSignal;
    suggestions: PermissionUpdate[];
    toolUseID: string;
    decisionReason: string;
    kind: "permission" | "doom_loop";
  },
) => Promise<PermissionResult>;

/**
 * A call that needed a person's approval when no one could be asked (no `canUseTool`, or
 * `dontAsk` mode): what a {@link PermissionHint} is told about it.
 */
export interface UnaskedCall {
  toolName: string;
  input: unknown;
  /** Why the call needed asking. */
  reason: string;
  /** The updates that would allow it, as `canUseTool` would have been offered them. */
  suggestions: PermissionUpdate[];
  /**
   * The project folder whose settings files' allow rules (or mode, or directories) were
   * ignored because the person has not trusted it: trusting it may be what allows the call.
   */
  untrustedFolder?: string;
}

/**
 * What to do about an {@link UnaskedCall}, in the host's own terms: the CLI names its flags,
 * the settings files and `gyre trust`. Its text ends the call's denial message.
 */
export type PermissionHint = (call: UnaskedCall) => string;
