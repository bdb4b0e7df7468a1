import { z } from "zod";
import { GyreError } from "../errors/index.js";
import { HookEventName, type HookInput } from "./events.js";
import type { HookJSONOutput } from "./output.js";

/**
 * A hook callback (Claude Agent SDK `HookCallback`). `toolUseId` is set for tool events.
 * The signal aborts when the run is interrupted or the hook's timeout passes.
 */
export type HookCallback = (
  input: HookInput,
  toolUseId: string | undefined,
  options: { signal: AbortSignal },
) => HookCallbackResult | Promise<HookCallbackResult>;

/** A callback may return nothing (`async () => {}`): that is the same as `{}`. */
// `void` lets callbacks that return nothing type-check.
export type HookCallbackResult = HookJSONOutput | undefined | void;

/** Callbacks for one matcher (Claude Agent SDK `HookCallbackMatcher`). */
export interface HookCallbackMatcher {
  /** Tool name (or other event field) pattern: `Bash`, `Edit|Write`, a regex; empty or `*` = all. */
  matcher?: string;
  hooks: HookCallback[];
  /** Seconds before each callback's signal aborts and it is reported as timed out (default 60). */
  timeout?: number;
  /**
   * What a failure of these callbacks does — one throws, times out or returns output that does
   * not fit the hook output schema (Claude Agent SDK `onFailure`). Either way the failure is
   * reported as a `system`/`hook_response` message with `outcome: "error"`.
   * - `continue` (default, as in the SDK): the event goes on as if the callback were not there.
   *   A failed PreToolUse callback approves nothing: rules, mode and `canUseTool` decide as usual.
   * - `block`: what the event guards is blocked — the tool call is denied (the model gets an
   *   `is_error` result saying the hook failed), a PermissionRequest callback approves nothing,
   *   the prompt is dropped, a PostToolUse failure is shown to the model.
   *
   * Ignored on Stop and SubagentStop, where a failed hook always ends the run as `hook_stopped`.
   * Use `block` for callbacks that guard anything.
   */
  onFailure?: "continue" | "block";
}

/** `options.hooks`: callback matchers per event. */
export type HookCallbacks = Partial<Record<HookEventName, HookCallbackMatcher[]>>;

/** One shell-command hook from a settings file (Claude Code shape). */
export const CommandHookConfig = z.object({
  type: z.literal("command"),
  command: z.string().min(1),
  /** Seconds before the process group is killed (default 60). */
  timeout: z.number().positive().optional(),
});
export type CommandHookConfig = z.infer<typeof CommandHookConfig>;

const SettingsMatcher = z.object({
  matcher: z.string().optional(),
  hooks: z.array(z.object({ type: z.string() }).passthrough()),
});

const SettingsHooksShape = z.record(z.string(), z.array(SettingsMatcher));

/** Validated command hooks for one event matcher. */
export interface CommandMatcher {
  matcher?: string;
  hooks: CommandHookConfig[];
}

export type SettingsHooks = Partial<Record<HookEventName, CommandMatcher[]>>;

export interface ParsedSettings {
  hooks: SettingsHooks;
  /** Things that were skipped rather than rejected (unknown events, non-command hook types). */
  warnings: string[];
}

/**
 * Validate the `hooks` section of a Claude Code settings file (the whole settings object
 * is accepted too). Bad shape throws `config_error`; events and hook types Gyre does not
 * run (e.g. `prompt` hooks, newer events) are skipped with a warning so a user's existing
 * settings file still loads.
 */
export function parseSettingsHooks(raw: unknown, source = "settings"): ParsedSettings {
  const value = unwrapSettings(raw);
  const parsed = SettingsHooksShape.safeParse(value);
  if (!parsed.success) {
    throw new GyreError("config_error", `Invalid hooks in ${source}: ${describeIssues(parsed.error)}`, {
      cause: parsed.error,
    });
  }
  const hooks: SettingsHooks = {};
  const warnings: string[] = [];
  for (const [eventName, matchers] of Object.entries(parsed.data)) {
    const event = HookEventName.safeParse(eventName);
    if (!event.success) {
      warnings.push(`Hook event "${eventName}" in ${source} is not supported by Gyre; its hooks are skipped.`);
      continue;
    }
    hooks[event.data] = matchers.map((entry, index) =>
      parseMatcher(entry, `${source} hooks.${eventName}[${index}]`, warnings),
    );
  }
  return { hooks, warnings };
}

function parseMatcher(entry: z.infer<typeof SettingsMatcher>, where: string, warnings: string[]): CommandMatcher {
  const commands: CommandHookConfig[] = [];
  entry.hooks.forEach((hook, index) => {
    if (hook.type !== "command") {
      warnings.push(`Hook type "${hook.type}" at ${where}.hooks[${index}] is not supported by Gyre; skipped.`);
      return;
    }
    const parsed = CommandHookConfig.safeParse(hook);
    if (!parsed.success) {
      throw new GyreError("config_error", `Invalid hook at ${where}.hooks[${index}]: ${describeIssues(parsed.error)}`, {
        cause: parsed.error,
      });
    }
    commands.push(parsed.data);
  });
  return { matcher: entry.matcher, hooks: commands };
}

function unwrapSettings(raw: unknown): unknown {
  if (raw === undefined || raw === null) return {};
  if (typeof raw === "object" && !Array.isArray(raw) && "hooks" in raw) {
    return (raw as { hooks: unknown }).hooks ?? {};
  }
  return raw;
}

/** Check `options.hooks` at construction so a typo fails fast with `config_error`. */
export function validateCallbacks(callbacks: HookCallbacks): void {
  for (const [eventName, matchers] of Object.entries(callbacks)) {
    if (!HookEventName.safeParse(eventName).success) {
      throw new GyreError("config_error", `Unknown hook event "${eventName}" in options.hooks.`);
    }
    if (matchers === undefined) continue;
    if (!Array.isArray(matchers)) {
      throw new GyreError("config_error", `options.hooks.${eventName} must be an array of matchers.`);
    }
    matchers.forEach((matcher: HookCallbackMatcher, index) => {
      const where = `options.hooks.${eventName}[${index}]`;
      if (!matcher || !Array.isArray(matcher.hooks) || matcher.hooks.some((h) => typeof h !== "function")) {
        throw new GyreError("config_error", `${where}.hooks must be an array of functions.`);
      }
      if (matcher.matcher !== undefined && typeof matcher.matcher !== "string") {
        throw new GyreError("config_error", `${where}.matcher must be a string.`);
      }
      if (matcher.timeout !== undefined && !(typeof matcher.timeout === "number" && matcher.timeout > 0)) {
        throw new GyreError("config_error", `${where}.timeout must be a positive number of seconds.`);
      }
      if (matcher.onFailure !== undefined && matcher.onFailure !== "continue" && matcher.onFailure !== "block") {
        throw new GyreError("config_error", `${where}.onFailure must be "continue" or "block".`);
      }
    });
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ");
}
