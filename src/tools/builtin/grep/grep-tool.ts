import { defineTool } from "../../define-tool.js";
import type { Tool } from "../../tool.js";
import type { GrepToolOptions } from "./grep-options.js";
import { GrepInput } from "./input.js";

const DESCRIPTION = `Search file contents with a regular expression (ripgrep).
- Full regex syntax (ripgrep / Rust regex), e.g. "log.*Error", "function\\s+\\w+". Literal braces and parentheses need escaping: use "interface\\{\\}" to find "interface{}".
- Filter files with glob (e.g. "*.js", "**/*.tsx") or type (e.g. "js", "py", "rust").
- output_mode: "files_with_matches" (default) lists matching files, newest first; "content" shows matching lines (with -A/-B/-C context and -n line numbers); "count" shows matches per file.
- Patterns match within a line; set multiline: true for patterns that span lines.
- Respects .gitignore and skips hidden and binary files. Output is paged with head_limit (default 250) and offset.
- Use Grep for searching file contents instead of running grep or rg in a shell.`;

/** The Grep tool (Claude Code compatible): ripgrep search, with a JavaScript fallback. */
export function grepTool(options: GrepToolOptions = {}): Tool<GrepInput> {
  return defineTool({
    name: "Grep",
    description: DESCRIPTION,
    inputSchema: GrepInput,
    readOnly: true,
    idempotent: true,
    async execute(input, context) {
      // The search itself (backends, ripgrep, ignore rules) loads at the first call, not with Gyre.
      const { runGrep } = await import("./grep-run.js");
      return runGrep(input, context, options);
    },
  });
}
