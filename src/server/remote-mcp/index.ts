// The Responses API's `mcp` tool: the remote MCP servers a request names, checked against the
// hosts the server may reach for a client, connected for one response at the addresses checked.
export { checkMcpUrls } from "./check-urls.js";
export { connectRequestMcp, type ResponseMcp } from "./connect.js";
export { McpHostGuard, type McpLookup } from "./host-guard.js";
