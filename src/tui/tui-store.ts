import { lookupModelInfo } from "../model/index.js";
import type { PermissionMode, SDKMessage } from "../protocol/index.js";
import type { SessionInfo } from "../sessions/index.js";
import type { PendingElicitation, PermissionRequest } from "./agent-session.js";
import type { PendingQuestion } from "./question-prompt.js";
import { Transcript } from "./transcript.js";
import type { TrustQuestion } from "./trust-prompt.js";

/** What the status line shows. */
export interface StatusInfo {
  model: string;
  mode: PermissionMode;
  costUsd: number;
  /** Share of the model's context window the last call used (0–100); undefined until known. */
  contextPercent: number | undefined;
  busy: boolean;
  /** The folder is not trusted and some of what its files ask for is ignored. */
  untrusted?: boolean;
}

/** At most this many frames a second: a fast stream is drawn in batches, so typing never lags. */
const FRAMES_PER_SECOND = 30;

/**
 * The screen's state, outside React: the transcript, the status and the permission question
 * waiting, fed by the session's messages. Components subscribe and redraw at most
 * {@link FRAMES_PER_SECOND} times a second, however fast messages come.
 */
export class TuiStore {
  readonly transcript: Transcript;
  readonly status: StatusInfo;
  permission: PermissionRequest | undefined;
  /** Whether to trust the folder: asked at start, or after "always allow" in a folder that is not trusted. */
  trust: TrustQuestion | undefined;
  /** The model's `ask_question`, until the person answers or dismisses it. */
  question: PendingQuestion | undefined;
  /** An MCP server's request for input, until answered. */
  elicitation: PendingElicitation | undefined;
  /** Ctrl+O: tools show their whole output, thinking its text, subagents all their work. */
  expanded = false;
  /** The sessions `/resume` offers, while its picker has the keyboard. */
  picker: SessionInfo[] | undefined;
  #version = 0;
  #listeners = new Set<() => void>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastFrame = 0;

  constructor(cwd: string, status: StatusInfo) {
    this.transcript = new Transcript(cwd);
    this.status = status;
  }

  /** For `useSyncExternalStore`. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };
  readonly version = (): number => this.#version;

  apply(message: SDKMessage): void {
    let changed = this.transcript.apply(message);
    if (message.type === "system" && message.subtype === "init") {
      this.status.model = message.model;
      this.status.mode = message.permissionMode;
      changed = true;
    }
    if (message.type === "assistant" && !message.parent_tool_use_id) {
      const usage = message.message.usage;
      const used = usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
      const window = lookupModelInfo(message.message.model)?.contextWindow;
      if (window && used > 0) this.status.contextPercent = Math.min(100, Math.round((used / window) * 100));
    }
    if (message.type === "result") {
      for (const usage of Object.values(message.modelUsage)) {
        if (usage.contextWindow > 0 && message.usage.input_tokens > 0 && this.status.contextPercent === undefined) {
          this.status.contextPercent = Math.min(
            100,
            Math.round((message.usage.input_tokens / usage.contextWindow) * 100),
          );
        }
      }
    }
    if (changed) this.changed();
  }

  /** Something visible changed: schedule a frame (now, or when the frame budget allows). */
  changed(): void {
    this.#version++;
    if (this.#timer) return;
    const wait = Math.max(0, this.#lastFrame + 1000 / FRAMES_PER_SECOND - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#lastFrame = Date.now();
      for (const listener of this.#listeners) listener();
    }, wait);
  }
}
