import { resolve } from "node:path";
import { GyreError } from "../errors/index.js";
import type { ServeConfig } from "../mcp-server/index.js";
import { asksForHelp } from "./interactive.js";
import { parseCommandArgs } from "./parse-command-args.js";
import { cliPermissionHint } from "./permission-hint.js";
import { AGENT_SETUP_OPTIONS, list, mcpServersOf, number, permissionMode, pluginDirs } from "./run-options.js";
import { providerEnvironment } from "./provider-keys.js";

const USAGE = `Usage: gyre mcp serve [--http PORT] [--tools] [options of gyre run: --model, --max-turns,
  --max-budget-usd, --max-budget-tokens, --cwd, --permission-mode, --allowed-tools, --disallowed-tools,
  --add-dir, --setting-sources, --trust-project, --system-prompt, --append-system-prompt,
  --no-session-persistence, --mcp-config, --strict-mcp-config]
`;

/**
 * `gyre mcp serve`: Gyre as an MCP server, on stdin/stdout or (`--http PORT`) over streamable
 * HTTP on 127.0.0.1. It offers the agent as the tool `agent`, and with `--tools` the built-in
 * tools, all under the permission settings a `gyre run` with the same flags would have.
 * Exit code 2 for a flag it does not know.
 */
export async function mcpServeCommand(args: string[]): Promise<number> {
  if (asksForHelp(args)) {
    process.stdout.write(USAGE);
    return 0;
  }
  let parsed;
  try {
    parsed = parseCommandArgs({
      args,
      options: {
        ...AGENT_SETUP_OPTIONS,
        http: { type: "string" },
        tools: { type: "boolean", default: false },
      },
    });
  } catch (error) {
    process.stderr.write(`gyre mcp serve: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values } = parsed;
  const config: ServeConfig = {
    query: {
      env: providerEnvironment(),
      model: values.model,
      fallbackModel: values["fallback-model"],
      maxTurns: number(values["max-turns"], "--max-turns"),
      maxBudgetUsd: number(values["max-budget-usd"], "--max-budget-usd"),
      maxBudgetTokens: number(values["max-budget-tokens"], "--max-budget-tokens"),
      maxRetries: number(values["max-retries"], "--max-retries"),
      cwd: resolve(values.cwd ?? "."),
      allowedTools: list(values["allowed-tools"]),
      disallowedTools: list(values["disallowed-tools"]),
      permissionMode: permissionMode(values["permission-mode"]),
      // Nobody is asked over MCP: a denial names this command's flags, not canUseTool.
      permissionHint: cliPermissionHint("gyre mcp serve"),
      additionalDirectories: values["add-dir"],
      settingSources: list(values["setting-sources"]) as ServeConfig["query"]["settingSources"],
      // As in gyre run: a flag, so a repository cannot trust itself.
      requireProjectTrust: !values["trust-project"],
      persistSession: !values["no-session-persistence"],
      ...(values["mcp-config"] && { mcpServers: await mcpServersOf(values["mcp-config"]) }),
      strictMcpConfig: values["strict-mcp-config"],
      ...(values["plugin-dir"] && { plugins: pluginDirs(values["plugin-dir"]) }),
      systemPrompt: values["system-prompt"] ?? {
        type: "preset",
        preset: "gyre",
        append: values["append-system-prompt"],
      },
    },
    builtinTools: values.tools,
    log: (line) => process.stderr.write(`gyre mcp serve: ${line}\n`),
  };
  const port = values.http === undefined ? undefined : httpPort(values.http);
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const server = await import("../mcp-server/index.js");
    if (port === undefined) await server.serveStdio(config, controller.signal);
    else {
      await server.serveHttp(config, {
        port,
        signal: controller.signal,
        // On stdout, as gyre mock-llm prints its address: stdout is free when serving over HTTP.
        onListening: (url) => process.stdout.write(`gyre mcp serve: listening on ${url}\n`),
      });
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  return 0;
}

function httpPort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new GyreError("config_error", `--http must be a port number (0 picks a free one), not "${value}"`);
  return port;
}
