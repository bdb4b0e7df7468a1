import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parse } from "yaml";
import { z } from "zod";
import { GyreError } from "../errors/index.js";
import { type Env, type Model, ModelInfo, type PricingTable, ProviderConfig } from "../model/index.js";
import { SandboxSettings } from "../sandbox/index.js";
import type { SessionStore } from "../sessions/index.js";
import type { KeyLimits } from "./limits.js";
import type { ResponseQueue } from "./queue/index.js";
import type { RequestLogEntry } from "./middleware.js";
import { loadToolExecutors, type ToolExecutor, type ToolExecutorModule } from "./tool-executors.js";

/** One of Gyre's built-in tools an operator may run server-side (`tools` of the config). */
export type ServerBuiltinTool = "Read" | "Grep" | "Glob" | "Edit" | "Write" | "TodoWrite" | "Bash";

/** Every {@link ServerBuiltinTool}. */
export const SERVER_BUILTIN_TOOLS = [
  "Read",
  "Grep",
  "Glob",
  "Edit",
  "Write",
  "TodoWrite",
  "Bash",
] as const satisfies readonly ServerBuiltinTool[];

/** A public model name and the Gyre model behind it (as LiteLLM's model list). */
export interface ServedModel {
  /** What clients send as `model`. */
  name: string;
  /** `provider/model-id`, resolved with `providers` and the environment. */
  model: string;
}

/** The settings of `gyre serve`'s config file (JSON or YAML). */
export interface ServerConfigFile {
  /** Public model names. With none, a request's `model` is any Gyre model string. */
  models?: ServedModel[];
  /** Only names of `models` may be asked for; any other `model` is refused. Default: true when `models` is given. */
  onlyListedModels?: boolean;
  /** Upstream providers by the name before the `/` (base URLs, key variables), as `query()`'s `providers`. */
  providers?: Record<string, ProviderConfig>;
  /** Price overrides and additions, by model id. */
  pricing?: PricingTable;
  /** Accepted API keys (`Authorization: Bearer KEY`); `GYRE_API_KEYS` (comma-separated) adds to them. */
  apiKeys?: string[];
  /** Model calls one response may make before it ends `incomplete` (default 10). */
  maxTurns?: number;
  /** Largest request body in bytes (default 16 MiB); larger is a 413. */
  maxBodyBytes?: number;
  /** Per-key concurrency and rate limits on creating responses (none by default); over them is a 429. */
  limits?: KeyLimits;
  /**
   * Gyre's built-in tools every response may use, run on the server over `workspace` (e.g.
   * `["Read", "Grep", "Glob"]`). `Bash` needs `sandbox.enabled`: without it the server does not start.
   */
  tools?: ServerBuiltinTool[];
  /** The folder built-in tools work in (default: the server's working directory). */
  workspace?: string;
  /**
   * The operator's permission rules for built-in tools, in Claude Code's rule syntax
   * (`Read(src/**)`, `Bash(git status)`): `allow` runs without asking, `deny` refuses. A call
   * that would need asking is refused: nobody is there to ask.
   */
  permissions?: { allow?: string[]; deny?: string[] };
  /** The OS sandbox for `Bash` (Claude Code's `sandbox` settings shape, see `query()`'s `sandbox`). */
  sandbox?: SandboxSettings;
  /**
   * Hosts (`host`, `*.domain`, an address, with an optional `:port`) that requests' `mcp` tools
   * may connect to; an address also allows any name that resolves to it. Default: any public
   * host, and never an address of this machine, nor a loopback, private or link-local one.
   */
  mcpAllowedHosts?: string[];
  /** Seconds between SSE keep-alive comments while nothing else is sent (default 15). */
  keepAliveSeconds?: number;
  /**
   * The status of a response that ends waiting on the client's tools (its `function_call` items):
   * `completed`, as the Open Responses spec and OpenAI answer (default), or `requires_action`,
   * for clients written against servers that say so (antwort).
   */
  clientToolStatus?: "completed" | "requires_action";
  /**
   * Modules of the operator's own tool executors (see `ToolExecutor`): each `module` (relative to
   * the config file) exports a factory as its default, called with `options`.
   */
  toolExecutors?: ToolExecutorModule[];
  /**
   * Serve `gyre ui`'s page at `/ui`, where each API key signs in and sees its own responses'
   * runs (a keyless server: loopback clients, the responses they made). Default true; `false`
   * leaves `/ui` out (a 404).
   */
  ui?: boolean;
}

