import type { SDKMessage } from "../protocol/index.js";
import type { ChildSessionStore } from "../run/index.js";
import type { SessionStore } from "../sessions/index.js";
import { MessageStamp } from "../loop/index.js";

// When a run keeps a session, each subagent it starts keeps its own: a session in the same
// store, linked to the parent session and to the Agent call (`parentToolUseId`), titled with
// the call's description. The subagent's loop stores its messages there itself, as its loop
// makes them (untagged, with the subagent's session id), and awaits each write before going
// on, so a crash loses nothing it produced. The caller's stream still gets every message,
// tagged with the Agent call's id and under the top run's session id, as before; the
// sessions above it skip those copies (see `SubagentSessions.stored`), so nothing is stored
// twice and a parent's transcript holds only its own messages.

/** Where the subagents of one run (at any depth) keep their sessions. */
export class SubagentSessions {
  /**
   * Messages already stored by some session of this run: a copy passed up to a parent's
   * stream is one of them, and the parent does not store it again.
   */
  readonly stored: WeakSet<SDKMessage>;
  readonly #run: ChildSessionStore;

  constructor(
    /** The run's store, where the subagents' sessions go beside its own. */
    run: ChildSessionStore,
    private readonly newUuid: () => string,
  ) {
    this.#run = run;
    this.stored = run.storedElsewhere;
  }

  /**
   * Creates the session of the subagent started by the call `toolUseId` of the session
   * `parent` stamps for, and stores in the parent a `tool_progress` of the call (after the one
   * it started with), whose data names the new session (`started`: for the caller's stream;
   * stored already).
   */
  async open(
    parent: MessageStamp,
    call: { toolUseId: string; description: string },
  ): Promise<{ session: SubagentSession; started: SDKMessage }> {
    const store = await this.#run.open();
    const id = this.newUuid();
    await store.createSession({
      id,
      ...this.#run.place,
      title: call.description,
      parentId: parent.sessionId,
      parentToolUseId: call.toolUseId,
    });
    const started = parent.stamp({
      type: "tool_progress",
      tool_use_id: call.toolUseId,
      tool_name: "Agent",
      parent_tool_use_id: null,
      elapsed_time_seconds: 0,
      data: { session_id: id },
    });
    await store.append(parent.sessionId, started);
    this.stored.add(started);
    const session = new SubagentSession(store, new MessageStamp(id, this.newUuid), this.stored, {
      toolUseId: call.toolUseId,
      sessionId: parent.sessionId,
    });
    return { session, started };
  }
}

/** One subagent's session: its loop records into it and passes copies up to its parent. */
export class SubagentSession {
  constructor(
    private readonly store: SessionStore,
    /** Stamps the subagent's messages with its own session id. */
    readonly stamp: MessageStamp,
    private readonly stored: WeakSet<SDKMessage>,
    private readonly parent: { toolUseId: string; sessionId: string },
  ) {}

  get id(): string {
    return this.stamp.sessionId;
  }

  /** Stores a message of the subagent's loop (not a copy a deeper subagent stored already). */
  async record(message: SDKMessage): Promise<void> {
    if (message.type === "stream_event" || this.stored.has(message)) return;
    await this.store.append(this.id, message);
  }

  /**
   * The message as the parent's stream carries it: under the parent's session id, tagged
   * with the Agent call's id unless a deeper subagent's call tagged it already.
   */
  forParent(message: SDKMessage): SDKMessage {
    const copy = { ...message, session_id: this.parent.sessionId };
    if ("parent_tool_use_id" in copy && copy.parent_tool_use_id === null)
      copy.parent_tool_use_id = this.parent.toolUseId;
    if (copy.type !== "stream_event") this.stored.add(copy);
    return copy;
  }
}
