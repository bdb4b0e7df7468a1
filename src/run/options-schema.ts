import { z } from "zod";
import { GyreError } from "../errors/index.js";
import { McpServersOption } from "../mcp/index.js";
import type { Compactor, ContextOption, SystemPromptFunction } from "../context/index.js";
import { ProviderConfig } from "../model/index.js";
import { PermissionMode } from "../protocol/index.js";
import { SandboxSettings } from "../sandbox/index.js";
import { AgentsOption } from "./agent-definition.js";
import { LOOP_CONTROL_TOOLS, WebFetchSettings, WebSearchSettings } from "../tools/builtin/index.js";
import type { QueryOptions } from "./options.js";
import { EffortOption, ThinkingOption } from "./reasoning-options.js";

/**
 * Options of the Claude Agent SDK that Gyre does not have (yet), with what to use instead.
 * A program ported from the SDK learns here, before any request, what would otherwise be
 * silently ignored.
 */
const CLAUDE_AGENT_SDK_ONLY: Record<string, string> = {
  maxThinkingTokens: 'use `thinking: { type: "enabled", budgetTokens }` (or `{ type: "adaptive" }`)',
  stderr: "Gyre runs no CLI subprocess, so there is no stderr to forward; errors arrive as messages and exceptions",
  executable: "Gyre runs in your process; there is no Claude Code executable to choose",
  executableArgs: "Gyre runs in your process; there is no Claude Code executable to pass arguments to",
  extraArgs: "Gyre runs in your process; there is no CLI to pass arguments to",
  pathToClaudeCodeExecutable: "Gyre runs in your process; there is no Claude Code executable",
  spawnClaudeCodeProcess: "Gyre runs in your process; there is no Claude Code process to spawn",
  permissionPromptToolName: 'answer permission questions with `canUseTool` (or defer them: `{ behavior: "defer" }`)',
  allowDangerouslySkipPermissions: '`permissionMode: "bypassPermissions"` needs no second switch in Gyre',
  betas: "pass provider headers or options with `providers` and `providerOptions`",
  enableFileCheckpointing: "Write and Edit always keep checkpoints; use `query.rewindFiles(uuid)`",
  settings: "use `settingSources` to read settings files",
  managedSettings: "use `settingSources` to read settings files",
  debug: "Gyre has no debug log; every step is a message",
  debugFile: "Gyre has no debug log; every step is a message",
  title: "rename a session with `renameSession`",
};

const fn = <T>(what: string) =>
  z.custom<T>((value) => typeof value === "function", { message: `must be a function (${what})` });

const positiveInt = once(() => z.number().int().positive());
const nonNegativeInt = once(() => z.number().int().nonnegative());
const positiveNumber = once(() => z.number().positive().finite());
const stringList = once(() => z.array(z.string()));

/** `"provider/model-id"`, an AI SDK language model, or a Model of the caller's own. */
const ModelOption = once(() =>
  z.union([
    z.string().min(1),
    z.custom<Exclude<QueryOptions["model"], string | undefined>>(
      (value) =>
        typeof value === "object" &&
        value !== null &&
        (typeof (value as { stream?: unknown }).stream === "function" ||
          typeof (value as { doStream?: unknown }).doStream === "function"),
      { message: "must be a model id string, an AI SDK language model or a Model (an object with stream())" },
    ),
  ]),
);

const ToolOption = once(() =>
  z.union([
    z.string().min(1),
    z.custom<Exclude<NonNullable<QueryOptions["tools"]>[number], string>>(
      (value) => typeof value === "object" && value !== null && typeof (value as { name?: unknown }).name === "string",
      { message: "must be a built-in tool name or a tool object (defineTool)" },
    ),
  ]),
);

const RetryOption = once(() =>
  z.strictObject({
    maxRetries: nonNegativeInt().optional(),
    baseDelayMs: z.number().nonnegative().finite().optional(),
    maxDelayMs: z.number().nonnegative().finite().optional(),
  }),
);

const CompactionOption = once(() =>
  z.union([
    z.literal(false),
    z.strictObject({
      contextWindow: positiveInt().optional(),
      outputReserveTokens: nonNegativeInt().optional(),
      bufferTokens: nonNegativeInt().optional(),
      thresholdTokens: positiveInt().optional(),
      keepRecentTurns: nonNegativeInt().optional(),
      keepRecentTokens: nonNegativeInt().optional(),
      protectToolOutputTokens: nonNegativeInt().optional(),
      summaryMaxTokens: positiveInt().optional(),
      serverSide: z
        .union([
          z.boolean(),
          z.strictObject({
            triggerTokens: positiveInt().optional(),
            instructions: z.string().optional(),
            pauseAfterCompaction: z.boolean().optional(),
          }),
        ])
        .optional(),
    }),
  ]),
);

const OutputFormatOption = once(() =>
  z.strictObject({
    type: z.literal("json_schema"),
    schema: z.union([z.instanceof(z.ZodType), z.record(z.string(), z.unknown())]),
  }),
);

const PermissionResultOption = once(() =>
  z.union([
    z.looseObject({ behavior: z.literal("allow"), updatedInput: z.record(z.string(), z.unknown()).optional() }),
    z.looseObject({ behavior: z.literal("deny"), message: z.string() }),
  ]),
);

