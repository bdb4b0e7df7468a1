import { z } from "zod";
import { GrepOutputMode } from "./types.js";

/** A count of lines or entries; JSON Schema `number`, as Claude Code declares it. */
const wholeNumber = () => z.number().min(0).refine(Number.isInteger, "Expected a whole number");

const lines = (what: string) =>
  wholeNumber()
    .optional()
    .describe(
      `Number of lines to show ${what} each match (rg ${what === "before" ? "-B" : "-A"}). Requires output_mode: "content", ignored otherwise.`,
    );

/** Grep's input, field for field as Claude Code's Grep tool takes it. */
export const GrepInput = z.strictObject({
  pattern: z.string().min(1).describe("The regular expression pattern to search for in file contents (ripgrep syntax)"),
  path: z
    .string()
    .optional()
    .describe(
      "File or directory to search in (rg PATH), absolute or relative to the working directory. Defaults to the working directory.",
    ),
  glob: z.string().optional().describe('Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}") - maps to rg --glob'),
  output_mode: GrepOutputMode.optional().describe(
    'Output mode: "content" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), ' +
      '"files_with_matches" shows file paths (supports head_limit), "count" shows match counts (supports head_limit). ' +
      'Defaults to "files_with_matches".',
  ),
  "-B": lines("before"),
  "-A": lines("after"),
  "-C": wholeNumber()
    .optional()
    .describe(
      'Number of lines to show before and after each match (rg -C). Requires output_mode: "content", ignored otherwise.',
    ),
  context: wholeNumber().optional().describe("Alias for -C."),
  "-n": z
    .boolean()
    .optional()
    .describe(
      'Show line numbers in output (rg -n). Requires output_mode: "content", ignored otherwise. Defaults to true.',
    ),
  "-i": z.boolean().optional().describe("Case insensitive search (rg -i)"),
  type: z
    .string()
    .optional()
    .describe(
      "File type to search (rg --type). Common types: js, ts, py, rust, go, java, etc. More efficient than glob for standard file types.",
    ),
  head_limit: wholeNumber()
    .optional()
    .describe(
      'Limit output to the first N lines/entries, like "| head -N": content lines, file paths or count entries. ' +
        "Defaults to 250; 0 means no limit.",
    ),
  offset: wholeNumber()
    .optional()
    .describe(
      'Skip the first N lines/entries before applying head_limit, like "| tail -n +N+1 | head -N". Defaults to 0.',
    ),
  multiline: z
    .boolean()
    .optional()
    .describe(
      "Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false.",
    ),
});
export type GrepInput = z.infer<typeof GrepInput>;

/** Default `head_limit`: enough to be useful, small enough not to flood the context. */
export const DEFAULT_HEAD_LIMIT = 250;

/**
 * The `--glob` list of a `glob` input: split on whitespace and, outside braces, on commas
 * (`"*.ts,*.tsx"` is two globs; `"*.{ts,tsx}"` is one).
 */
export function splitGlobs(glob: string | undefined): string[] {
  if (glob === undefined) return [];
  const globs: string[] = [];
  for (const part of glob.split(/\s+/)) {
    if (part === "") continue;
    if (part.includes("{") && part.includes("}")) globs.push(part);
    else globs.push(...part.split(",").filter((piece) => piece !== ""));
  }
  return globs;
}
