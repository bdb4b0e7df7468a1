import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { setUpBuiltinTools } from "./builtin-tool-setup.js";
import { createGyreServer } from "./gyre-server.js";
import type { ServeConfig } from "./serve-config.js";

/**
 * Serves one client on stdin/stdout until it disconnects (stdin ends) or `signal` aborts;
 * calls in flight are aborted and have ended when this resolves.
 */
export async function serveStdio(config: ServeConfig, signal: AbortSignal): Promise<void> {
  const builtin = config.builtinTools ? await setUpBuiltinTools(config) : undefined;
  const connection = await createGyreServer(config, builtin);
  await connection.connect(new StdioServerTransport());
  const stop = () => void connection.close();
  process.stdin.once("end", stop);
  signal.addEventListener("abort", stop, { once: true });
  try {
    await connection.closed;
    await connection.close();
  } finally {
    process.stdin.off("end", stop);
    signal.removeEventListener("abort", stop);
  }
}
