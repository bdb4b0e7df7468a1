import { defineTool } from "../define-tool.js";
import type { Tool } from "../tool.js";
import { GlobInput } from "./glob-input.js";

export interface GlobToolOptions {
  /** At most this many paths are listed (default 100); a note says how many more matched. */
  maxResults?: number;
}

const DEFAULT_MAX_RESULTS = 100;

const DESCRIPTION = `Find files by name with a glob pattern.
- Supports patterns like "**/*.js" or "src/**/*.ts"; matching paths are listed newest-modified first.
- Hidden folders, .git and node_modules are skipped unless the pattern names them.
- Use Glob to find files by name; use Grep to search file contents.`;

/**
 * The Glob tool (Claude Code compatible): tinyglobby's matching under `path` (default: the
 * cwd), paths relative to the cwd, newest-modified first, at most `maxResults` of them.
 */
export function globTool(options: GlobToolOptions = {}): Tool<GlobInput> {
  const maxResults = options.maxResults ?? DEFAULT_MAX_RESULTS;
  return defineTool({
    name: "Glob",
    description: DESCRIPTION,
    inputSchema: GlobInput,
    readOnly: true,
    idempotent: true,
    async execute(input, context) {
      // The search itself (the crawl, tinyglobby, ignore rules) loads at the first call, not with Gyre.
      const { runGlob } = await import("./glob-run.js");
      return runGlob(input, context, maxResults);
    },
  });
}
