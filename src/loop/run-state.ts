import type { CostTracker, Model, ToolInputProblem } from "../model/index.js";
import type { PermissionPolicy } from "../permissions/index.js";
import type {
  APIAssistantMessage,
  HistoryEntry,
  PendingToolCall,
  PermissionDenial,
  TerminalReason,
  ToolUseBlock,
} from "../protocol/index.js";
import type { DoomLoopDetector } from "./doom-loop.js";
import type { ActiveAgent, ModelSettings, RunContext } from "./run-context.js";

/** Counters that bound how often the loop nudges the model; they start at zero for each prompt. */
export interface PromptCounters {
  maxTokensContinuations: number;
  stopHookContinuations: number;
  toolReminders: number;
  structuredOutputReminders: number;
  /** Handoffs taken (see `maxHandoffs`). */
  handoffs: number;
}

/** The model's answer in the current turn, as the tools and end-of-turn steps need it. */
export interface TurnAnswer {
  message: APIAssistantMessage;
  calls: ToolUseBlock[];
  /** Calls whose arguments were not used (`input` is `{}`), by id. */
  toolInputProblems: ReadonlyMap<string, ToolInputProblem>;
  /** Calls whose id repeated an earlier call's in the same message: new id → the id the model gave. */
  repeatedIds: ReadonlyMap<string, string>;
}

/** Everything a run changes as it goes, in one place; `Query`'s live accessors read it. */
export interface RunState {
  history: HistoryEntry[];
  /** The model calls go to; `Query.setModel` and the fallback change it. */
  model: Model;
  modelSettings: ModelSettings;
  /** Rules and mode; `Query.setPermissionMode` and "always allow" answers change it. */
  permissions: PermissionPolicy;
  doomLoop: DoomLoopDetector;
  costs: CostTracker;
  /** Model calls answered in this run. */
  turns: number;
  counters: PromptCounters;
  startedAt: number;
  apiMs: number;
  denials: PermissionDenial[];
  lastAssistant: APIAssistantMessage | undefined;
  /** With the `snapshots` option: the workspace's snapshot at the current step's start (then at the run's end). */
  snapshot?: string | undefined;
  /** Calls the run paused on (`requires_action`); the next prompt must answer them. */
  pending: PendingToolCall[];
  /** A manual compaction asked for with `Query.compact()`, run before the next model call. */
  compactRequest: { instructions?: string } | undefined;
  exitReason: TerminalReason | undefined;
  /** Set when the run runs as an agent definition: its turns use this context instead of the run's own. */
  activeAgent: ActiveAgent | undefined;
}

export interface NewRunState {
  model: Model;
  permissions: PermissionPolicy;
  doomLoop: DoomLoopDetector;
  costs: CostTracker;
  history: HistoryEntry[];
  /** When the run started, by the context's clock. */
  startedAt: number;
}

export function newRunState(context: RunContext, init: NewRunState): RunState {
  return {
    ...init,
    modelSettings: context.modelSettings(init.model),
    turns: 0,
    counters: newPromptCounters(),
    apiMs: 0,
    denials: [],
    lastAssistant: undefined,
    pending: [],
    compactRequest: undefined,
    exitReason: undefined,
    activeAgent: undefined,
  };
}

export function newPromptCounters(): PromptCounters {
  return {
    maxTokensContinuations: 0,
    stopHookContinuations: 0,
    toolReminders: 0,
    structuredOutputReminders: 0,
    handoffs: 0,
  };
}

/** Makes `model` the run's model from the next call on; compaction and provider options follow it. */
export function useModel(context: RunContext, state: Pick<RunState, "model" | "modelSettings">, model: Model): void {
  state.model = model;
  state.modelSettings = context.modelSettings(model);
}

/** The context the run's turns use: the agent's it runs as (`activeAgent`), else its own. */
export function activeContext(context: RunContext, state: Pick<RunState, "activeAgent">): RunContext {
  return state.activeAgent?.context ?? context;
}
