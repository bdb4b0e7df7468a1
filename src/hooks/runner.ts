import { aggregate } from "./aggregate.js";
import {
  type CommandHookConfig,
  type HookCallback,
  type HookCallbacks,
  parseSettingsHooks,
  type SettingsHooks,
  validateCallbacks,
} from "./config.js";
import type { HookEventFields, HookEventName, HookInput, HookInputFor } from "./events.js";
import { interpretCommandExit } from "./interpret.js";
import { compileMatcher, type MatchFunction, matchValue } from "./matcher.js";
import { emptyOutcome, type HookOutcome, type HookRunResult, type HookSource } from "./outcome.js";
import { runCallback } from "./run-callback.js";
import { defaultShell, runHookCommand } from "./run-hook-command.js";

export interface HookRunnerOptions {
  /** Callback hooks (`options.hooks` in the Claude Agent SDK shape). */
  callbacks?: HookCallbacks;
  /**
   * Command hooks from settings files (Claude Code shape): a `hooks` map, a whole settings
   * object with a `hooks` key, or an array of those (merged in order). Validated here;
   * a bad shape throws `config_error`.
   */
  settings?: unknown;
  /** Project directory: the commands' cwd, `CLAUDE_PROJECT_DIR`, and the inputs' `cwd`. */
  cwd: string;
  sessionId: string;
  transcriptPath?: string;
  /** The run's permission mode, or a function that reads it as it is now (it can change mid-run). */
  permissionMode?: string | (() => string);
  /** Timeout for hooks that set none (default 60,000 ms). */
  defaultTimeoutMs?: number;
  /** Shell for command hooks (default: `$SHELL` when POSIX, else `/bin/sh`). */
  shell?: string;
  /** Base environment for command hooks (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Told each outcome of an event some hook matched (tracing records them). */
  onOutcome?: (outcome: HookOutcome) => void;
}

export interface HookRunOptions {
  /** Aborting kills running commands and aborts callbacks; they are reported as `aborted`. */
  signal?: AbortSignal;
}

type Entry =
  | { kind: "callback"; match: MatchFunction; source: HookSource; timeoutMs: number; callback: HookCallback }
  | { kind: "command"; match: MatchFunction; source: HookSource; timeoutMs: number; hook: CommandHookConfig };

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Runs the hooks configured for an event and combines what they say into one
 * `HookOutcome`. Matching hooks run in parallel; a hook that throws, crashes, prints
 * invalid or too much output or times out is reported in `outcome.errors` and
 * `outcome.reports`, never makes `run` reject, and — a settings-file command always, a
 * callback when its matcher says `onFailure: "block"` — blocks wherever its success could
 * have (see `aggregate`).
 */
export class HookRunner {
  /** Settings entries that were skipped (unsupported events or hook types). */
  readonly warnings: string[] = [];
  readonly #options: HookRunnerOptions;
  readonly #entries = new Map<HookEventName, Entry[]>();

  constructor(options: HookRunnerOptions) {
    this.#options = options;
    const defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (options.callbacks) {
      validateCallbacks(options.callbacks);
      this.#addCallbacks(options.callbacks, defaultTimeoutMs);
    }
    const sources = Array.isArray(options.settings) ? options.settings : [options.settings];
    sources.forEach((raw, index) => {
      const label = sources.length > 1 ? `settings[${index}]` : "settings";
      const parsed = parseSettingsHooks(raw, label);
      this.warnings.push(...parsed.warnings);
      this.#addCommands(parsed.hooks, label, defaultTimeoutMs);
    });
  }

