import { errorMessage } from "../errors/index.js";
import { DEFAULT_MODEL, type QueryOptions } from "../run/index.js";
import type { PermissionMode, SDKMessage, UserContentBlock } from "../protocol/index.js";
import type { SessionInfo } from "../sessions/index.js";
import { AgentSession } from "./agent-session.js";
import { persistAllowRules } from "./allow-always.js";
import { runBuiltinCommand } from "./builtin-commands.js";
import { type CompletionToken, type Suggestion, suggestCommands, suggestPaths } from "./completion.js";
import { listProjectPaths } from "./file-index.js";
import { mentionGate } from "./mention-gate.js";
import { attachMentions, findMentions } from "./mentions.js";
import type { PermissionChoice } from "./permission-prompt.js";
import type { PlanChoice } from "./plan-approval-prompt.js";
import { ProjectTrust } from "./project-trust.js";
import type { PromptHistory } from "./prompt-history.js";
import { runShellEscape, shellContext, shellSummary } from "./shell-escape.js";
import { commandEntries, parseSlashCommand, SLASH_COMMANDS } from "./slash-commands.js";
import { TuiStore } from "./tui-store.js";
import { expandCommand, type UserCommand } from "../commands/index.js";

/** The modes Shift+Tab cycles through, in order. */
export const MODE_CYCLE: readonly PermissionMode[] = ["default", "acceptEdits", "plan"];

/** What the model is told when the person dismisses its question. */
export const UNANSWERED =
  "The person closed your question without answering it. Go on without their answer, or ask differently.";

/** How long after a first Ctrl+C a second one quits. */
const CTRL_C_WINDOW_MS = 2000;

export interface TuiControllerOptions {
  options: QueryOptions;
  cwd: string;
  history: PromptHistory;
  /** Called once the session is closed: the UI unmounts. */
  exit(): void;
  /** Clears the terminal (for /clear and /resume). */
  clearScreen(): void;
  /** The person's own slash commands (`.claude/commands`, `.gyre/commands`), by name. */
  userCommands?: ReadonlyMap<string, UserCommand>;
}

/**
 * What the keys and commands of the terminal agent do, without React: the components call
 * these and draw the store. Slash commands, history, permission answers and quitting live here.
 */
export class TuiController {
  readonly store: TuiStore;
  readonly session: AgentSession;
  /** A short message in the status line's corner (Ctrl+C again to quit, ...). */
  hint: string | undefined;
  /** Bumped by /clear so the screen's written-once part starts again. */
  generation = 0;
  readonly #options: TuiControllerOptions;
  #ctrlCAt = 0;
  #questions = 0;
  #hintTimer: ReturnType<typeof setTimeout> | undefined;
  #quitting = false;
  /** `!command` output not yet sent: it goes to the model with the next prompt. */
  #shellOutput: string[] = [];
  #shellRun: AbortController | undefined;
  /** Prompts are sent in order even when attaching files takes a while. */
  #sending: Promise<void> = Promise.resolve();
  #paths: string[] | undefined;
  #pathsLoading = false;
  /** The model to go back to once the turn of a command with its own `model` ends. */
  #modelAfterTurn: string | undefined;
  /** The last `init` message: the tools (MCP ones included) and MCP servers of the run. */
  lastInit: Extract<SDKMessage, { type: "system"; subtype: "init" }> | undefined;
  readonly #trust: ProjectTrust;
  /** Calls the person was asked about: their denials need no word from us. */
  readonly #asked = new Set<string>();

