// The shapes the page reads from `gyre ui`'s API (src/ui: SessionView, SessionInfo, parts), as
// much of them as it uses. Kept here rather than imported: the page is built apart from the package.

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export type Status = { type: "idle" } | { type: "busy" } | { type: "retry"; attempt?: number; message?: string };

export interface SessionInfo {
  id: string;
  cwd: string;
  project: string;
  title: string | null;
  model: string | null;
  createdAt: number;
  updatedAt: number;
  parentId: string | null;
  parentToolUseId: string | null;
  messageCount: number;
  costUsd: number;
  tokens: Usage;
  runs: number;
  /** Model calls of the finished runs. */
  turns: number;
  lastResult: { subtype: string; terminalReason: string; isError: boolean } | null;
  status: Status;
}

interface PartBase {
  id: string;
  messageId: string;
}

export type ToolState =
  | { status: "pending"; input: unknown }
  | { status: "running"; input: unknown; startedAt: number; title?: string; permission?: string }
  | {
      status: "completed";
      input: unknown;
      output: string;
      startedAt: number;
      endedAt: number;
      title?: string;
      permission?: string;
    }
  | {
      status: "error";
      input: unknown;
      error: string;
      startedAt: number;
      endedAt: number;
      title?: string;
      permission?: string;
    };

export type Part = PartBase &
  (
    | { type: "text"; text: string; synthetic?: boolean; ignored?: boolean }
    | { type: "file"; source: string; mime: string; filename?: string }
    | { type: "agent"; name: string }
    | { type: "snapshot"; snapshot: string }
    | { type: "reasoning"; text: string; redacted: boolean }
    | { type: "tool"; callId: string; tool: string; state: ToolState }
    | { type: "step-start"; time: number }
    | { type: "step-finish"; time: number; costUsd: number; tokens: Usage; finishReason: string | null }
    | { type: "compaction"; trigger: string; preTokens: number; postTokens: number | null }
    | {
        type: "subtask";
        callId: string;
        description: string;
        prompt: string;
        agent: string | null;
        childSessionId: string | null;
        status: string;
        costUsd: number | null;
      }
    | { type: "patch"; files: string[] }
  );

export type ToolPart = Extract<Part, { type: "tool" }>;
export type SubtaskPart = Extract<Part, { type: "subtask" }>;

export interface StoredMessage {
  id: string;
  role: "user" | "assistant";
  sdkUuid: string;
  createdAt: number;
  completedAt: number | null;
  model: string | null;
  costUsd: number;
  tokens: Usage;
  finishReason: string | null;
  error: string | null;
  agent?: string;
  parts: Part[];
}

/** A stored SDKMessage the page shows (system messages and results): read by `type`/`subtype`. */
export interface SdkEvent {
  type: string;
  subtype?: string;
  uuid: string;
  [field: string]: unknown;
}

export interface TimelineEvent {
  after: string | null;
  message: SdkEvent;
}

export interface WriteBefore {
  callId: string;
  before: string | null;
  partial: boolean;
}

export interface SessionView {
  session: SessionInfo;
  messages: StoredMessage[];
  events: TimelineEvent[];
  subagents: SessionInfo[];
  writes: WriteBefore[];
}
