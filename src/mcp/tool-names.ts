/** The providers' limit on a tool name's length. */
const MAX_NAME = 64;

/** A name part with every character the providers refuse replaced by `_`. */
export function sanitizeNamePart(part: string): string {
  return part.replace(/[^a-zA-Z0-9_-]/g, "_");
}

/**
 * Gives MCP tools their Gyre names, `mcp__<server>__<tool>` as in Claude Code: characters
 * outside `[a-zA-Z0-9_-]` become `_`, a name is cut to 64 characters, and a name already
 * taken (by another tool, or by two names that sanitise alike) gets a `_2`, `_3`… suffix.
 */
export class ToolNamer {
  readonly #taken: Set<string>;

  constructor(taken: Iterable<string> = []) {
    this.#taken = new Set(taken);
  }

  name(server: string, tool: string): string {
    const base = `mcp__${sanitizeNamePart(server)}__${sanitizeNamePart(tool)}`.slice(0, MAX_NAME);
    let candidate = base;
    for (let n = 2; this.#taken.has(candidate); n++) {
      const suffix = `_${n}`;
      candidate = base.slice(0, MAX_NAME - suffix.length) + suffix;
    }
    this.#taken.add(candidate);
    return candidate;
  }
}
