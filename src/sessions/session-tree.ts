import type { SDKMessage } from "../protocol/index.js";
import type { SessionStore } from "./store.js";
import type { SessionInfo } from "./types.js";

/** A session with its messages and the sessions of the subagents it ran, each a tree too. */
export interface SessionTree {
  /** The session's info; for a subagent's, `parentToolUseId` is the Agent call that started it. */
  session: SessionInfo;
  /** Its stored SDKMessages, in order. */
  messages: SDKMessage[];
  /** Oldest first; each one's `session.parentToolUseId` is the Agent call that started it. */
  subagents: SessionTree[];
}

/** The tree of session `id` (undefined when there is none), at any depth. */
export async function sessionTree(store: SessionStore, id: string): Promise<SessionTree | undefined> {
  const session = await store.getSession(id);
  return session && grow(store, session, new Set([id]));
}

async function grow(store: SessionStore, session: SessionInfo, seen: Set<string>): Promise<SessionTree> {
  const messages = await store.getSessionMessages(session.id);
  const children = (await store.listSessions({ parentId: session.id, subagents: "only" }))
    .filter((child) => !seen.has(child.id))
    .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  for (const child of children) seen.add(child.id);
  const subagents: SessionTree[] = [];
  for (const child of children) subagents.push(await grow(store, child, seen));
  return { session, messages, subagents };
}
