/** Built-in tools that edit files; `Edit(...)` rules and `acceptEdits` mode cover all of them. */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);
/** Built-in tools that read files; `Read(...)` rules cover all of them. */
export const READ_TOOLS: ReadonlySet<string> = new Set(["Read", "Glob", "Grep", "LS", "NotebookRead"]);
/** Tools whose path input is a directory, defaulting to the working directory. */
export const SEARCH_TOOLS: ReadonlySet<string> = new Set(["Glob", "Grep", "LS"]);

/** Whether a rule naming `ruleTool` applies to a call of `toolName`. */
export function ruleAppliesTo(ruleTool: string, toolName: string): boolean {
  if (ruleTool === toolName) return true;
  if (ruleTool === "Edit" && EDIT_TOOLS.has(toolName)) return true;
  if (ruleTool === "Read" && READ_TOOLS.has(toolName)) return true;
  // Claude Code's subagent tool was called Task: rules written for it still apply.
  if (ruleTool === "Task" && toolName === "Agent") return true;
  if (!ruleTool.startsWith("mcp__")) return false;
  // `mcp__server` and `mcp__server__*` cover every tool of that server.
  if (ruleTool.endsWith("__*")) return toolName.startsWith(ruleTool.slice(0, -1));
  return ruleTool.split("__").length === 2 && toolName.startsWith(`${ruleTool}__`);
}

/** The file path a call works on: `file_path`, `notebook_path` or `path`, if the input has one. */
export function inputPath(toolName: string, input: unknown): string | undefined {
  const record = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
  for (const key of ["file_path", "notebook_path", "path"]) {
    const value = record[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return SEARCH_TOOLS.has(toolName) ? "." : undefined;
}

/** A string field of the input, if present. */
export function inputString(input: unknown, key: string): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const value = (input as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
}
