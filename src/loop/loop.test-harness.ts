import { tmpdir } from "node:os";
import type { Timers } from "../async/index.js";
import type { Compactor } from "../context/index.js";
import { type HookCallbacks, HookRunner } from "../hooks/index.js";
import { CostTracker, type Model } from "../model/index.js";
import { type CanUseTool, PermissionPolicy, type PermissionPolicyOptions } from "../permissions/index.js";
import type {
  APIAssistantMessage,
  AssistantContentBlock,
  SDKMessage,
  StopReason,
  ToolUseBlock,
} from "../protocol/index.js";
import { type AnyTool, ToolRegistry, ToolSession } from "../tools/index.js";
import { DoomLoopDetector } from "./doom-loop.js";
import { MessageStamp } from "./messages.js";
import { recordAssistant, toolUses } from "./record.js";
import { DEFAULT_RETRY } from "./retry.js";
import type { RunContext, RunLimits } from "./run-context.js";
import { newRunState, type RunState, type TurnAnswer } from "./run-state.js";
import { ToolGate } from "./tool-gate.js";

// In-process fakes for the loop's unit tests: a RunContext and RunState built from real parts
// (registry, gate, policy, hooks, cost tracker) with a counter for ids and a fixed clock.
// The model is never called here; tests play its answers with `modelAnswered`.

/** The fixed clock of every harness. */
export const NOW = 1_767_225_600_000;

export const SESSION_ID = "session-test";

const LIMITS: RunLimits = {
  maxTurns: 10,
  maxBudgetUsd: undefined,
  maxBudgetTokens: undefined,
  maxTokensContinuations: 2,
  maxStopHookContinuations: 2,
  maxToolReminders: 2,
  maxStructuredOutputRetries: 2,
  maxToolInputBytes: 1_000_000,
  toolTimeoutMs: undefined,
  maxOutputTokens: undefined,
  maxMessages: undefined,
};

export interface HarnessOptions {
  tools?: AnyTool[];
  /** Callback hooks; no HookRunner at all when absent. */
  hooks?: HookCallbacks;
  canUseTool?: CanUseTool;
  /** Rules and mode (default mode `default`, no rules). */
  permissions?: Omit<PermissionPolicyOptions, "cwd">;
  limits?: Partial<RunLimits>;
  /** Identical calls in a row that count as a doom loop (0: never). */
  doomLoopThreshold?: number;
  loopControl?: boolean;
  structuredOutput?: boolean;
  stopAtTools?: string[];
  compactor?: Compactor;
}

export interface Harness {
  context: RunContext;
  state: RunState;
  controller: AbortController;
  /** The run's clock and timers: they stand still at `NOW` until the test advances them. */
  time: ManualTime;
  /** The model's last answer (`modelAnswered`), as the model step hands it to the next step. */
  answer?: TurnAnswer;
}

/** A clock and timers that move only when a test says so. */
export interface ManualTime {
  now(): number;
  timers: Timers;
  /** Move the clock `ms` forward, firing every timer that falls due on the way, in order, each at its time. */
  advance(ms: number): void;
  /** Timers set and not yet fired or cleared. */
  pending(): number;
}

export function manualTime(start = NOW): ManualTime {
  let clock = start;
  let sequence = 0;
  const pending = new Map<number, { at: number; callback: () => void }>();
  const timers: Timers = {
    setTimeout: (callback, ms) => {
      const id = ++sequence;
      pending.set(id, { at: clock + ms, callback });
      return id;
    },
    clearTimeout: (handle) => {
      pending.delete(handle as number);
    },
  };
  const advance = (ms: number) => {
    const target = clock + ms;
    for (;;) {
      // The earliest due timer (ties in the order they were set); callbacks may set new ones.
      let next: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of pending) if (entry[1].at <= target && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      pending.delete(next[0]);
      clock = next[1].at;
      next[1].callback();
    }
    clock = target;
  };
  return { now: () => clock, timers, advance, pending: () => pending.size };
}

