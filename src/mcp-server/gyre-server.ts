import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AGENT_TOOL_NAME, agentToolDefinition, callAgent } from "./agent-tool.js";
import type { BuiltinToolSetup } from "./builtin-tool-setup.js";
import { BuiltinToolSession } from "./builtin-tool-session.js";
import { SERVER_INFO, type ServeConfig } from "./serve-config.js";
import { errorCallResult } from "./tool-result-content.js";

/**
 * One MCP server for one client connection: the agent tool, and with `--tools` the built-in
 * tools. The low-level `Server` rather than `McpServer`: the built-in tools keep the exact
 * JSON Schemas the model sees in a run, and Gyre validates their input itself, with the
 * messages a run gives.
 */
export async function createGyreServer(
  config: ServeConfig,
  builtin: BuiltinToolSetup | undefined,
): Promise<{ server: Server; close: () => Promise<void> }> {
  const tools = builtin && (await BuiltinToolSession.open(builtin));
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      `Gyre, an agent runtime. Call "${AGENT_TOOL_NAME}" with a task to have an agent do it` +
      (tools ? "; the other tools are Gyre's built-in tools, under the same permission settings." : "."),
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [agentToolDefinition(), ...(tools?.definitions() ?? [])],
  }));
  // Calls still running: closing waits for them, so an aborted run has ended its commands first.
  const running = new Set<Promise<unknown>>();
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const { name, arguments: args } = request.params;
    const call =
      name === AGENT_TOOL_NAME
        ? callAgent(args, extra, config)
        : tools?.has(name)
          ? tools.call(name, args, extra)
          : Promise.resolve(errorCallResult(`No such tool: ${name}.`));
    running.add(call);
    void call.finally(() => running.delete(call)).catch(() => {});
    return call;
  });
  let closing: Promise<void> | undefined;
  // Closing the server aborts the calls in flight (the MCP SDK aborts their signals).
  const close = () =>
    (closing ??= (async () => {
      await server.close();
      await Promise.allSettled(running);
      await tools?.close();
    })());
  return { server, close };
}
