import { homedir } from "node:os";
import path from "node:path";
import type { FoundPath, SideEffect } from "../tools/index.js";
import {
  blockingUncertainty,
  findBlockingBashRule,
  matchAllowBashRules,
  processStateRead,
  protectedWrite,
} from "./bash-rules.js";
import { type CompiledRule, compileRule, describeRule, ruleRef } from "./compiled-rule.js";
import type { PermissionMode } from "./mode.js";
import { matchesPathPattern } from "./path-pattern.js";
import { readsProcessState } from "./process-paths.js";
import { isProtectedPath } from "./protected-paths.js";
import { ReadBlockers } from "./read-blockers.js";
import { expandHome, isInside, resolveRealPath } from "./resolve-path.js";
import { formatRule, parseRule, type SourcedRule } from "./rule.js";
import { loadShellParser } from "./shell/parser.js";
import { classifyRequest, matchesDomain, type Subject } from "./subject.js";
import { EDIT_TOOLS, inputString, ruleAppliesTo } from "./tool-kinds.js";
import type { PermissionDecision, PermissionHint, PermissionUpdate, RuleBehavior, UnaskedCall } from "./types.js";

/** A rule given as a plain string (no source file) or with its origin. */
export type RuleInput = string | SourcedRule;

export interface PermissionPolicyOptions {
  mode?: PermissionMode;
  allow?: readonly RuleInput[];
  deny?: readonly RuleInput[];
  ask?: readonly RuleInput[];
  /** Directories besides `cwd` where file edits count as inside the workspace. */
  additionalDirectories?: readonly string[];
  /** The workspace root; `./path` and bare path rules are relative to it. */
  cwd: string;
  /** For `~/` in rules; defaults to the OS home directory. */
  home?: string;
  /**
   * Whether a Bash call's input runs inside the OS sandbox: such calls are allowed without
   * asking (`autoAllowBashIfSandboxed`) once deny and ask rules have had their say.
   */
  sandboxedBash?: (input: unknown) => boolean;
  /**
   * The host's advice for a call that needed asking when nobody can be asked (`dontAsk` mode
   * here, no `canUseTool` in the tool gate): it ends the denial's message.
   */
  hint?: PermissionHint;
  /** See {@link UnaskedCall.untrustedFolder}: passed on to {@link hint}. */
  untrustedFolder?: string;
}

/** The permission part of loaded settings (see `loadSettings` in src/settings). */
export interface PermissionSettings {
  permissions: {
    allow: readonly SourcedRule[];
    deny: readonly SourcedRule[];
    ask: readonly SourcedRule[];
    defaultMode?: PermissionMode;
    additionalDirectories: readonly string[];
  };
}

/** One tool call to judge. `cwd` resolves relative paths in the input. */
export interface PermissionRequest {
  toolName: string;
  input: unknown;
  sideEffect: SideEffect;
  cwd: string;
}

/** A rule that could not be parsed; it is ignored and reported here. */
export interface RuleWarning {
  rule: string;
  behavior: RuleBehavior;
  source?: string;
  message: string;
}

/**
 * Decides whether a tool call may run, in Claude Code's order: deny rules, then (in plan
 * mode) refusal of anything not read-only, then ask rules, then the workspace boundary for
 * file edits, then `bypassPermissions`, then allow rules, then the mode's default.
 * Pure apart from resolving symlinks on disk; it never prompts — `ask` is left to the caller.
 */
export class PermissionPolicy {
  readonly #cwd: string;
  readonly #home: string;
  #mode: PermissionMode;
  readonly #sandboxedBash: ((input: unknown) => boolean) | undefined;
  readonly #hint: Pick<PermissionPolicyOptions, "hint" | "untrustedFolder">;
  #rules: Record<RuleBehavior, CompiledRule[]> = { allow: [], deny: [], ask: [] };
  #directories: string[] = [];
  readonly #warnings: RuleWarning[] = [];
  readonly #readBlockers = new ReadBlockers();

  constructor(options: PermissionPolicyOptions) {
    this.#cwd = path.resolve(options.cwd);
    this.#home = options.home ?? homedir();
    this.#mode = options.mode ?? "default";
    this.#sandboxedBash = options.sandboxedBash;
    this.#hint = { hint: options.hint, untrustedFolder: options.untrustedFolder };
    for (const behavior of ["allow", "deny", "ask"] as const) {
      for (const input of options[behavior] ?? []) this.#addRule(input, behavior);
    }
    this.#addDirectories([this.#cwd, ...(options.additionalDirectories ?? [])]);
  }

