import { context as otelContext } from "@opentelemetry/api";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AGENT_TOOL_NAME, agentToolDefinition, callAgent } from "./agent-tool.js";
import type { BuiltinToolSetup } from "./builtin-tool-setup.js";
import { BuiltinToolSession } from "./builtin-tool-session.js";
import { OwedAnswers } from "./owed-answers.js";
import { SERVER_INFO, type ServeConfig } from "./serve-config.js";
import { errorCallResult } from "./tool-result-content.js";
import { contextFromTraceparent } from "../telemetry/index.js";

export interface GyreServer {
  server: Server;
  /** Connect the server to a client's transport (use this, not `server.connect`). */
  connect: (transport: Transport) => Promise<void>;
  /** Resolves when the connection has closed (the client went away, or {@link GyreServer.close}). */
  closed: Promise<void>;
  /** Abort the calls in flight, wait for their answers to be sent, close the connection. */
  close: () => Promise<void>;
}

/**
 * One MCP server for one client connection: the agent tool, and with `--tools` the built-in
 * tools. The low-level `Server` rather than `McpServer`: the built-in tools keep the exact
 * JSON Schemas the model sees in a run, and Gyre validates their input itself, with the
 * messages a run gives.
 */
export async function createGyreServer(
  config: ServeConfig,
  builtin: BuiltinToolSetup | undefined,
): Promise<GyreServer> {
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
  // Closing aborts the calls in flight and waits until each has answered, so the client hears
  // how each ended (and an aborted run has ended its commands) before the connection goes.
  const owed = new OwedAnswers();
  const shutdown = new AbortController();
  // Calls the client cancelled are owed no answer, but may still be ending their commands.
  const running = new Set<Promise<unknown>>();
  server.setRequestHandler(CallToolRequestSchema, (request, requestExtra) => {
    owed.add(requestExtra.requestId, requestExtra.signal);
    const { name, arguments: args } = request.params;
    const extra = { ...requestExtra, signal: AbortSignal.any([requestExtra.signal, shutdown.signal]) };
    // The caller's trace context (`_meta.traceparent`): the agent's run is a child of its span.
    const meta = request.params._meta as { traceparent?: unknown; tracestate?: unknown } | undefined;
    const parent = contextFromTraceparent(
      typeof meta?.traceparent === "string" ? meta.traceparent : undefined,
      typeof meta?.tracestate === "string" ? meta.tracestate : undefined,
      otelContext.active(),
    );
    const call = otelContext.with(parent, () =>
      name === AGENT_TOOL_NAME
        ? callAgent(args, extra, config)
        : tools?.has(name)
          ? tools.call(name, args, extra)
          : Promise.resolve(errorCallResult(`No such tool: ${name}.`)),
    );
    running.add(call);
    void call.finally(() => running.delete(call)).catch(() => {});
    return call;
  });
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => {
      owed.forgive();
      resolve();
    };
  });
  const connect = async (transport: Transport) => {
    owed.watch(transport);
    await server.connect(transport);
  };
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      shutdown.abort();
      await Promise.all([owed.given(), Promise.allSettled(running)]);
      await server.close();
      await tools?.close();
    })());
  return { server, connect, close, closed };
}
