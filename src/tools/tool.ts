import type { z } from "zod";
import type { FreeformTool, ServerSearchOptions } from "../model/index.js";
import type { ImageBlock, SDKMessage, TextBlock } from "../protocol/index.js";
import type { ToolSession } from "./tool-session.js";

/**
 * What running a tool may do to the world. It drives concurrency (only `none` and
 * `read-only` calls run in parallel) and, later, permissions.
 */
export type SideEffect = "none" | "read-only" | "mutating" | "network";

/** Events a tool may surface to the caller while it runs, besides its result. */
export type ToolEvent =
  | { type: "progress"; data: unknown }
  /** A message of a subagent the tool runs; the loop tags it with the call's id and passes it on. */
  | { type: "message"; message: SDKMessage }
  /** What the OS sandbox blocked while a command ran (the loop sends a `system`/`sandbox_violation`). */
  | {
      type: "sandbox_violation";
      violations: Array<{ kind: "write" | "read" | "network"; target: string; message: string }>;
    }
  /**
   * Permission rules (`Bash(git:*)`, `Read`) the run allows from now on: a skill's
   * `allowed-tools`, granted when the Skill tool loads it. The pipeline adds them to the
   * running agent's session rules; deny and ask rules still come first.
   */
  | { type: "allow_tools"; rules: string[] }
  | {
      type: "todos";
      todos: Array<{ content: string; status: "pending" | "in_progress" | "completed"; activeForm: string }>;
    };

/**
 * What the run's permission check decided about the files of one call, for the tools that
 * open, search or list files (`ToolContext.files`).
 */
export interface FileGuard {
  /**
   * The real path (symlinks followed) of the file or search folder the permission check judged
   * for this call, resolved when it decided; undefined when no check judged a path (a call whose
   * input an approver changed, a resumed approval). A file tool verifies that what it opened is
   * this file, so that a folder renamed or swapped for a symlink after the check is refused,
   * never followed.
   */
  approvedPath?: string;
  /**
   * Whether the run's `Read` rules let a tool read, or name, the file or folder at `file`
   * (absolute): no deny or ask rule of the Read family matches it, as written or as resolved.
   * Every tool that reports file content or names calls it for each file it found or opened,
   * so a search of a folder leaves out what a rule denies inside it. `found`: what the caller
   * knows of the path already (a search knows both from its walk), so that nothing is looked
   * up again for every file.
   */
  mayRead(file: string, found?: FoundPath): boolean;
}

/** What a search knows of a path it found: its real path, and whether it is a file. */
export interface FoundPath {
  /** The real path (symlinks followed). */
  real: string;
  /**
   * True for a file: only the path itself is judged. Otherwise it may be a folder, hidden too
   * when a rule covers all it holds (`Read(./secrets/**)` hides `secrets`).
   */
  isFile?: boolean;
}

export interface ToolContext {
  /** Working directory of the run; relative paths in tool inputs are resolved against it. */
  cwd: string;
  /** Aborted when the run is interrupted or the call times out: stop work promptly. */
  signal: AbortSignal;
  sessionId: string;
  toolUseId: string;
  /** Per-session state shared between tools (files read, background shells, todos). */
  session: ToolSession;
  /**
   * Report progress. The loop sends the latest report with its next `tool_progress` message:
   * one a second once the call has run for a second (a call that ends sooner sends none).
   */
  reportProgress(data: unknown): void;
  /** Surface a structured event (e.g. the todo list) to the caller. */
  emit(event: ToolEvent): void;
  /**
   * The permission check's view of this call's files; absent when the tool runs outside a run's
   * tool-call pipeline (then nothing is filtered or verified beyond what the tool does itself).
   */
  files?: FileGuard;
}

/** Content the model sees; strings are the common case. */
export type ToolContent = string | Array<TextBlock | ImageBlock>;

