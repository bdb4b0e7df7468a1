/**
 * What the server does with a call the model makes, by tool name: a client's `function` or
 * freeform `custom` tool comes back to the client; an `mcp` or operator's `builtin` tool runs
 * here; a `refused` one (outside `tool_choice`) gets an error result and is never shown.
 */
export type CallKind =
  | { kind: "function" }
  | { kind: "custom" }
  | { kind: "refused" }
  | { kind: "builtin" }
  | { kind: "mcp"; serverLabel: string; tool: string; approval: boolean };

export type KindOf = (toolName: string) => CallKind;
