import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { GyreError } from "../errors/index.js";
import type { McpSdkServerConfigWithInstance } from "./config.js";

/** A tool's input as a zod raw shape: `{ a: z.number(), b: z.number() }`. */
export type ZodRawShape = Record<string, z.ZodType>;

/** The parsed input of a raw shape. */
export type InferShape<Shape extends ZodRawShape> = { [K in keyof Shape]: z.infer<Shape[K]> };

/** A tool of an in-process MCP server (the Claude Agent SDK's `SdkMcpToolDefinition`). */
export interface SdkMcpToolDefinition<Shape extends ZodRawShape = ZodRawShape> {
  name: string;
  description: string;
  inputSchema: Shape;
  annotations?: ToolAnnotations;
  handler: (args: InferShape<Shape>, extra: unknown) => Promise<CallToolResult>;
}

/**
 * A tool for {@link createSdkMcpServer}, with the Claude Agent SDK's signature. Mark a tool
 * that changes nothing with `{ annotations: { readOnlyHint: true } }`: only then does Gyre
 * treat it as read-only (run without asking, in parallel with other read-only calls).
 */
export function tool<Shape extends ZodRawShape>(
  name: string,
  description: string,
  inputSchema: Shape,
  handler: (args: InferShape<Shape>, extra: unknown) => Promise<CallToolResult>,
  extras?: {
    annotations?: ToolAnnotations;
    /** Accepted for the Claude Agent SDK's sake; Gyre has no tool search, so it is not used. */
    searchHint?: string;
    /** Accepted for the Claude Agent SDK's sake; Gyre always offers every tool. */
    alwaysLoad?: boolean;
  },
): SdkMcpToolDefinition<Shape> {
  return { name, description, inputSchema, handler, ...(extras?.annotations && { annotations: extras.annotations }) };
}

/** Options of {@link createSdkMcpServer}. */
export interface CreateSdkMcpServerOptions {
  name: string;
  version?: string;
  /** Returned by the server's `initialize`. */
  instructions?: string;
  /** Accepted for the Claude Agent SDK's sake; Gyre always offers every tool. */
  alwaysLoad?: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tools of any input shape live on one server.
  tools?: Array<SdkMcpToolDefinition<any>>;
}

/**
 * For each server createSdkMcpServer made: builds another from the same definitions when the instance is already serving a run,
 * so concurrent runs can share one `createSdkMcpServer` config; an `McpServer` made by the
 * caller serves one run at a time (the MCP SDK's rule), and a second gets a clear error.
 */
const spareServers = new WeakMap<McpServer, () => McpServer>();

/**
 * An MCP server that runs in this process (the Claude Agent SDK's `createSdkMcpServer`):
 * pass it in `mcpServers` (`{ calc: createSdkMcpServer({ name: "calc", tools }) }`) and the
 * model sees its tools as `mcp__calc__<tool>`. The run talks to it over an in-memory
 * transport. Runs at the same time may share it: each gets its own server built from the same tools.
 */
export function createSdkMcpServer(options: CreateSdkMcpServerOptions): McpSdkServerConfigWithInstance {
  const server = buildServer(options);
  spareServers.set(server, () => buildServer(options));
  return { type: "sdk", name: options.name, instance: server };
}

/** The server that serves a new run's connection to `config`: its instance, or a fresh twin when that is busy. */
export function serverForConnection(config: McpSdkServerConfigWithInstance): McpServer {
  if (!config.instance.isConnected()) return config.instance;
  const spare = spareServers.get(config.instance);
  if (spare) return spare();
  throw new GyreError(
    "mcp_connection_failed",
    `MCP server "${config.name}" is serving another run: an McpServer connects to one client at a time. ` +
      `Make one per run, or use createSdkMcpServer, whose servers can be shared.`,
  );
}

function buildServer(options: CreateSdkMcpServerOptions): McpServer {
  const server = new (loadMcpServer())(
    { name: options.name, version: options.version ?? "1.0.0" },
    { capabilities: { tools: {} }, ...(options.instructions !== undefined && { instructions: options.instructions }) },
  );
  for (const definition of options.tools ?? []) {
    server.registerTool(
      definition.name,
      {
        description: definition.description,
        inputSchema: definition.inputSchema,
        ...(definition.annotations && { annotations: definition.annotations }),
      },
      // The MCP SDK parsed the arguments against the same shape before calling this.
      (args: unknown, extra: unknown) => definition.handler(args as InferShape<ZodRawShape>, extra),
    );
  }
  return server;
}

let mcpServerClass: typeof McpServer | undefined;

/**
 * The MCP SDK's `McpServer`, loaded on first use: importing it is slow (docs/benchmarks.md),
 * which `import("gyre")` must not pay for programs without in-process servers. Loaded with
 * `require` because `createSdkMcpServer` is synchronous (as in the Claude Agent SDK); `require`
 * of the ES module (Node 20.19+) shares the module instance that `import` gives everyone else.
 */
function loadMcpServer(): typeof McpServer {
  if (!mcpServerClass) {
    const path = fileURLToPath(import.meta.resolve("@modelcontextprotocol/sdk/server/mcp.js"));
    const loaded = createRequire(import.meta.url)(path) as typeof import("@modelcontextprotocol/sdk/server/mcp.js");
    mcpServerClass = loaded.McpServer;
  }
  return mcpServerClass;
}
