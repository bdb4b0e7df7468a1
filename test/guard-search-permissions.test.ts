// Issue 26, finding 1: a Read deny rule governs every tool that reports file content or names.
// Each leak the review found is replayed through the loop (a scripted model makes the calls,
// real ripgrep and the JavaScript backend search real files), and the tool results must hold
// nothing of the denied files while the allowed ones are still found.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PermissionResult, QueryOptions } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { globTool } from "../src/tools/builtin/glob-tool.js";
import { grepTool } from "../src/tools/builtin/grep/index.js";
import { readTool } from "../src/tools/builtin/read.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

const BACKENDS = ["ripgrep", "js"] as const;
const DENY = ["Read(./.env)", "Read(./sub/**)"];
/** What the denied files hold and are called: none of it may reach the model. */
const DENIED = ["env-value", "sub-value", "deep-value", ".env", "sub/"];

let root: string;
let ws: string;
let outside: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-guard-search-")));
  ws = path.join(root, "ws");
  outside = path.join(root, "outside");
  mkdirSync(path.join(ws, "sub", "deep"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(ws, ".env"), "API=1\nSECRET=env-value\n");
  writeFileSync(path.join(ws, "sub", "key.txt"), "SECRET=sub-value\nsecret=sub-value lower\n");
  writeFileSync(path.join(ws, "sub", "deep", "k.txt"), "before\nSECRET=deep-value\nafter\n");
  writeFileSync(path.join(ws, "notes.txt"), "one\nthe SECRET is elsewhere\ntwo\n");
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

async function replay(
  backend: (typeof BACKENDS)[number],
  calls: Array<[string, Record<string, unknown>]>,
  options: QueryOptions = {},
) {
  const turns = [...calls.map(([name, input]) => mockTurn.toolUse(name, input)), mockTurn.text("done")];
  return withMock({ turns }, async (server) => {
    const messages = await runQuery(server, FORMATS[0], "go", {
      cwd: ws,
      tools: [grepTool({ backend }), globTool(), readTool()],
      disallowedTools: DENY,
      ...options,
    });
    expect(resultOf(messages).subtype).toBe("success");
    return toolResults(messages).map((result) => ({ error: result.is_error === true, text: textOf(result.content) }));
  });
}

function textOf(content: unknown): string {
  return typeof content === "string" ? content : JSON.stringify(content);
}

function expectNothingDenied(text: string): void {
  for (const leak of DENIED) expect(text).not.toContain(leak);
}

const grep = (input: Record<string, unknown>): [string, Record<string, unknown>] => ["Grep", input];

describe.each(BACKENDS)("Grep leaves out what Read rules deny (%s)", (backend) => {
  it("in every output mode, with any path or glob: only the allowed file is found", async () => {
    const results = await replay(backend, [
      grep({ pattern: "SECRET", output_mode: "content" }),
      grep({ pattern: "SECRET", path: ".", glob: ".env", output_mode: "content" }),
      grep({ pattern: "secret", path: ws, glob: "**", "-i": true, output_mode: "content" }),
      grep({ pattern: "SECRET", output_mode: "count" }),
      grep({ pattern: "SECRET", glob: "*", "-i": true }),
      grep({ pattern: "SECRET", path: "sub/..", output_mode: "files_with_matches", glob: "{.env,**}" }),
    ]);
    for (const result of results) expectNothingDenied(result.text);
    expect(results.map((result) => result.error)).toEqual([false, false, false, false, false, false]);
    expect(results[0]?.text).toBe("notes.txt:2:the SECRET is elsewhere");
    expect(results[1]?.text).toBe("No matches found");
    expect(results[2]?.text).toBe("notes.txt:2:the SECRET is elsewhere");
    expect(results[3]?.text).toBe("notes.txt:1\n\nFound 1 total occurrence across 1 file.");
    expect(results[4]?.text).toBe("Found 1 file\nnotes.txt");
    expect(results[5]?.text).toBe("Found 1 file\nnotes.txt");
  });

  it("with context lines, multiline patterns and paging: totals and pages count only allowed files", async () => {
    const results = await replay(backend, [
      grep({ pattern: "SECRET", output_mode: "content", "-C": 2 }),
      grep({ pattern: "before\\nSECRET", multiline: true, output_mode: "content" }),
      grep({ pattern: "SECRET", output_mode: "content", head_limit: 1, offset: 1 }),
      grep({ pattern: "e", output_mode: "files_with_matches", head_limit: 1 }),
      grep({ pattern: "e", output_mode: "count", head_limit: 1 }),
    ]);
    for (const result of results) expectNothingDenied(result.text);
    expect(results[0]?.text).toBe("notes.txt-1-one\nnotes.txt:2:the SECRET is elsewhere\nnotes.txt-3-two");
    expect(results[1]?.text).toBe("No matches found");
    // One allowed line: offset 1 skips it, and the note does not count the denied files' lines.
    expect(results[2]?.text).toBe("[Showing no lines of 1 (head_limit: 1, offset: 1).]");
    expect(results[3]?.text).toBe("Found 1 file\nnotes.txt");
    expect(results[4]?.text).toBe("notes.txt:2\n\nFound 2 total occurrences across 1 file.");
  });

  it("a search root swapped for a link after the permission check reports nothing from elsewhere", async () => {
    mkdirSync(path.join(outside, "public"));
    mkdirSync(path.join(outside, "private"));
    writeFileSync(path.join(outside, "public", "pub.txt"), "SECRET public\n");
    writeFileSync(path.join(outside, "private", "priv.txt"), "SECRET private-value\n");
    const door = path.join(outside, "door");
    symlinkSync(path.join(outside, "public"), door);
    // A search outside the workspace asks; while it is being asked, the folder changes.
    const results = await replay(backend, [grep({ pattern: "SECRET", path: door, output_mode: "content" })], {
      canUseTool: async () => {
        unlinkSync(door);
        symlinkSync(path.join(outside, "private"), door);
        return { behavior: "allow" };
      },
    });
    expect(results[0]?.text).not.toContain("private-value");
    expect(results[0]?.text).toBe("No matches found");
  });
});

describe("Glob leaves out what Read rules deny", () => {
  it("lists no denied file, in or below a denied folder, whatever the pattern", async () => {
    const results = await replay("js", [
      ["Glob", { pattern: "**/.env" }],
      ["Glob", { pattern: ".*" }],
      ["Glob", { pattern: "**/*.txt" }],
      ["Glob", { pattern: "**/*", path: "." }],
      ["Glob", { pattern: "*/deep/*" }],
    ]);
    for (const result of results) expectNothingDenied(result.text);
    expect(results.map((result) => result.text)).toEqual([
      "No files found",
      "No files found",
      "notes.txt",
      "notes.txt",
      "No files found",
    ]);
  });
});

describe("Read refuses a file that the rules deny once it is opened", () => {
  /** Read of a link to a public file, re-pointed at `.env` while the approver is asked. */
  async function readRepointedDoor(answer: (door: string) => PermissionResult) {
    writeFileSync(path.join(outside, "public.txt"), "nothing here\n");
    const door = path.join(outside, "door.txt");
    symlinkSync(path.join(outside, "public.txt"), door);
    const results = await replay("js", [["Read", { file_path: door }]], {
      canUseTool: async () => {
        unlinkSync(door);
        symlinkSync(path.join(ws, ".env"), door);
        return answer(door);
      },
    });
    expect(results[0]?.text).not.toContain("env-value");
    return results[0];
  }

  it("a link re-pointed at a denied file after the check: Read opens the file that was approved", async () => {
    const result = await readRepointedDoor(() => ({ behavior: "allow" }));
    expect(result?.error).toBe(false);
    expect(result?.text).toContain("nothing here");
  });

  it("with no approved path (an approver changed the input), the rules judge the file Read opened", async () => {
    const result = await readRepointedDoor((door) => ({ behavior: "allow", updatedInput: { file_path: door } }));
    expect(result?.error).toBe(true);
    expect(result?.text).toMatch(/Permission to use Read has been denied/);
  });

  it("a file named like a denied folder is still read: the check judges it as the file it is", async () => {
    writeFileSync(path.join(ws, "sub2"), "plain file\n");
    const results = await replay("js", [["Read", { file_path: path.join(ws, "sub2") }]], {
      disallowedTools: [...DENY, "Read(./sub2/**)"],
    });
    expect(results[0]?.error).toBe(false);
    expect(results[0]?.text).toContain("plain file");
  });
});
