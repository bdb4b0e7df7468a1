// Network addresses and host patterns: which addresses belong to this machine or its internal
// network (the server's MCP guard and WebFetch refuse them unless allowed), and host:port patterns.
export { canonicalAddress, isRefusedAddress } from "./refused-addresses.js";
export { isAllowedHost, parseTarget } from "./host-patterns.js";
export { nodeFetch } from "./node-fetch.js";