  /**
   * A policy from loaded settings plus options. Rules and directories from both are
   * combined; `options.mode` wins over the settings' `defaultMode`.
   */
  static fromSettings(
    settings: PermissionSettings,
    options: Omit<PermissionPolicyOptions, "mode"> & { mode?: PermissionMode },
  ): PermissionPolicy {
    const { permissions } = settings;
    return new PermissionPolicy({
      ...options,
      mode: options.mode ?? permissions.defaultMode ?? "default",
      allow: [...permissions.allow, ...(options.allow ?? [])],
      deny: [...permissions.deny, ...(options.deny ?? [])],
      ask: [...permissions.ask, ...(options.ask ?? [])],
      additionalDirectories: [...permissions.additionalDirectories, ...(options.additionalDirectories ?? [])],
    });
  }

  get mode(): PermissionMode {
    return this.#mode;
  }

  setMode(mode: PermissionMode): void {
    this.#mode = mode;
  }

  /**
   * This policy under `mode` when that mode allows less than the current one (`plan` least,
   * then `dontAsk`, `default`, `acceptEdits`, `bypassPermissions`), else this policy itself: a
   * subagent's own mode can narrow its parent's, never widen it. The view shares the rules and
   * directories, so an "always allow" answered in either applies to both.
   */
  narrowedTo(mode: PermissionMode | undefined): PermissionPolicy {
    if (mode === undefined || PERMISSIVENESS[mode] >= PERMISSIVENESS[this.#mode]) return this;
    const view = new PermissionPolicy({ cwd: this.#cwd, home: this.#home, mode, ...this.#hint });
    view.#rules = this.#rules;
    view.#directories = this.#directories;
    return view;
  }

  /**
   * The host's advice (the `hint` option) for a call that needed asking when nobody could be
   * asked; `undefined` when the host gave none, and the caller says it in the library's words.
   */
  unaskedHint(call: Omit<UnaskedCall, "untrustedFolder">): string | undefined {
    const { hint, untrustedFolder } = this.#hint;
    return hint?.({ ...call, ...(untrustedFolder !== undefined && { untrustedFolder }) });
  }

  /** Rules that were ignored because they could not be parsed. */
  get warnings(): readonly RuleWarning[] {
    return this.#warnings;
  }

  /** Workspace directories (real paths): `cwd` first, then additional directories. */
  get directories(): readonly string[] {
    return this.#directories;
  }

  /** Apply an update (e.g. an "always allow" suggestion the user accepted) to this policy. */
  applyUpdate(update: PermissionUpdate): void {
    switch (update.type) {
      case "setMode":
        this.#mode = update.mode;
        return;
      case "addDirectories":
        this.#addDirectories(update.directories);
        return;
      case "removeDirectories": {
        const removed = new Set(update.directories.map((dir) => this.#realDirectory(dir)));
        // In place: a narrowed view shares the list.
        const kept = this.#directories.filter((dir) => dir === this.#directories[0] || !removed.has(dir));
        this.#directories.splice(0, this.#directories.length, ...kept);
        return;
      }
      case "replaceRules":
        this.#rules[update.behavior] = [];
        break;
      case "removeRules": {
        const removed = new Set(update.rules.map((rule) => formatRule(rule.toolName, rule.ruleContent)));
        this.#rules[update.behavior] = this.#rules[update.behavior].filter((rule) => !removed.has(rule.raw));
        return;
      }
    }
    for (const rule of update.rules) {
      this.#addRule({ rule: formatRule(rule.toolName, rule.ruleContent) }, update.behavior);
    }
  }

  /**
   * Judge one tool call once the shell parser has loaded (Bash calls need it; until then
   * `evaluate` treats every command as one it cannot read, and asks).
   */
  async evaluateWhenReady(request: PermissionRequest): Promise<PermissionDecision> {
    if (request.toolName === "Bash") await loadShellParser();
    return this.evaluate(request);
  }

  /** Judge one tool call. */
  evaluate(request: PermissionRequest): PermissionDecision {
    const subject = classifyRequest(request, this.#cwd, this.#home);
    const decision = this.#decide(request, subject);
    if (subject.kind !== "file" || decision.behavior === "deny") return decision;
    return { ...decision, path: subject.real };
  }

  /**
   * Whether the rules let `toolName` (a tool of the Read family by default) read, or name, the
   * file or folder at `file`: no deny or ask rule for that tool (`Read(...)` rules cover Read,
   * Grep, Glob) matches it as written or as resolved, nor (for a folder) everything inside it.
   * The one check every tool that reports file content or names applies to each file it found
   * or opened (`ToolContext.files`): a search cannot ask about each file it meets, so what a
   * rule would refuse or ask about is left out. `found`: what the caller knows of `file` already
   * (a search resolves its root once, not each file, and knows files from folders).
   */
  mayRead(file: string, toolName = "Read", found?: FoundPath): boolean {
    const patterns = this.#readBlockers.patterns(this.#rules, toolName);
    // Without a path rule for the tool nothing is refused: no file system look-up (a search
    // calls this for every folder and file it reports).
    if (patterns.length === 0) return true;
    const absolute = path.resolve(this.#cwd, file);
    const resolved = found?.real ?? resolveRealPath(absolute);
    const names = resolved === absolute ? [absolute] : [absolute, resolved];
    // `dir/-` stands for what a folder holds: `Read(./secrets/**)` hides the folder itself too.
    const files = found?.isFile === true ? names : names.flatMap((name) => [name, path.join(name, "-")]);
    return !patterns.some((pattern) => matchesPathPattern(pattern, files));
  }

  #decide(request: PermissionRequest, subject: Subject): PermissionDecision {
    const deny = this.#findBlocking("deny", request, subject);
    if (deny) {
      return {
        behavior: "deny",
        message: `Permission to use ${request.toolName} has been denied by ${describeRule(deny)}.`,
        rule: ruleRef(deny),
      };
    }
    const unsureDeny = this.#uncertain("deny", request, subject);
    if (unsureDeny) return unsureDeny;
    if (this.#mode === "plan" && !runsWhilePlanning(request.sideEffect)) {
      return {
        behavior: "deny",
        message: `${request.toolName} is not available in plan mode: only read-only tools may run while planning.`,
      };
    }
    const ask = this.#findBlocking("ask", request, subject);
    if (ask) return this.#ask(`${request.toolName} matches ${describeRule(ask)}`, request, subject, ask);
    const unsureAsk = this.#uncertain("ask", request, subject);
    if (unsureAsk) return unsureAsk;
    if (this.#mode !== "bypassPermissions") {
      const reason = this.#protectedWrite(request, subject);
      if (reason) return this.#ask(reason, request, subject, undefined, []);
    }
    // The sandbox, not a prompt, confines it; plan mode and deny/ask rules were checked above.
    if (subject.kind === "bash" && this.#sandboxedBash?.(request.input)) {
      return allow("the command runs inside the sandbox (autoAllowBashIfSandboxed)");
    }
    if (this.#mode !== "bypassPermissions") {
      const reason = processStateReason(subject);
      if (reason) return this.#ask(reason, request, subject, undefined, []);
    }
    if (subject.kind === "file" && request.sideEffect === "mutating" && !this.#inWorkspace(subject.real)) {
      const scoped = this.#rules.allow.find((rule) => rule.path && this.#matchesFile(rule, request, subject));
      if (scoped) return allow(`${request.toolName} is allowed by ${describeRule(scoped)}`, scoped);
      if (this.#mode === "bypassPermissions") return allow("bypassPermissions mode allows every call");
      return this.#ask(`${subject.real} is outside the workspace`, request, subject);
    }
    if (this.#mode === "bypassPermissions") return allow("bypassPermissions mode allows every call");
    const allowRule = this.#findAllow(request, subject);
    if (allowRule) return allow(`${request.toolName} is allowed by ${describeRule(allowRule)}`, allowRule);
    return this.#modeDefault(request, subject);
  }

  #modeDefault(request: PermissionRequest, subject: Subject): PermissionDecision {
    if (request.sideEffect === "none") return allow(`${request.toolName} has no side effects`);
    if (request.sideEffect === "read-only") {
      if (subject.kind === "file" && !this.#inWorkspace(subject.real)) {
        return this.#ask(`${subject.real} is outside the workspace`, request, subject);
      }
      return allow(`${request.toolName} only reads`);
    }
    if (this.#mode === "acceptEdits" && EDIT_TOOLS.has(request.toolName)) {
      return allow("acceptEdits mode allows file edits inside the workspace");
    }
    return this.#ask(`no rule allows ${request.toolName}`, request, subject);
  }

  /**
   * A Bash line that deny (or ask) rules might catch although none matched what could be
   * read of it: asked about, never allowed by a rule or a mode (a deny must not turn into
   * an allow because a command hid itself).
   */
  #uncertain(behavior: "deny" | "ask", request: PermissionRequest, subject: Subject): PermissionDecision | undefined {
    if (subject.kind !== "bash") return undefined;
    const unsure = blockingUncertainty(this.#rules[behavior], subject.call);
    if (!unsure) return undefined;
    const reason = `it cannot be ruled out that ${describeRule(unsure.rule)} applies: ${unsure.reason}`;
    return this.#ask(reason, request, subject, unsure.rule, []);
  }

  /**
   * Why this call writes a file that controls the agent or the repository (protected-paths.ts):
   * Write/Edit to one, or a Bash line that may write one. Asked about in every mode but
   * `bypassPermissions`, whatever the allow rules say.
   */
  #protectedWrite(request: PermissionRequest, subject: Subject): string | undefined {
    if (subject.kind === "bash") return protectedWrite(subject.call);
    if (subject.kind === "file" && EDIT_TOOLS.has(request.toolName) && subject.files.some(isProtectedPath)) {
      return `${subject.real} controls the agent or the repository`;
    }
    return undefined;
  }

  #ask(
    reason: string,
    request: PermissionRequest,
    subject: Subject,
    rule?: CompiledRule,
    suggestionsOverride?: PermissionUpdate[],
  ): PermissionDecision {
    if (this.#mode === "dontAsk") {
      const hint = this.#hint.hint
        ? this.unaskedHint({
            toolName: request.toolName,
            input: request.input,
            reason,
            suggestions: suggestionsOverride ?? this.#suggest(request, subject),
          })
        : undefined;
      const message =
        `Permission to use ${request.toolName} was not granted: ${reason}, and dontAsk mode denies instead of asking.` +
        (hint ? ` ${hint}` : "");
      return rule ? { behavior: "deny", message, rule: ruleRef(rule) } : { behavior: "deny", message };
    }
    const suggestions = suggestionsOverride ?? this.#suggest(request, subject);
    return {
      behavior: "ask",
      reason,
      ...(suggestions.length > 0 ? { suggestions } : {}),
      ...(rule ? { rule: ruleRef(rule) } : {}),
    };
  }

  #suggest(request: PermissionRequest, subject: Subject): PermissionUpdate[] {
    if (subject.kind === "file" && !this.#inWorkspace(subject.real)) {
      return [{ type: "addDirectories", directories: [path.dirname(subject.real)], destination: "session" }];
    }
    if (subject.kind === "file" && EDIT_TOOLS.has(request.toolName)) {
      return [{ type: "setMode", mode: "acceptEdits", destination: "session" }];
    }
    if (subject.kind === "bash") {
      const { unmatched } = matchAllowBashRules(this.#rules.allow, subject.call, (file) => this.#inWorkspace(file));
      if (subject.call.analysis.opaque.length > 0) return [];
      const rules = [...new Set(unmatched)].map((ruleContent) => ({ toolName: "Bash", ruleContent }));
      return [{ type: "addRules", rules, behavior: "allow", destination: "session" }];
    }
    // As Claude Code offers: allow fetches from this host, not every fetch.
    const rule =
      subject.kind === "url" && subject.hostname !== undefined
        ? { toolName: request.toolName, ruleContent: `domain:${subject.hostname}` }
        : { toolName: request.toolName };
    return [
      {
        type: "addRules",
        rules: [rule],
        behavior: "allow",
        destination: "session",
      },
    ];
  }

  #findBlocking(behavior: "deny" | "ask", request: PermissionRequest, subject: Subject): CompiledRule | undefined {
    const rules = this.#rules[behavior];
    if (subject.kind === "bash") return findBlockingBashRule(rules, subject.call);
    return rules.find((rule) => this.#matches(rule, request, subject, "block"));
  }

  #findAllow(request: PermissionRequest, subject: Subject): CompiledRule | undefined {
    if (subject.kind === "bash") {
      return matchAllowBashRules(this.#rules.allow, subject.call, (file) => this.#inWorkspace(file)).rule;
    }
    return this.#rules.allow.find((rule) => this.#matches(rule, request, subject, "allow"));
  }

  #matches(rule: CompiledRule, request: PermissionRequest, subject: Subject, use: "block" | "allow"): boolean {
    if (!ruleAppliesTo(rule.toolName, request.toolName)) return false;
    if (rule.content === undefined) return true;
    if (rule.path) return subject.kind === "file" && this.#matchesFile(rule, request, subject, use);
    if (rule.toolName === "WebFetch") return subject.kind === "url" && matchesDomain(rule.content, subject.hostname);
    if (rule.toolName === "Task" || rule.toolName === "Agent") {
      return inputString(request.input, "subagent_type") === rule.content;
    }
    if (rule.toolName === "Skill") return matchesSkill(rule.content, inputString(request.input, "skill"));
    return false;
  }

  /** Blocking rules match the path as written or as resolved; allow rules must match the real path. */
  #matchesFile(
    rule: CompiledRule,
    request: PermissionRequest,
    subject: Extract<Subject, { kind: "file" }>,
    use: "block" | "allow" = "allow",
  ): boolean {
    if (!ruleAppliesTo(rule.toolName, request.toolName) || !rule.path) return false;
    if (use === "allow") return matchesPathPattern(rule.path, [subject.real]);
    // A search of a directory reads the files in it: `Read(./src/**)` must stop `Grep` in `src`.
    const files = subject.directory ? subject.files.flatMap((file) => [file, path.join(file, "-")]) : subject.files;
    return matchesPathPattern(rule.path, files);
  }

  #inWorkspace(real: string): boolean {
    return this.#directories.some((dir) => isInside(real, dir));
  }

  #addRule(input: RuleInput, behavior: RuleBehavior): void {
    const sourced = typeof input === "string" ? { rule: input } : input;
    const parsed = parseRule(sourced, behavior);
    if (!parsed.ok) {
      this.#warnings.push({ rule: sourced.rule, behavior, source: sourced.source, message: parsed.error });
      return;
    }
    this.#rules[behavior].push(compileRule(parsed.rule, { cwd: this.#cwd, home: this.#home }));
  }

  #addDirectories(directories: readonly string[]): void {
    for (const dir of directories) {
      const real = this.#realDirectory(dir);
      if (!this.#directories.includes(real)) this.#directories.push(real);
    }
  }

  #realDirectory(dir: string): string {
    return resolveRealPath(path.resolve(this.#cwd, expandHome(dir, this.#home)));
  }
}

function allow(reason: string, rule?: CompiledRule): PermissionDecision {
  return rule ? { behavior: "allow", reason, rule: ruleRef(rule) } : { behavior: "allow", reason };
}

/** How much a mode lets through without asking, for {@link PermissionPolicy.narrowedTo}. */
const PERMISSIVENESS: Record<PermissionMode, number> = {
  plan: 0,
  dontAsk: 1,
  default: 2,
  acceptEdits: 3,
  bypassPermissions: 4,
};

/**
 * Whether a call may run in plan mode: tools that change nothing, and, as in Claude Code, the
 * network tools that only read the web (WebFetch, WebSearch). Those still go through the rules
 * and are asked about as in default mode.
 */
function runsWhilePlanning(sideEffect: SideEffect): boolean {
  return sideEffect === "none" || sideEffect === "read-only" || sideEffect === "network";
}

/**
 * Why the call may read another process's state through `/proc` (its environment holds API
 * keys): outside the workspace whatever the allow rules say. Inside the sandbox (checked
 * before) `/proc` shows the sandbox's own processes only.
 */
function processStateReason(subject: Subject): string | undefined {
  if (subject.kind === "bash") return processStateRead(subject.call);
  if (subject.kind === "file" && subject.files.some((file) => readsProcessState(file)))
    return `${subject.real} is another process's state in /proc, outside the workspace`;
  return undefined;
}

/** `Skill(pdf)` matches the skill `pdf`; `Skill(kit:*)` or `Skill(kit *)` every name that starts so (Claude Code's). */
function matchesSkill(content: string, skill: string | undefined): boolean {
  if (skill === undefined) return false;
  const name = skill.trim().replace(/^\//, "");
  const prefix = /^(.*?)(?::\*| \*)$/.exec(content)?.[1];
  return prefix === undefined
    ? name === content
    : name === prefix || name.startsWith(content.endsWith(":*") ? `${prefix}:` : prefix);
}