/** A model object that fails if anything calls it: the steps under test never should. */
export function fakeModel(id = "test/fake-model"): Model {
  const [provider = "test", modelId = id] = id.split("/");
  return {
    id,
    provider,
    modelId,
    api: "other",
    // Priced, so recorded answers cost something and budget checks have a total to compare.
    info: { input: 3, output: 15 },
    stream: () => {
      throw new Error("the unit tests never call the model");
    },
  };
}

/** A hook runner with these callbacks, as the run would build it. */
export function hookRunner(callbacks: HookCallbacks): HookRunner {
  return new HookRunner({ cwd: tmpdir(), sessionId: SESSION_ID, permissionMode: "default", callbacks });
}

/** A run's context and a fresh state for it, every part real but the model. */
export function harness(options: HarnessOptions = {}): Harness {
  const controller = new AbortController();
  const cwd = tmpdir();
  let ids = 0;
  const stamp = new MessageStamp(SESSION_ID, () => `uuid-${++ids}`);
  const time = manualTime();
  const hooks = options.hooks ? hookRunner(options.hooks) : undefined;
  const gate = new ToolGate({ hooks, canUseTool: options.canUseTool, cwd, signal: controller.signal, stamp });
  const model = fakeModel();
  const context: RunContext = {
    systemPrompt: "You are a test.",
    registry: new ToolRegistry(options.tools ?? []),
    session: new ToolSession(SESSION_ID),
    cwd,
    signal: controller.signal,
    stamp,
    retry: DEFAULT_RETRY,
    limits: { ...LIMITS, ...options.limits },
    includePartialMessages: false,
    gate,
    hooks,
    stopAtTools: new Set(options.stopAtTools ?? []),
    loopControl: options.loopControl ?? false,
    structuredOutput: options.structuredOutput ?? false,
    fallbackModel: undefined,
    modelSettings: () => ({ compactor: options.compactor, providerOptions: undefined }),
    now: time.now,
    timers: time.timers,
    newUuid: () => `uuid-${++ids}`,
  };
  const state = newRunState(context, {
    model,
    permissions: new PermissionPolicy({ cwd, home: cwd, ...options.permissions }),
    doomLoop: new DoomLoopDetector(options.doomLoopThreshold ?? 0),
    costs: new CostTracker(),
    history: [{ role: "user", content: "go" }],
    startedAt: NOW,
  });
  return { context, state, controller, time };
}

/** Runs a step (or any generator of messages) to its end: what it yielded and what it returned. */
export async function drain<T>(
  generator: AsyncGenerator<SDKMessage, T>,
): Promise<{ messages: SDKMessage[]; value: T }> {
  const messages: SDKMessage[] = [];
  for (;;) {
    const next = await generator.next();
    if (next.done) return { messages, value: next.value };
    messages.push(next.value);
  }
}

export function toolUse(id: string, name: string, input: unknown): ToolUseBlock {
  return { type: "tool_use", id, name, input };
}

export function text(value: string): AssistantContentBlock {
  return { type: "text", text: value };
}

let answers = 0;

export function assistantMessage(
  content: AssistantContentBlock[],
  stopReason: StopReason | null = "end_turn",
): APIAssistantMessage {
  return {
    id: `msg-${++answers}`,
    type: "message",
    role: "assistant",
    model: "fake-model",
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 1000, output_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

/** What the model step does when the model answers: the answer recorded, counted and handed on (`h.answer`). */
export function modelAnswered(
  h: Harness,
  content: AssistantContentBlock[],
  stopReason: StopReason | null = content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn",
): APIAssistantMessage {
  const message = assistantMessage(content, stopReason);
  const { context, state } = h;
  recordAssistant(context, state, state.model, message);
  state.turns++;
  h.answer = { message, calls: toolUses(content), toolInputProblems: new Map(), repeatedIds: new Map() };
  return message;
}

/** The answer the model step handed on last: what the tools and end-of-turn steps take. */
export function lastAnswer(h: Harness): TurnAnswer {
  if (!h.answer) throw new Error("The model has not answered yet: call modelAnswered first");
  return h.answer;
}

/** The `hook_response` messages among these. */
export function hookResponses(messages: readonly SDKMessage[]) {
  return messages.flatMap((message) =>
    message.type === "system" && message.subtype === "hook_response" ? [message] : [],
  );
}
