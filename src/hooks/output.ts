import { z } from "zod";

// What a hook returns: a callback's resolved value, or a command hook's stdout JSON.
// Field names follow Claude Code's hook JSON output and the Agent SDK's `HookJSONOutput`;
// unknown fields are ignored so newer scripts still parse.

/**
 * A PreToolUse hook's verdict on the call (`hookSpecificOutput.permissionDecision`). `defer`
 * (Gyre) pauses the run with the call pending (`requires_action`) until the caller approves or
 * denies it on resume.
 */
export const HookPermissionDecision = z.enum(["allow", "deny", "ask", "defer"]);
export type HookPermissionDecision = z.infer<typeof HookPermissionDecision>;

const ToolInputRecord = z.record(z.string(), z.unknown());

export const PermissionRequestDecision = z.discriminatedUnion("behavior", [
  z.object({
    behavior: z.literal("allow"),
    updatedInput: ToolInputRecord.optional(),
    /** Permission rule updates to persist ("always allow"); passed through for the permissions layer. */
    updatedPermissions: z.array(z.unknown()).optional(),
  }),
  z.object({
    behavior: z.literal("deny"),
    /** Tells the model why. */
    message: z.string().optional(),
    /** When true, stop the agent instead of letting it carry on. */
    interrupt: z.boolean().optional(),
  }),
]);
export type PermissionRequestDecision = z.infer<typeof PermissionRequestDecision>;

const additionalContext = z.string().optional();

export const HookSpecificOutput = z.discriminatedUnion("hookEventName", [
  z.object({
    hookEventName: z.literal("PreToolUse"),
    permissionDecision: HookPermissionDecision.optional(),
    permissionDecisionReason: z.string().optional(),
    updatedInput: ToolInputRecord.optional(),
    additionalContext,
  }),
  z.object({
    hookEventName: z.literal("PostToolUse"),
    additionalContext,
    /** Replaces an MCP tool's output. */
    updatedMCPToolOutput: z.unknown().optional(),
  }),
  z.object({ hookEventName: z.literal("PostToolUseFailure"), additionalContext }),
  z.object({ hookEventName: z.literal("UserPromptSubmit"), additionalContext }),
  z.object({ hookEventName: z.literal("SessionStart"), additionalContext }),
  z.object({ hookEventName: z.literal("SubagentStart"), additionalContext }),
  z.object({ hookEventName: z.literal("Notification"), additionalContext }),
  z.object({ hookEventName: z.literal("PermissionRequest"), decision: PermissionRequestDecision.optional() }),
]);
export type HookSpecificOutput = z.infer<typeof HookSpecificOutput>;

export const SyncHookJSONOutput = z.object({
  /** False stops the agent after this hook; `stopReason` says why (shown to the user). */
  continue: z.boolean().optional(),
  suppressOutput: z.boolean().optional(),
  stopReason: z.string().optional(),
  /** `approve` is the legacy PreToolUse allow; `block` blocks (PreToolUse: deny the call). */
  decision: z.enum(["approve", "block"]).optional(),
  reason: z.string().optional(),
  /** A message for the user (not the model). */
  systemMessage: z.string().optional(),
  hookSpecificOutput: HookSpecificOutput.optional(),
});
export type SyncHookJSONOutput = z.infer<typeof SyncHookJSONOutput>;

/** `{ async: true }`: the hook carries on in the background and has no effect on this run. */
export const AsyncHookJSONOutput = z.object({
  async: z.literal(true),
  asyncTimeout: z.number().optional(),
});
export type AsyncHookJSONOutput = z.infer<typeof AsyncHookJSONOutput>;

export const HookJSONOutput = z.union([AsyncHookJSONOutput, SyncHookJSONOutput]);
export type HookJSONOutput = z.infer<typeof HookJSONOutput>;

/** Parse a hook's output; `undefined`/`null` (a callback that returned nothing) is `{}`. */
export function parseHookOutput(
  value: unknown,
): { ok: true; output: SyncHookJSONOutput } | { ok: false; message: string } {
  if (value === undefined || value === null) return { ok: true, output: {} };
  const async = AsyncHookJSONOutput.safeParse(value);
  if (async.success) return { ok: true, output: {} };
  const parsed = SyncHookJSONOutput.safeParse(value);
  if (parsed.success) return { ok: true, output: parsed.data };
  const issues = parsed.error.issues
    .map((issue) => `${issue.path.join(".") || "(output)"}: ${issue.message}`)
    .join("; ");
  return { ok: false, message: `Hook output does not match the hook output schema: ${issues}` };
}
