import { describe, expect, it } from "vitest";
import { prepareCall, ToolRegistry, toJsonSchema } from "../../index.js";
import { grepTool } from "./grep-tool.js";

describe("Grep schema", () => {
  const registry = new ToolRegistry([grepTool()]);
  const prepare = (input: unknown) => prepareCall(registry, { id: "1", name: "Grep", input });

  it("is pinned", () => {
    expect(grepTool().sideEffect).toBe("read-only");
    expect(toJsonSchema(grepTool().inputSchema)).toMatchInlineSnapshot(`
      {
        "additionalProperties": false,
        "properties": {
          "-A": {
            "description": "Number of lines to show after each match (rg -A). Requires output_mode: "content", ignored otherwise.",
            "minimum": 0,
            "type": "number",
          },
          "-B": {
            "description": "Number of lines to show before each match (rg -B). Requires output_mode: "content", ignored otherwise.",
            "minimum": 0,
            "type": "number",
          },
          "-C": {
            "description": "Number of lines to show before and after each match (rg -C). Requires output_mode: "content", ignored otherwise.",
            "minimum": 0,
            "type": "number",
          },
          "-i": {
            "description": "Case insensitive search (rg -i)",
            "type": "boolean",
          },
          "-n": {
            "description": "Show line numbers in output (rg -n). Requires output_mode: "content", ignored otherwise. Defaults to true.",
            "type": "boolean",
          },
          "context": {
            "description": "Alias for -C.",
            "minimum": 0,
            "type": "number",
          },
          "glob": {
            "description": "Glob pattern to filter files (e.g. "*.js", "*.{ts,tsx}") - maps to rg --glob",
            "type": "string",
          },
          "head_limit": {
            "description": "Limit output to the first N lines/entries, like "| head -N": content lines, file paths or count entries. Defaults to 250; 0 means no limit.",
            "minimum": 0,
            "type": "number",
          },
          "multiline": {
            "description": "Enable multiline mode where . matches newlines and patterns can span lines (rg -U --multiline-dotall). Default: false.",
            "type": "boolean",
          },
          "offset": {
            "description": "Skip the first N lines/entries before applying head_limit, like "| tail -n +N+1 | head -N". Defaults to 0.",
            "minimum": 0,
            "type": "number",
          },
          "output_mode": {
            "description": "Output mode: "content" shows matching lines (supports -A/-B/-C context, -n line numbers, head_limit), "files_with_matches" shows file paths (supports head_limit), "count" shows match counts (supports head_limit). Defaults to "files_with_matches".",
            "enum": [
              "content",
              "files_with_matches",
              "count",
            ],
            "type": "string",
          },
          "path": {
            "description": "File or directory to search in (rg PATH), absolute or relative to the working directory. Defaults to the working directory.",
            "type": "string",
          },
          "pattern": {
            "description": "The regular expression pattern to search for in file contents (ripgrep syntax)",
            "minLength": 1,
            "type": "string",
          },
          "type": {
            "description": "File type to search (rg --type). Common types: js, ts, py, rust, go, java, etc. More efficient than glob for standard file types.",
            "type": "string",
          },
        },
        "required": [
          "pattern",
        ],
        "type": "object",
      }
    `);
  });

  it("accepts Claude Code's field names", () => {
    const call = prepare({
      pattern: "foo",
      path: "src",
      glob: "*.ts",
      type: "ts",
      output_mode: "content",
      "-i": true,
      "-n": false,
      "-A": 1,
      "-B": 2,
      "-C": 3,
      context: 3,
      head_limit: 10,
      offset: 5,
      multiline: true,
    });
    expect(call.ok).toBe(true);
  });

  it("refuses invalid input with a message naming the field", () => {
    const badMode = prepare({ pattern: "foo", output_mode: "lines" });
    expect(badMode.ok).toBe(false);
    if (!badMode.ok) expect(badMode.result.content).toContain("output_mode");
    expect(prepare({ output_mode: "content" }).ok).toBe(false);
    expect(prepare({ pattern: "foo", "-A": -1 }).ok).toBe(false);
    expect(prepare({ pattern: "foo", head_limit: 1.5 }).ok).toBe(false);
    expect(prepare({ pattern: "foo", include: "*.ts" }).ok).toBe(false);
  });
});