const ServerConfigFileSchema = z.strictObject({
  models: z.array(z.strictObject({ name: z.string().min(1), model: z.string().min(1) })).optional(),
  onlyListedModels: z.boolean().optional(),
  providers: z.record(z.string(), ProviderConfig).optional(),
  pricing: z.record(z.string(), ModelInfo).optional(),
  apiKeys: z.array(z.string().min(8)).optional(),
  maxTurns: z.number().int().positive().optional(),
  maxBodyBytes: z.number().int().positive().optional(),
  limits: z
    .strictObject({
      concurrentResponses: z.number().int().positive().optional(),
      requestsPerMinute: z.number().positive().optional(),
    })
    .optional(),
  tools: z.array(z.enum(SERVER_BUILTIN_TOOLS)).optional(),
  workspace: z.string().min(1).optional(),
  permissions: z
    .strictObject({ allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() })
    .optional(),
  sandbox: SandboxSettings.optional(),
  keepAliveSeconds: z.number().positive().optional(),
  clientToolStatus: z.enum(["completed", "requires_action"]).optional(),
  mcpAllowedHosts: z.array(z.string().min(1)).optional(),
  toolExecutors: z.array(z.strictObject({ module: z.string().min(1), options: z.unknown().optional() })).optional(),
  ui: z.boolean().optional(),
}) satisfies z.ZodType<ServerConfigFile>;

/** What {@link createServer} takes: the file's settings and the objects a program provides. */
export interface ServerConfig extends Omit<ServerConfigFile, "toolExecutors"> {
  /** Where responses and their runs are stored. Default: an in-memory store (the CLI opens SQLite). */
  sessionStore?: SessionStore;
  /** API keys and base URLs of upstream providers. Default: `process.env`. */
  env?: Env;
  /** Resolve `model` yourself (tests, custom providers); default: Gyre's resolution with `env`. */
  resolveModel?: (spec: string) => Promise<Model>;
  /** The `fetch` upstream model requests go through, as `query()`'s `fetch`. Default: the global `fetch`; `gyre serve` and `gyre worker` pass Gyre's `node:http` one. */
  fetch?: typeof globalThis.fetch;
  /**
   * How requests' `mcp` tools' host names are resolved (a custom resolver, tests); default: the
   * system's (`dns.lookup`). Each name is resolved once per response, and its connections go
   * to the address that was checked.
   */
  mcpLookup?: (hostname: string) => Promise<string[]>;
  /** Whether a request without a key comes from this machine; default: by its socket address. */
  isLoopback?: (request: Request) => boolean;
  /** Working directory of runs (default `process.cwd()`). */
  cwd?: string;
  /** The clock of the rate limit, in milliseconds (tests); default `Date.now`. */
  now?: () => number;
  /**
   * Called once for every request when its response has been sent (a stream: when it ends),
   * for an access log; `gyre serve` writes each as a line on stderr. Default: nothing is logged.
   */
  logRequest?: (entry: RequestLogEntry) => void;
  /**
   * The cluster's queue (`connectQueue`): every response becomes a job on it, run by whichever
   * worker takes it, and any instance can follow or cancel any response. Default: responses run
   * in this process.
   */
  queue?: ResponseQueue;
  /**
   * Tool kinds of the operator's own (a remote sandbox, a container per run): each executor's
   * tools are offered to every response and its calls run by its `execute`, server-side. The
   * config file's `toolExecutors` modules are loaded into this by `gyre serve` and `gyre worker`.
   */
  toolExecutors?: ToolExecutor[];
}

/** Reads a config file; an unreadable or invalid one is a `config_error` saying where. */
export async function loadServerConfig(path: string): Promise<ServerConfigFile> {
  let value: unknown;
  try {
    value = parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new GyreError("config_error", `gyre serve: cannot read config ${path}`, { cause: error });
  }
  const result = ServerConfigFileSchema.safeParse(value ?? {});
  if (!result.success)
    throw new GyreError("config_error", `gyre serve: invalid config ${path}: ${z.prettifyError(result.error)}`, {
      cause: result.error,
    });
  const { toolExecutors, ...rest } = result.data;
  if (!toolExecutors) return rest;
  // Modules are named relative to the config file.
  const folder = dirname(resolve(path));
  return {
    ...rest,
    toolExecutors: toolExecutors.map((spec) => ({ ...spec, module: resolve(folder, spec.module) })),
  };
}

/** A config file's settings as a server takes them: its tool executor modules loaded (a `config_error` naming one that fails). */
export async function serverConfigOf(file: ServerConfigFile): Promise<Omit<ServerConfig, "env">> {
  const { toolExecutors, ...rest } = file;
  if (!toolExecutors?.length) return rest;
  return { ...rest, toolExecutors: await loadToolExecutors(toolExecutors, process.cwd()) };
}

/** Refuses a config that enables `Bash` without the OS sandbox: the model must never get an unconfined shell. */
export function checkServerTools(config: Pick<ServerConfigFile, "tools" | "sandbox">): void {
  if (config.tools?.includes("Bash") && config.sandbox?.enabled !== true)
    throw new GyreError(
      "config_error",
      "gyre serve: the Bash tool runs only inside the OS sandbox; set sandbox.enabled: true or remove Bash from tools.",
    );
}

/** API keys of the config and of `GYRE_API_KEYS` (internal: `gyre serve` and `createServer` read them). */
export function apiKeysOf(config: ServerConfig, env: Env): string[] {
  const fromEnv = (env.GYRE_API_KEYS ?? "")
    .split(",")
    .map((key) => key.trim())
    .filter((key) => key.length > 0);
  return [...(config.apiKeys ?? []), ...fromEnv];
}
