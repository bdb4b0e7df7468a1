import type { SDKMessage } from "../protocol/index.js";
import { projectOf } from "./default-location.js";
import { type StoreLocation, withStore } from "./open-store.js";
import { type SessionTree, sessionTree } from "./session-tree.js";
import type { ListSessionsFilter, UpToOptions } from "./store.js";
import type { SessionInfo } from "./types.js";

/**
 * Sessions of a store, most recently updated first. With `cwd`, only that project's (its
 * real path, as the loop records it); `allDirectories: true` lists every project's.
 */
export async function listSessions(
  options: StoreLocation & Pick<ListSessionsFilter, "limit" | "subagents"> & { allDirectories?: boolean } = {},
): Promise<SessionInfo[]> {
  return withStore(options, (store) =>
    store.listSessions({
      ...(options.cwd !== undefined && !options.allDirectories ? { project: projectOf(options.cwd) } : {}),
      ...(options.limit !== undefined ? { limit: options.limit } : {}),
      ...(options.subagents !== undefined ? { subagents: options.subagents } : {}),
    }),
  );
}

/** A session with its messages and its subagents' sessions, nested (see {@link SessionTree}). */
export async function getSessionTree(sessionId: string, options: StoreLocation = {}): Promise<SessionTree | undefined> {
  return withStore(options, (store) => sessionTree(store, sessionId));
}

/** One session's info; `session_not_found` when unknown. */
export async function getSession(sessionId: string, options: StoreLocation = {}): Promise<SessionInfo | undefined> {
  return withStore(options, (store) => store.getSession(sessionId));
}

/** The stored SDKMessages of a session, in order (up to `upTo` when given). */
export async function getSessionMessages(
  sessionId: string,
  options: StoreLocation & UpToOptions = {},
): Promise<SDKMessage[]> {
  return withStore(options, (store) =>
    store.getSessionMessages(sessionId, options.upTo !== undefined ? { upTo: options.upTo } : {}),
  );
}

/** Sets a session's title; `session_not_found` when unknown. */
export async function renameSession(
  sessionId: string,
  title: string,
  options: StoreLocation = {},
): Promise<SessionInfo> {
  return withStore(options, (store) => store.renameSession(sessionId, title));
}

/** Deletes a session with its messages and checkpoints, and its subagents' sessions; unknown ids are fine. */
export async function deleteSession(sessionId: string, options: StoreLocation = {}): Promise<void> {
  return withStore(options, (store) => store.deleteSession(sessionId));
}