  constructor(options: TuiControllerOptions) {
    this.#options = options;
    const model =
      typeof options.options.model === "string" ? options.options.model : (process.env.GYRE_MODEL ?? DEFAULT_MODEL);
    this.store = new TuiStore(options.cwd, {
      model,
      mode: options.options.permissionMode ?? "default",
      costUsd: 0,
      contextPercent: undefined,
      busy: false,
    });
    this.session = new AgentSession(options.options, {
      onMessage: (message) => {
        if (message.type === "system" && message.subtype === "init") {
          this.lastInit = message;
          this.#trust.reportIgnored(message.ignored_settings);
        }
        // A call denied without asking (a deny rule, dontAsk, a hook): the transcript says why and
        // what would allow it, which the tool line has no room for.
        if (
          message.type === "system" &&
          message.subtype === "permission_denied" &&
          !this.#asked.has(message.tool_use_id)
        )
          this.store.transcript.notice(`${message.tool_name} denied: ${message.message}`, "error");
        if (message.type === "result") this.#restoreModel();
        if (message.type === "result" && message.question)
          this.store.question = { id: ++this.#questions, ...message.question };
        this.store.apply(message);
        this.syncStatus();
      },
      onPermission: (request) => {
        if (request) this.#asked.add(request.toolUseId);
        this.store.permission = request;
        this.store.changed();
      },
      onElicitation: (elicitation) => {
        this.store.elicitation = elicitation;
        this.store.changed();
      },
      onIdle: (error) => {
        this.#restoreModel();
        if (error) this.store.transcript.notice(error instanceof Error ? error.message : String(error), "error");
        this.syncStatus();
        this.store.changed();
      },
    });
    this.#trust = new ProjectTrust({
      cwd: options.cwd,
      options: options.options,
      session: this.session,
      store: this.store,
      notice: (text, tone) => this.notice(text, tone),
    });
  }

  get history(): readonly string[] {
    return this.#options.history.entries;
  }

  get options(): TuiControllerOptions {
    return this.#options;
  }

  get userCommands(): ReadonlyMap<string, UserCommand> {
    return this.#options.userCommands ?? new Map();
  }

  /**
   * At start, before any prompt runs: whether to trust a folder that is not trusted and asks
   * for something (see {@link ProjectTrust.checkAtStart}). Resolves once answered.
   */
  checkProjectTrust(): Promise<void> {
    return this.#trust.checkAtStart();
  }

  /** A prompt, a `!command` or a slash command from the prompt box. */
  submit(text: string): void {
    void this.#options.history.add(text).catch(() => undefined);
    if (text.startsWith("!") && text.slice(1).trim() !== "") {
      void this.#shell(text.slice(1).trim());
      return;
    }
    const command = parseSlashCommand(text, (name) => this.userCommands.has(name));
    const own = command && this.userCommands.get(command.name);
    if (own && !(command.name in SLASH_COMMANDS)) {
      void this.#runUserCommand(own, command.args, text);
      return;
    }
    if (command) {
      void runBuiltinCommand(this, command.name, command.args).catch((error: unknown) =>
        this.notice(errorMessage(error), "error"),
      );
      return;
    }
    this.prompt(text, text);
  }

  /**
   * Sends `prompt` to the model, shown as `shown`: with the files its `@path` mentions name
   * attached (`typed`: the mentions the person typed; by default all of them), and the output
   * of `!command`s run since the last prompt after it.
   */
  prompt(prompt: string, shown: string, typed: readonly string[] = findMentions(prompt)): void {
    this.store.transcript.say(shown);
    this.store.status.busy = true;
    this.store.changed();
    const shell = this.#shellOutput.splice(0);
    this.#sending = this.#sending.then(async () => {
      const content = await this.#withAttachments(prompt, shell, typed).catch((error: unknown) => {
        this.notice(`Nothing attached: ${errorMessage(error)}`, "error");
        return prompt;
      });
      this.session.send(content);
      this.syncStatus();
      this.store.changed();
    });
  }

  async #withAttachments(
    prompt: string,
    shell: string[],
    typed: readonly string[],
  ): Promise<string | UserContentBlock[]> {
    let content: string | UserContentBlock[] = prompt;
    if (findMentions(prompt).length > 0) {
      const { cwd } = this.#options;
      const refuse = await mentionGate(this.session.options, cwd, typed);
      const attached = await attachMentions(prompt, cwd, { refuse });
      if (attached.attached.length > 0) this.notice(`Attached ${attached.attached.join(", ")}`);
      for (const problem of attached.problems) this.notice(`Not attached: ${problem}`, "error");
      content = attached.content;
    }
    if (shell.length === 0) return content;
    const blocks: UserContentBlock[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
    return [...blocks, { type: "text", text: shell.join("\n\n") }];
  }

  /** A command of the person's own: its prompt, with its `model` for that turn only (when no turn runs). */
  async #runUserCommand(command: UserCommand, args: string, typed: string): Promise<void> {
    if (command.model && !this.session.busy) {
      const before = this.store.status.model;
      try {
        await this.session.setModel(command.model);
      } catch (error) {
        return this.notice(`/${command.name} names the model ${command.model}: ${errorMessage(error)}`, "error");
      }
      this.#modelAfterTurn = before;
      this.store.status.model = command.model;
    } else if (command.model) {
      this.notice(`A turn is running: /${command.name} goes on with ${this.store.status.model}.`);
    }
    this.prompt(expandCommand(command.body, args), typed, findMentions(args));
  }

  /** After a command's own model answered, the session's model again. */
  #restoreModel(): void {
    const model = this.#modelAfterTurn;
    if (model === undefined) return;
    this.#modelAfterTurn = undefined;
    void this.session.setModel(model).then(
      () => {
        this.store.status.model = model;
        this.store.changed();
      },
      (error: unknown) => this.notice(`Cannot go back to ${model}: ${errorMessage(error)}`, "error"),
    );
  }

  /** `!command`: runs it as the person, shows its output, and keeps it for the model's next prompt. */
  async #shell(command: string): Promise<void> {
    this.store.transcript.say(`!${command}`);
    this.#setHint("Running… Esc stops it", 0);
    const abort = new AbortController();
    this.#shellRun = abort;
    try {
      const run = await runShellEscape(command, this.#options.cwd, abort.signal);
      this.#shellOutput.push(shellContext(run));
      this.notice(shellSummary(run), run.exitCode === 0 ? "info" : "error");
    } finally {
      this.#shellRun = undefined;
      this.#setHint(undefined);
    }
  }

  /** Completions for the `/command` or `@path` being typed; the project's files load on the first `@`. */
  suggest(token: CompletionToken): Suggestion[] {
    if (token.kind === "command") {
      return suggestCommands(token.query, commandEntries(this.userCommands.values(), this.lastInit?.skills ?? []));
    }
    if (!this.#paths) {
      this.#loadPaths();
      return [];
    }
    return suggestPaths(token.query, this.#paths);
  }

  #loadPaths(): void {
    if (this.#pathsLoading) return;
    this.#pathsLoading = true;
    void listProjectPaths(this.#options.cwd)
      .catch(() => [])
      .then((paths) => {
        this.#paths = paths;
        this.#pathsLoading = false;
        this.store.changed();
      });
  }

  interrupt(): void {
    this.#shellRun?.abort();
    if (!this.session.busy) return;
    void this.session.interrupt();
  }

  /**
   * The person's answer to the model's question goes to it as the next prompt; no answer
   * (Esc) tells the model so, and it decides what to do without one.
   */
  answerQuestion(answer: string | undefined): void {
    const question = this.store.question;
    if (!question) return;
    this.store.question = undefined;
    if (answer !== undefined) return this.prompt(answer, answer, []);
    this.notice("Left unanswered.");
    this.prompt(UNANSWERED, "(no answer)", []);
  }

  /**
   * The person's answers to AskUserQuestion approve its call with them (`updatedInput.answers`,
   * as `canUseTool` returns them in the SDK); declining denies it, and the model is told.
   */
  answerQuestions(answers: Record<string, string> | undefined): void {
    const request = this.store.permission;
    if (!request) return;
    if (answers === undefined) {
      this.notice("Questions declined.");
      return request.answer({ behavior: "deny", message: "The person declined to answer the questions." });
    }
    request.answer({ behavior: "allow", updatedInput: { ...request.input, answers } });
  }

  /**
   * The person's answer to ExitPlanMode: approved, the session leaves plan mode for the mode
   * chosen (the run switches with the call's `setMode` update, the session for its next
   * queries); keep planning denies the call with the feedback, which the model reads.
   */
  answerPlan(choice: PlanChoice): void {
    const request = this.store.permission;
    if (!request) return;
    if (choice.kind === "keepPlanning") return request.answer({ behavior: "deny", message: choice.feedback });
    void this.session.setMode(choice.mode).catch((error: unknown) => this.notice(String(error), "error"));
    this.syncStatus();
    request.answer({
      behavior: "allow",
      updatedPermissions: [{ type: "setMode", mode: choice.mode, destination: "session" }],
    });
  }

  /** `/resume` picked a session: the conversation goes on with it, its transcript on screen. */
  async resume(sessionId: string): Promise<void> {
    this.store.picker = undefined;
    const { getSessionMessages } = await import("../sessions/index.js");
    let messages: SDKMessage[];
    try {
      messages = await getSessionMessages(sessionId, { cwd: this.#options.cwd });
    } catch (error) {
      return this.notice(`Cannot resume ${sessionId}: ${errorMessage(error)}`, "error");
    }
    await this.session.switchTo(sessionId);
    this.restart();
    const { replayMessages } = await import("./replay.js");
    replayMessages(this.store.transcript, messages);
    this.notice(`Resumed session ${sessionId}. Your next prompt goes on with it.`);
  }

  /**
   * At start, `--resume ID` or `--continue` (the folder's latest session): the session's title
   * and its last exchange on screen, and the conversation goes on with it. With `--continue`
   * and no session of this folder yet, the first prompt starts one.
   */
  async showSessionAtStart(how: { resume: string } | { continue: true }): Promise<void> {
    const { getSession, getSessionMessages, listSessions } = await import("../sessions/index.js");
    const { cwd } = this.#options;
    let info: SessionInfo | undefined;
    let messages: SDKMessage[];
    try {
      info = "resume" in how ? await getSession(how.resume, { cwd }) : (await listSessions({ cwd, limit: 1 }))[0];
      if (!info) {
        if ("resume" in how) return this.notice(`Cannot resume ${how.resume}: no such session.`, "error");
        return this.notice("No earlier session in this folder: your first prompt starts one.");
      }
      messages = await getSessionMessages(info.id, { cwd });
    } catch (error) {
      return this.notice(`Cannot go on with the session: ${errorMessage(error)}`, "error");
    }
    await this.session.switchTo(info.id);
    const { lastExchange, replayMessages } = await import("./replay.js");
    const shown = lastExchange(messages);
    const title = info.title ? ` “${info.title}”` : "";
    const earlier = messages.length - shown.length;
    const verb = "resume" in how ? "Resumed session" : "Continuing session";
    this.notice(
      `${verb} ${info.id}${title}` +
        (earlier > 0 ? `: its last exchange (the whole conversation: gyre sessions show ${info.id})` : ""),
    );
    replayMessages(this.store.transcript, shown);
    this.notice("Your next prompt goes on with it.");
  }

  cancelPicker(): void {
    this.store.picker = undefined;
    this.store.changed();
  }

  /** A fresh screen for another conversation (/clear, /resume). */
  restart(): void {
    this.store.transcript.clear();
    this.store.status.costUsd = 0;
    this.store.status.contextPercent = undefined;
    this.generation++;
    this.#options.clearScreen();
  }

  /** Shift+Tab: default → acceptEdits → plan → default. */
  cycleMode(): void {
    const index = MODE_CYCLE.indexOf(this.session.mode);
    const next = MODE_CYCLE[(index + 1) % MODE_CYCLE.length] ?? "default";
    void this.session.setMode(next).catch((error: unknown) => this.notice(String(error), "error"));
    this.syncStatus();
    this.store.changed();
  }

  /** The first Ctrl+C interrupts a running turn and warns; a second within two seconds quits. */
  ctrlC(): void {
    const now = Date.now();
    if (now - this.#ctrlCAt < CTRL_C_WINDOW_MS) {
      void this.quit();
      return;
    }
    this.#ctrlCAt = now;
    this.interrupt();
    this.#setHint("Press Ctrl+C again to quit");
  }

  /** Ctrl+O: shows tools' whole output (and thinking, and subagents' work), or folds it again. */
  toggleExpanded(): void {
    this.store.expanded = !this.store.expanded;
    this.redraw();
  }

  /**
   * Draws the whole conversation again (after Ctrl+O, or a resize): the written-once part
   * starts over on a cleared screen, laid out for the terminal's current width.
   */
  redraw(): void {
    this.generation++;
    this.#options.clearScreen();
    this.store.changed();
  }

  async quit(): Promise<void> {
    if (this.#quitting) return;
    this.#quitting = true;
    this.#setHint("Closing the session…");
    clearTimeout(this.#hintTimer);
    await this.session.close().catch(() => undefined);
    this.#options.exit();
  }

  async answerPermission(choice: PermissionChoice): Promise<void> {
    const request = this.store.permission;
    if (!request) return;
    if (choice.kind === "once") return request.answer({ behavior: "allow" });
    if (choice.kind === "deny") return request.answer({ behavior: "deny", message: choice.message });
    // Always: the rules go to .gyre/settings.local.json and into the running policy, so the
    // next such call is not asked whether or not this folder's settings are trusted.
    const updates = request.suggestions.map((update) =>
      update.type === "addRules" && choice.rules.length > 0
        ? { ...update, destination: "localSettings" as const }
        : update,
    );
    if (choice.rules.length > 0) {
      // The call waits for the trust question that may follow; its own question is answered.
      this.store.permission = undefined;
      this.store.changed();
      let file: string | undefined;
      try {
        file = await persistAllowRules(this.#options.cwd, choice.rules);
        this.notice(`Added ${choice.rules.join(", ")} to ${file}`);
      } catch (error) {
        this.notice(`Could not save the rule: ${errorMessage(error)}`, "error");
      }
      if (file) await this.#trust.afterAllowAlways(choice.rules, file);
    }
    request.answer({ behavior: "allow", updatedPermissions: updates });
  }

  notice(text: string, tone: "info" | "error" = "info"): void {
    this.store.transcript.notice(text, tone);
    this.store.changed();
  }

  /** Shows `text` in the status line's corner for `ms` (0: until replaced). */
  #setHint(text: string | undefined, ms = CTRL_C_WINDOW_MS): void {
    this.hint = text;
    clearTimeout(this.#hintTimer);
    if (ms === 0 || text === undefined) return this.store.changed();
    this.#hintTimer = setTimeout(() => {
      this.hint = undefined;
      this.store.changed();
    }, CTRL_C_WINDOW_MS);
    this.#hintTimer.unref?.();
    this.store.changed();
  }

  syncStatus(): void {
    this.store.status.busy = this.session.busy;
    this.store.status.mode = this.session.mode;
    this.store.status.costUsd = this.session.costUsd;
  }
}
