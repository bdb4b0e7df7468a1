export { deleteSession, getSession, getSessionMessages, getSessionTree, listSessions, renameSession } from "./admin.js";
export { conversationFromMessages, INTERRUPTED_TOOL_RESULT } from "./conversation.js";
export { applyMessage } from "./derive.js";
export { initialDeriveState } from "./derive-state.js";
export { FILE_EDIT_TOOLS } from "./derive-tools.js";
export { createIdGenerator, type IdGenerator, type IdPrefix } from "./ids.js";
export { MemorySessionStore, type StoreClockOptions } from "./memory-store.js";
export { defaultSqlitePath, gyreDataFolder, projectOf, projectSqlitePath } from "./default-location.js";
export { defaultStoreIsEmpty, openDefaultSessionStore, type StoreLocation } from "./open-store.js";
export {
  AgentPart,
  CompactionPart,
  FilePart,
  SnapshotPart,
  Part,
  PatchPart,
  ReasoningPart,
  StepFinishPart,
  StepStartPart,
  SubtaskPart,
  SubtaskStatus,
  TextPart,
  ToolPart,
  ToolState,
} from "./parts.js";
export type { PgClientLike, PgPoolLike, PgQueryResult } from "./postgres-driver.js";
export { openPostgresSessionStore, PostgresSessionStore, type PostgresSessionStoreOptions } from "./postgres-store.js";
export type {
  ConversationRecord,
  ConversationRecords,
  RecordData,
  RecordEvent,
  RecordItem,
  ResponseRecord,
  ResponseRecords,
  ServerRecords,
} from "./records.js";
export { type RewindFilesResult, rewindFiles } from "./rewind-files.js";
export { assembleMessages } from "./session-record.js";
export { type SessionTree, sessionTree } from "./session-tree.js";
export { openSqliteSessionStore, SqliteSessionStore, type SqliteSessionStoreOptions } from "./sqlite-store.js";
export {
  filesToRestore,
  type ForkOptions,
  type ListSessionsFilter,
  type SessionLock,
  type SessionStore,
  type UpToOptions,
} from "./store.js";
export { CreateSessionInput, type FileCheckpoint, MessageInfo, SessionInfo, StoredMessage } from "./types.js";
export { nextSessionStatus, sameStatus, SessionStatus } from "./session-status.js";
export { type SnapshotChange, WorkspaceSnapshots, type WorkspaceSnapshotsOptions } from "./workspace-snapshots.js";