/** A price row; the model package owns the exact fields and checks them when it reads the table. */
const PricingOption = once(() => z.record(z.string(), z.record(z.string(), z.unknown())));

/**
 * The options of `query()`, one entry per key of {@link QueryOptions}: the compiler checks that
 * the two list the same keys, so an option cannot be added to one and forgotten in the other.
 */
const shape = {
  model: () => ModelOption().optional(),
  systemPrompt: () =>
    z
      .union([
        fn<SystemPromptFunction>("(context) => string"),
        z.string(),
        z.strictObject({
          type: z.literal("preset"),
          preset: z.enum(["gyre", "claude_code"]),
          append: z.string().optional(),
        }),
      ])
      .optional(),
  maxTurns: () => positiveInt().optional(),
  maxBudgetUsd: () => positiveNumber().optional(),
  maxBudgetTokens: () => positiveInt().optional(),
  cwd: () => z.string().min(1).optional(),
  tools: () => z.array(ToolOption()).optional(),
  mcpServers: () => McpServersOption.optional(),
  strictMcpConfig: () => z.boolean().optional(),
  toolSearch: () =>
    z
      .union([
        z.boolean(),
        z.literal("auto"),
        z.custom<`auto:${number}`>(
          (value) => typeof value === "string" && /^auto:\d+(\.\d+)?$/.test(value) && Number(value.slice(5)) <= 100,
          'must be true, false, "auto" or "auto:N" (N a percentage of the context window, 0 to 100)',
        ),
      ])
      .optional(),
  agents: () => AgentsOption.optional(),
  agent: () => z.string().min(1).optional(),
  maxHandoffs: () => positiveInt().optional(),
  maxSubagentDepth: () => nonNegativeInt().optional(),
  maxConcurrentSubagents: () => positiveInt().optional(),
  onElicitation: () => fn<NonNullable<QueryOptions["onElicitation"]>>("request, { signal }").optional(),
  allowedTools: () => stringList().optional(),
  disallowedTools: () => stringList().optional(),
  abortController: () => z.instanceof(AbortController).optional(),
  tracer: () =>
    z
      .custom<NonNullable<QueryOptions["tracer"]>>(
        (value) => typeof value === "object" && value !== null && typeof Reflect.get(value, "startSpan") === "function",
        "must be an OpenTelemetry Tracer (an object with startSpan)",
      )
      .optional(),
  meter: () =>
    z
      .custom<NonNullable<QueryOptions["meter"]>>(
        (value) =>
          typeof value === "object" && value !== null && typeof Reflect.get(value, "createHistogram") === "function",
        "must be an OpenTelemetry Meter (an object with createHistogram)",
      )
      .optional(),
  traceContent: () => z.boolean().optional(),
  includePartialMessages: () => z.boolean().optional(),
  maxRetries: () => nonNegativeInt().optional(),
  fallbackModel: () => z.string().min(1).optional(),
  outputFormat: () => OutputFormatOption().optional(),
  maxStructuredOutputRetries: () => nonNegativeInt().optional(),
  canUseTool: () => fn<NonNullable<QueryOptions["canUseTool"]>>("toolName, input, { signal }").optional(),
  permissionHint: () => fn<NonNullable<QueryOptions["permissionHint"]>>("call").optional(),
  hooks: () =>
    z
      .record(
        z.string(),
        z.array(
          z.looseObject({
            hooks: z.array(fn<unknown>("input, toolUseId, { signal }")),
            onFailure: z.enum(["continue", "block"]).optional(),
          }),
        ),
      )
      .optional() as z.ZodType<QueryOptions["hooks"]>,
  permissionMode: () => PermissionMode.optional(),
  additionalDirectories: () => stringList().optional(),
  settingSources: () => z.array(z.enum(["user", "project", "local"])).optional(),
  skills: () => z.union([z.literal("all"), stringList()]).optional(),
  plugins: () =>
    z
      .array(
        z.strictObject({ type: z.literal("local"), path: z.string().min(1), skipMcpDiscovery: z.boolean().optional() }),
      )
      .optional(),
  settings: () => z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
  requireProjectTrust: () => z.boolean().optional(),
  sandbox: () => SandboxSettings.optional(),
  webFetch: () => WebFetchSettings.optional(),
  webSearch: () => WebSearchSettings.optional(),
  doomLoopThreshold: () => nonNegativeInt().optional(),
  loopControlTools: () => z.union([z.boolean(), z.array(z.enum(LOOP_CONTROL_TOOLS))]).optional(),
  maxToolReminders: () => nonNegativeInt().optional(),
  compaction: () => CompactionOption().optional(),
  snapshots: () => z.boolean().optional(),
  compactor: () =>
    z
      .custom<Compactor>(
        (value) =>
          typeof value === "object" &&
          value !== null &&
          typeof (value as Partial<Compactor>).needsCompaction === "function" &&
          typeof (value as Partial<Compactor>).compact === "function",
        { message: "must be a Compactor (needsCompaction and compact)" },
      )
      .optional(),
  context: () =>
    z
      .union([
        fn<Extract<ContextOption, (...args: never[]) => unknown>>("(request) => documents"),
        z.array(
          z.union([
            z.string(),
            z.strictObject({ text: z.string(), title: z.string().optional(), source: z.string().optional() }),
          ]),
        ),
      ])
      .optional(),
  stopAtTools: () => stringList().optional(),
  maxStopHookContinuations: () => nonNegativeInt().optional(),
  sessionId: () => z.string().min(1).optional(),
  passEnv: () => stringList().optional(),
  env: () => z.record(z.string(), z.string().optional()).optional(),
  providers: () => z.record(z.string(), ProviderConfig).optional(),
  fetch: () => fn<NonNullable<QueryOptions["fetch"]>>("input, init").optional(),
  pricing: () => PricingOption().optional() as z.ZodType<QueryOptions["pricing"]>,
  maxOutputTokens: () => positiveInt().optional(),
  providerOptions: () =>
    z.record(z.string(), z.record(z.string(), z.unknown())).optional() as z.ZodType<QueryOptions["providerOptions"]>,
  thinking: () => ThinkingOption.optional(),
  effort: () => EffortOption.optional(),
  toolTimeoutMs: () => positiveNumber().optional(),
  maxToolInputBytes: () => positiveInt().optional(),
  maxTokensContinuations: () => nonNegativeInt().optional(),
  maxMessages: () => positiveInt().optional(),
  retry: () => RetryOption().optional(),
  resume: () => z.string().min(1).optional(),
  approvals: () => z.record(z.string(), PermissionResultOption()).optional() as z.ZodType<QueryOptions["approvals"]>,
  continue: () => z.boolean().optional(),
  continueRun: () => z.boolean().optional(),
  forkSession: () => z.boolean().optional(),
  resumeSessionAt: () => z.string().min(1).optional(),
  persistSession: () => z.boolean().optional(),
  sessionStore: () =>
    z
      .custom<NonNullable<QueryOptions["sessionStore"]>>(
        (value) =>
          typeof value === "object" && value !== null && typeof (value as { append?: unknown }).append === "function",
        { message: "must be a session store (openSqliteSessionStore, openPostgresSessionStore, or your own)" },
      )
      .optional(),
  newUuid: () => fn<() => string>("() => string").optional(),
  now: () => fn<() => number>("() => number").optional(),
} satisfies { [K in keyof Required<QueryOptions>]: () => z.ZodType<QueryOptions[K]> };