export interface ToolResult {
  content: ToolContent;
  /** True when the call failed in a way the model should see as an error. */
  isError?: boolean;
  /** Structured result for callers (`tool_use_result`); never sent to the model. */
  data?: unknown;
  /**
   * End the run after this turn (loop-control tools): `result` becomes the run's final
   * answer; a `question` makes the run end by asking the person.
   */
  endRun?: {
    result: string;
    question?: { question: string; options?: string[] };
    /** The run's structured answer (`outputFormat`), set as the result's `structured_output`. */
    structuredOutput?: unknown;
  };
}

/** A tool's `execute` may return plain text or a full result. */
export type ToolOutput = string | ToolResult;

/**
 * A tool is data: a name and description for the model, a zod schema that is the single
 * source of truth for its input, and `execute`. The loop validates input (tools/execute.ts) before
 * `execute` runs, so `execute` receives parsed, typed input. A tool without `execute` is a
 * client-executed tool (as in the AI SDK): the run pauses on its calls and the caller answers them.
 */
export interface Tool<Input = unknown> {
  readonly name: string;
  /** Older names a model may still call it by (`Task` for `Agent`); such a call runs this tool. */
  readonly aliases?: readonly string[];
  /** Written for the model: what the tool does and when to use it. */
  readonly description: string;
  readonly inputSchema: z.ZodType<Input>;
  /**
   * The JSON Schema the model sees, when the tool has one of its own (an MCP server's tool):
   * sent unchanged instead of one derived from `inputSchema`, which still validates calls.
   */
  readonly jsonSchema?: Record<string, unknown>;
  readonly sideEffect: SideEffect;
  /** Output longer than this many characters is truncated (default 30,000). */
  readonly maxOutputChars?: number;
  /** Per-call timeout in milliseconds (default: none beyond the tool's own). */
  readonly timeoutMs?: number;
  /**
   * For a tool of an MCP server: the server's name and the tool's own name there (text-protocol
   * models call it so); `alwaysLoad` when the server marks the tool `_meta["anthropic/alwaysLoad"]`
   * (Claude Code's opt-out): it is sent whole even while tool search defers the MCP tools.
   */
  readonly mcp?: { server: string; tool: string; alwaysLoad?: boolean };
  /**
   * A freeform tool (OpenAI's `custom`): its input is `{ input: string }`, and a model with
   * freeform tools gets it as one (see `ModelTool.freeform`).
   */
  readonly freeform?: FreeformTool;
  /**
   * The tool searches the web, and the provider's own search may stand in for it (see
   * `ModelTool.serverSearch`): offered so only while a call of the tool would run without
   * asking anyone and without hooks (the loop decides each turn); its `execute` runs otherwise.
   */
  readonly serverSearch?: ServerSearchOptions;
  /** Disabled tools are not offered to the model but can still be looked up. */
  readonly enabled?: boolean;
  /**
   * The tool ends promptly by itself once its signal aborts, with a result worth keeping (the
   * Agent tool: its subagent's run, ended and stored): an interrupted call waits for it
   * instead of being answered at once.
   */
  readonly endsOnAbort?: boolean;
  /**
   * Running a call again has the effect of running it once (Read, Glob, Grep): a call cut off
   * when its process died runs again when another process takes the run over; any other is
   * answered as interrupted.
   */
  readonly idempotent?: boolean;
  /**
   * A person must answer every call (AskUserQuestion): the call is always asked about —
   * `canUseTool`, the interactive agent's prompt, a paused run's approvals — whatever the
   * rules and the mode allow, and with no one to ask it is refused. Deny rules still deny.
   */
  readonly requiresUserInteraction?: boolean;
  /**
   * The call asks to leave `plan` mode (ExitPlanMode): refused outside plan mode; approved, it
   * switches the run to the mode the answer's `setMode` update names, else to `default`.
   */
  readonly exitsPlanMode?: boolean;
  execute(input: Input, context: ToolContext): Promise<ToolOutput>;
}

/** A tool the caller executes: offered to the model like any other, but the run pauses on its calls. */
export type ClientTool<Input = unknown> = Omit<Tool<Input>, "execute"> & { readonly execute?: undefined };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any input type live in one registry.
export type AnyTool = Tool<any> | ClientTool<any>;
