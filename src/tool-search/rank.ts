/** What the search reads of a tool: its name and its description. */
export interface SearchableTool {
  readonly name: string;
  readonly description: string;
}

/** Matches a keyword search returns when the call asks for no other number (Claude Code's). */
export const DEFAULT_MAX_RESULTS = 5;

// Weights: a word of the tool's own name says most, its server's name a little less, a
// description word least; a word that only starts a name part, or a substring, counts less.
const NAME_PART = 10;
const SERVER_PART = 6;
const NAME_PREFIX = 5;
const NAME_SUBSTRING = 3;
const DESCRIPTION_WORD = 2;
const DESCRIPTION_SUBSTRING = 1;

/**
 * The tools a ToolSearch query names, best first, as Claude Code's query forms have it:
 * `select:A,B` — exactly these tools, in that order (a name that matches none is left out);
 * keywords — up to `max` tools ranked by how well each word matches the name and the
 * description; a word with a leading `+` must be in the tool's name (`+slack send`). A query
 * that is a tool's exact name returns that tool.
 */
export function searchTools<T extends SearchableTool>(
  tools: readonly T[],
  query: string,
  max = DEFAULT_MAX_RESULTS,
): T[] {
  const trimmed = query.trim();
  const select = /^select:(.*)$/is.exec(trimmed);
  if (select) return selectTools(tools, select[1] ?? "");
  const exact = tools.find((tool) => tool.name === trimmed);
  if (exact) return [exact];
  const words = trimmed.toLowerCase().split(/\s+/).filter(Boolean);
  const required = words.filter((word) => word.startsWith("+") && word.length > 1).map((word) => word.slice(1));
  const optional = words.filter((word) => !word.startsWith("+"));
  if (required.length + optional.length === 0) return [];
  const ranked: Array<{ tool: T; score: number; index: number }> = [];
  tools.forEach((tool, index) => {
    const entry = indexed(tool);
    if (!required.every((word) => entry.name.includes(word))) return;
    let score = 0;
    for (const word of [...required, ...optional]) score += wordScore(entry, word);
    if (score > 0) ranked.push({ tool, score, index });
  });
  ranked.sort((a, b) => b.score - a.score || a.index - b.index);
  return ranked.slice(0, Math.max(1, max)).map((entry) => entry.tool);
}

function selectTools<T extends SearchableTool>(tools: readonly T[], list: string): T[] {
  const chosen: T[] = [];
  for (const wanted of list.split(",").map((name) => name.trim())) {
    if (wanted === "") continue;
    const tool =
      tools.find((candidate) => candidate.name === wanted) ??
      tools.find((candidate) => candidate.name.toLowerCase() === wanted.toLowerCase());
    if (tool && !chosen.includes(tool)) chosen.push(tool);
  }
  return chosen;
}

interface IndexedTool {
  /** The whole name, lower case. */
  name: string;
  /** Words of the tool's own name (for an MCP tool, the part after its server). */
  parts: string[];
  /** Words of an MCP tool's server name. */
  server: string[];
  description: string;
  descriptionWords: Set<string>;
}

function indexed(tool: SearchableTool): IndexedTool {
  const mcp = /^mcp__(.+?)__(.+)$/.exec(tool.name);
  const description = tool.description.toLowerCase();
  return {
    name: tool.name.toLowerCase(),
    parts: nameWords(mcp ? (mcp[2] ?? "") : tool.name),
    server: mcp ? nameWords(mcp[1] ?? "") : [],
    description,
    descriptionWords: new Set(description.split(/[^\p{L}\p{N}]+/u).filter(Boolean)),
  };
}

/** `create_issue`, `createIssue`, `create-issue` → `create`, `issue`. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

function wordScore(tool: IndexedTool, word: string): number {
  if (tool.parts.includes(word)) return NAME_PART + descriptionScore(tool, word);
  if (tool.server.includes(word)) return SERVER_PART + descriptionScore(tool, word);
  if (tool.parts.some((part) => part.startsWith(word))) return NAME_PREFIX + descriptionScore(tool, word);
  if (tool.name.includes(word)) return NAME_SUBSTRING + descriptionScore(tool, word);
  return descriptionScore(tool, word);
}

function descriptionScore(tool: IndexedTool, word: string): number {
  if (tool.descriptionWords.has(word)) return DESCRIPTION_WORD;
  return tool.description.includes(word) ? DESCRIPTION_SUBSTRING : 0;
}