type OptionName = keyof typeof shape;

/** The schema of the options object whose keys are `keys`, one per set of keys (most programs pass one). */
const schemas = new Map<string, z.ZodType>();

/**
 * Checks `query()`'s options before anything runs: an unknown key (a typo, or an option of the
 * Claude Agent SDK that Gyre lacks) or a value of the wrong kind is a `config_error` naming
 * every problem, instead of an option silently ignored or a run that starts on nonsense.
 * Only the options given are checked, each with its schema built at its first use: a program
 * passes a few of the options, and building all their schemas would cost every start more
 * than checking them does.
 */
export function validateOptions(options: unknown): void {
  if (options === undefined) return;
  const known = (typeof options === "object" && options !== null ? Object.keys(options) : []).filter(
    (key): key is OptionName => Object.hasOwn(shape, key),
  );
  const key = known.join(",");
  let schema = schemas.get(key);
  if (!schema) {
    // Strict: a key not in the schema is an unknown option.
    schema = z.strictObject(Object.fromEntries(known.map((name) => [name, shape[name]()])));
    schemas.set(key, schema);
  }
  const parsed = schema.safeParse(options);
  if (parsed.success) return;
  const problems = parsed.error.issues.flatMap((issue) => describeIssue(issue, options));
  throw new GyreError(
    "config_error",
    `Invalid query options:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`,
  );
}

/** `build()`'s value, built at the first call. */
function once<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

function describeIssue(issue: z.core.$ZodIssue, options: unknown): string[] {
  if (issue.code === "unrecognized_keys" && issue.path.length === 0) return issue.keys.map(unknownOption);
  const path = ["options", ...issue.path.map(String)].join(".");
  const value = valueAt(options, issue.path);
  const shown = value === undefined ? "" : ` (got ${preview(value)})`;
  return [`${path}: ${issue.message}${shown}`];
}

function unknownOption(key: string): string {
  const sdkHint = CLAUDE_AGENT_SDK_ONLY[key];
  if (sdkHint) return `\`${key}\` is a Claude Agent SDK option Gyre does not support; ${sdkHint}.`;
  const near = closestOption(key);
  return `\`${key}\` is not an option of query()${near ? `; did you mean \`${near}\`?` : "."}`;
}

/** The known option nearest to a misspelt one (edit distance ≤ 2, or case-insensitive equal). */
function closestOption(key: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of Object.keys(shape)) {
    const distance = name.toLowerCase() === key.toLowerCase() ? 0 : editDistance(name, key);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function preview(value: unknown): string {
  if (typeof value === "function") return "a function";
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value !== "object" || value === null) return String(value);
  return Array.isArray(value) ? "an array" : "an object";
}
