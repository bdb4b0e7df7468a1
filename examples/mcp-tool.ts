// An MCP tool in this process: `createSdkMcpServer` and `tool` (the Claude Agent SDK's API) make
// an MCP server over an in-memory transport; the model sees its tool as `mcp__calc__add`, and the
// rule `mcp__calc` lets every tool of the server run without asking.
//
//   npm run example -- mcp-tool [--mock]
import { createSdkMcpServer, query, tool } from "gyre";
import { z } from "zod";

const calc = createSdkMcpServer({
  name: "calc",
  version: "1.0.0",
  tools: [
    tool("add", "Add two numbers.", { a: z.number(), b: z.number() }, async ({ a, b }) => ({
      content: [{ type: "text", text: String(a + b) }],
    })),
  ],
});

const run = query({
  prompt: "What is 2+3? Use the calculator.",
  options: {
    model: "anthropic/claude-sonnet-5-5",
    mcpServers: { calc },
    tools: [], // no built-in tools: only the server's
    allowedTools: ["mcp__calc"],
    maxTurns: 5,
    persistSession: false,
  },
});

for await (const message of run) {
  if (message.type === "system" && message.subtype === "init") {
    console.log(`servers: ${message.mcp_servers.map((server) => `${server.name} ${server.status}`).join(", ")}`);
    console.log(`tools: ${message.tools.join(", ")}`);
  } else if (message.type === "assistant") {
    for (const block of message.message.content)
      if (block.type === "tool_use") console.log(`call: ${block.name} ${JSON.stringify(block.input)}`);
  } else if (message.type === "user" && Array.isArray(message.message.content)) {
    for (const block of message.message.content)
      if (block.type === "tool_result") console.log(`result: ${JSON.stringify(block.content)}`);
  } else if (message.type === "result") {
    console.log(`${message.subtype}: ${message.subtype === "success" ? message.result : message.terminal_reason}`);
  }
}
