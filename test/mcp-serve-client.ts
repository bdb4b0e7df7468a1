import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { setUpBuiltinTools } from "../src/mcp-server/builtin-tool-setup.js";
import { createGyreServer } from "../src/mcp-server/gyre-server.js";
import type { QueryOptions } from "../src/run/index.js";

/**
 * `gyre mcp serve --tools` with `query` as its run options, reached by the MCP SDK's own
 * client over a linked pair of transports; both are closed when `use` ends.
 */
export async function withBuiltinToolsServer<T>(
  query: QueryOptions & { cwd: string },
  use: (client: Client) => Promise<T>,
): Promise<T> {
  const config = { query, builtinTools: true, log: () => {} };
  const gyre = await createGyreServer(config, await setUpBuiltinTools(config));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "gyre-test", version: "1.0.0" });
  await gyre.connect(serverSide);
  await client.connect(clientSide);
  try {
    return await use(client);
  } finally {
    await client.close();
    await gyre.close();
  }
}
