import { z } from "zod";
import { GyreError } from "../errors/index.js";

// Server entries as Claude Code writes them in `.mcp.json` and `~/.claude.json`. Keys Gyre
// does not use (`oauth`, `headersHelper`, …) are dropped rather than refused, so that a Claude
// Code project's file works unchanged. Strings are checked only after `${VAR}` expansion.

const timeout = z.number().positive().finite().optional();
const stringRecord = z.record(z.string(), z.string());

const StdioEntry = z.object({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: stringRecord.optional(),
  cwd: z.string().min(1).optional(),
  timeout,
});

const HttpEntry = z.object({
  type: z.literal("http"),
  url: z.string().min(1),
  headers: stringRecord.optional(),
  timeout,
});
const SseEntry = z.object({
  type: z.literal("sse"),
  url: z.string().min(1),
  headers: stringRecord.optional(),
  timeout,
});

/** One server in an MCP config file: stdio (`type` optional), `http` or `sse`. */
export type McpFileServerConfig = z.infer<typeof StdioEntry> | z.infer<typeof HttpEntry> | z.infer<typeof SseEntry>;

const ENTRY_SCHEMAS = { stdio: StdioEntry, http: HttpEntry, sse: SseEntry } as const;

/** Server names `gyre mcp add` accepts, as `claude mcp add` does. */
export const SERVER_NAME = /^[\w-]+$/;

/**
 * Checks one server entry. The schema is chosen by `type` so that an error says what is wrong
 * with that kind of server, not that the entry matches none of them.
 */
export function parseServerEntry(value: unknown): { config: McpFileServerConfig } | { error: string } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { error: "must be an object" };
  const type = (value as { type?: unknown }).type ?? "stdio";
  if (typeof type !== "string" || !Object.hasOwn(ENTRY_SCHEMAS, type)) {
    return { error: `type must be "stdio", "http" or "sse", not ${JSON.stringify(type)}` };
  }
  const parsed = ENTRY_SCHEMAS[type as keyof typeof ENTRY_SCHEMAS].safeParse(value);
  if (parsed.success) return { config: parsed.data };
  return {
    error: parsed.error.issues
      .map((issue) => `${issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""}${issue.message}`)
      .join("; "),
  };
}

/**
 * The `mcpServers` record at `where` (`mcpServers`, `projects["/src/app"].mcpServers`) of a
 * parsed file. A wrong shape is a `config_error` that names `file`, the entry and the problem.
 */
export function parseServersRecord(value: unknown, file: string, where: string): Record<string, McpFileServerConfig> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new GyreError(
      "config_error",
      `MCP config ${file} is invalid: ${where} must be an object of server name to config`,
    );
  }
  const servers: Record<string, McpFileServerConfig> = {};
  for (const [name, entry] of Object.entries(value)) {
    const parsed = parseServerEntry(entry);
    if ("error" in parsed) {
      throw new GyreError("config_error", `MCP config ${file} is invalid: ${where}.${name}: ${parsed.error}`);
    }
    servers[name] = parsed.config;
  }
  return servers;
}