  /** True when at least one hook is configured for the event: lets the loop skip work. */
  has(event: HookEventName): boolean {
    return (this.#entries.get(event)?.length ?? 0) > 0;
  }

  /** True when a hook of the event matches `value` (a tool name for tool events): a call of that tool would run it. */
  matches(event: HookEventName, value: string): boolean {
    return (this.#entries.get(event) ?? []).some((entry) => entry.match(value));
  }

  /**
   * Run every hook whose matcher matches the event's input (tool name for tool events,
   * `source` for SessionStart, `trigger` for compaction, ...). Resolves with the combined
   * outcome; an event with no matching hooks resolves with an outcome that changes nothing.
   */
  async run<E extends HookEventName>(
    event: E,
    fields: HookEventFields<E>,
    options: HookRunOptions = {},
  ): Promise<HookOutcome> {
    const entries = this.#entries.get(event);
    if (!entries || entries.length === 0) return emptyOutcome(event);
    const input = this.#input(event, fields);
    const value = matchValue(event, input as Record<string, unknown>);
    const seenCommands = new Set<string>();
    const matched = entries.filter((entry) => {
      if (value !== null && !entry.match(value)) return false;
      // Claude Code runs an identical command once even when several matchers list it.
      if (entry.kind === "command") {
        if (seenCommands.has(entry.hook.command)) return false;
        seenCommands.add(entry.hook.command);
      }
      return true;
    });
    if (matched.length === 0) return emptyOutcome(event);
    const results = await Promise.all(matched.map((entry) => this.#runEntry(entry, input, options.signal)));
    const outcome = aggregate(event, results);
    if ("tool_use_id" in fields && typeof fields.tool_use_id === "string") outcome.toolUseId = fields.tool_use_id;
    this.#options.onOutcome?.(outcome);
    return outcome;
  }

  #input<E extends HookEventName>(event: E, fields: HookEventFields<E>): HookInputFor<E> {
    const mode = this.#options.permissionMode;
    const base = {
      session_id: this.#options.sessionId,
      transcript_path: this.#options.transcriptPath ?? "",
      cwd: this.#options.cwd,
      ...(mode !== undefined ? { permission_mode: typeof mode === "function" ? mode() : mode } : {}),
    };
    return { ...base, ...fields, hook_event_name: event } as unknown as HookInputFor<E>;
  }

  #runEntry(entry: Entry, input: HookInput, signal: AbortSignal | undefined): Promise<HookRunResult> {
    if (entry.kind === "callback") {
      return runCallback({ callback: entry.callback, source: entry.source, timeoutMs: entry.timeoutMs, signal }, input);
    }
    const projectDir = this.#options.cwd;
    return runHookCommand({
      command: entry.hook.command,
      stdin: JSON.stringify(input),
      cwd: projectDir,
      env: {
        ...(this.#options.env ?? process.env),
        CLAUDE_PROJECT_DIR: projectDir,
        GYRE_PROJECT_DIR: projectDir,
      },
      timeoutMs: entry.timeoutMs,
      shell: this.#options.shell ?? defaultShell(this.#options.env),
      signal,
    }).then((exit) => interpretCommandExit(input.hook_event_name, entry.source, exit));
  }

  #addCallbacks(callbacks: HookCallbacks, defaultTimeoutMs: number): void {
    for (const [event, matchers] of Object.entries(callbacks) as Array<[HookEventName, HookCallbacks[HookEventName]]>) {
      matchers?.forEach((matcher, index) => {
        const match = compileMatcher(matcher.matcher, `options.hooks.${event}[${index}]`);
        const timeoutMs = matcher.timeout !== undefined ? matcher.timeout * 1000 : defaultTimeoutMs;
        for (const callback of matcher.hooks) {
          const source: HookSource = {
            kind: "callback",
            name: `callback ${callback.name || "(anonymous)"}`,
            // The Claude Agent SDK's default: a failed callback is reported and the event goes on.
            onFailure: matcher.onFailure ?? "continue",
          };
          this.#push(event, { kind: "callback", match, source, timeoutMs, callback });
        }
      });
    }
  }

  #addCommands(hooks: SettingsHooks, label: string, defaultTimeoutMs: number): void {
    for (const [event, matchers] of Object.entries(hooks) as Array<[HookEventName, SettingsHooks[HookEventName]]>) {
      matchers?.forEach((matcher, index) => {
        const match = compileMatcher(matcher.matcher, `${label} hooks.${event}[${index}]`);
        for (const hook of matcher.hooks) {
          const timeoutMs = hook.timeout !== undefined ? hook.timeout * 1000 : defaultTimeoutMs;
          // Settings-file commands fail closed (see `aggregate`), stricter than Claude Code.
          const source: HookSource = { kind: "command", name: hook.command, onFailure: "block" };
          this.#push(event, { kind: "command", match, source, timeoutMs, hook });
        }
      });
    }
  }

  #push(event: HookEventName, entry: Entry): void {
    const list = this.#entries.get(event) ?? [];
    list.push(entry);
    this.#entries.set(event, list);
  }
}
