import { DEFAULT_MODEL, type QueryOptions } from "../loop/index.js";
import type { PermissionMode } from "../protocol/index.js";
import { AgentSession } from "./agent-session.js";
import { persistAllowRules } from "./allow-always.js";
import type { PermissionChoice } from "./permission-prompt.js";
import type { PromptHistory } from "./prompt-history.js";
import { helpText, parseSlashCommand } from "./slash-commands.js";
import { TuiStore } from "./tui-store.js";

/** The modes Shift+Tab cycles through, in order. */
export const MODE_CYCLE: readonly PermissionMode[] = ["default", "acceptEdits", "plan"];

/** How long after a first Ctrl+C a second one quits. */
const CTRL_C_WINDOW_MS = 2000;

export interface TuiControllerOptions {
  options: QueryOptions;
  cwd: string;
  history: PromptHistory;
  /** Called once the session is closed: the UI unmounts. */
  exit(): void;
  /** Clears the terminal (for /clear). */
  clearScreen(): void;
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
  #hintTimer: ReturnType<typeof setTimeout> | undefined;
  #quitting = false;

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
        this.store.apply(message);
        this.#syncStatus();
      },
      onPermission: (request) => {
        this.store.permission = request;
        this.store.changed();
      },
      onIdle: (error) => {
        if (error) this.store.transcript.notice(error instanceof Error ? error.message : String(error), "error");
        this.#syncStatus();
        this.store.changed();
      },
    });
  }

  get history(): readonly string[] {
    return this.#options.history.entries;
  }

  /** A prompt or a slash command from the prompt box. */
  submit(text: string): void {
    void this.#options.history.add(text).catch(() => undefined);
    const command = parseSlashCommand(text);
    if (command) {
      void this.#command(command.name, command.args);
      return;
    }
    this.store.transcript.say(text);
    this.session.send(text);
    this.#syncStatus();
    this.store.changed();
  }

  interrupt(): void {
    if (!this.session.busy) return;
    void this.session.interrupt();
  }

  /** Shift+Tab: default → acceptEdits → plan → default. */
  cycleMode(): void {
    const index = MODE_CYCLE.indexOf(this.session.mode);
    const next = MODE_CYCLE[(index + 1) % MODE_CYCLE.length] ?? "default";
    void this.session.setMode(next).catch((error: unknown) => this.#notice(String(error), "error"));
    this.#syncStatus();
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
      try {
        const file = await persistAllowRules(this.#options.cwd, choice.rules);
        this.#notice(`Added ${choice.rules.join(", ")} to ${file}`);
      } catch (error) {
        this.#notice(`Could not save the rule: ${error instanceof Error ? error.message : String(error)}`, "error");
      }
    }
    request.answer({ behavior: "allow", updatedPermissions: updates });
  }

  async #command(name: string, args: string): Promise<void> {
    switch (name) {
      case "help":
        return this.#notice(helpText());
      case "exit":
        return this.quit();
      case "cost":
        return this.#notice(`Session cost: $${this.session.costUsd.toFixed(4)}`);
      case "clear":
        await this.session.clear();
        this.store.transcript.clear();
        this.store.status.costUsd = 0;
        this.store.status.contextPercent = undefined;
        this.generation++;
        this.#options.clearScreen();
        return this.#notice("New session. The previous one is stored (gyre sessions list).");
      case "model":
        if (!args) return this.#notice(`Model: ${this.store.status.model}`);
        try {
          await this.session.setModel(args);
          this.store.status.model = args;
          return this.#notice(`Model: ${args}`);
        } catch (error) {
          return this.#notice(`Cannot use ${args}: ${error instanceof Error ? error.message : String(error)}`, "error");
        }
      case "compact":
        if (this.session.compact(args || undefined))
          return this.#notice("The conversation is compacted before the next model call.");
        return this.#notice("Nothing to compact yet: the session starts with your next prompt.");
    }
  }

  #notice(text: string, tone: "info" | "error" = "info"): void {
    this.store.transcript.notice(text, tone);
    this.store.changed();
  }

  #setHint(text: string): void {
    this.hint = text;
    clearTimeout(this.#hintTimer);
    this.#hintTimer = setTimeout(() => {
      this.hint = undefined;
      this.store.changed();
    }, CTRL_C_WINDOW_MS);
    this.#hintTimer.unref?.();
    this.store.changed();
  }

  #syncStatus(): void {
    this.store.status.busy = this.session.busy;
    this.store.status.mode = this.session.mode;
    this.store.status.costUsd = this.session.costUsd;
  }
}
