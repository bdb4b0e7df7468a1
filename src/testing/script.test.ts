import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isGyreError } from "../errors/index.js";
import { loadMockScript, MockScript, mockFault, mockTurn, parseMockScript } from "./index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gyre-mock-script-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function scriptFile(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

async function loadError(path: string): Promise<unknown> {
  return loadMockScript(path).catch((thrown: unknown) => thrown);
}

describe("loadMockScript", () => {
  it("loads and validates a JSON script", async () => {
    const script = {
      mode: "sequential",
      turns: [
        {
          content: [{ type: "tool_use", name: "Bash", input: { command: "ls" } }],
          faults: [{ type: "cut" }],
        },
        { content: [{ type: "text", text: "done" }], stopReason: "end_turn", usage: { input_tokens: 3 } },
      ],
    };
    expect(await loadMockScript(await scriptFile("ok.json", JSON.stringify(script)))).toEqual(script);
  });

  it("reports a missing file, bad JSON and schema errors as mock_script_error", async () => {
    const missing = await loadError(join(dir, "missing.json"));
    expect(isGyreError(missing, "mock_script_error")).toBe(true);
    expect(String((missing as Error).message)).toMatch(/cannot read script/);

    const badJson = await loadError(await scriptFile("bad.json", "{turns: ["));
    expect(isGyreError(badJson, "mock_script_error")).toBe(true);
    expect(String((badJson as Error).message)).toMatch(/not valid JSON/);

    const badShape = await loadError(await scriptFile("shape.json", '{"turns":[{"stopReason":"bored"}]}'));
    expect(isGyreError(badShape, "mock_script_error")).toBe(true);
    expect(String((badShape as Error).message)).toMatch(/stopReason/);
  });

  it("accepts every script of docs/testing.md, where the format is documented", async () => {
    const guide = await readFile(new URL("../../docs/testing.md", import.meta.url), "utf8");
    const scripts = [...guide.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => JSON.parse(match[1] ?? ""));
    expect(scripts.length).toBeGreaterThanOrEqual(3);
    for (const script of scripts) expect(parseMockScript(script).turns.length).toBeGreaterThan(0);
    // The first is the file format's example: three turns, the last cut mid-stream.
    expect(parseMockScript(scripts[0]).turns).toHaveLength(3);
  });

  it("refuses keys the format does not have, naming them, instead of answering nothing", () => {
    // `text` is not a turn's key (its answer is `content`): once, this gave an empty answer.
    expect(() => parseMockScript({ turns: [{ text: "hi" }] })).toThrow(
      /turns\[0\][\s\S]*"text"|"text"[\s\S]*turns\[0\]/,
    );
    expect(() => parseMockScript({ turns: [], mdoe: "sequential" })).toThrow(/mdoe/);
    expect(() => parseMockScript({ turns: [{ content: [{ type: "text", text: "a", bold: true }] }] })).toThrow(/bold/);
  });
});

describe("builders", () => {
  it("build turns and faults the schema accepts", () => {
    const script = {
      turns: [
        mockTurn.toolUse("Read", { file_path: "/a" }, { id: "t1", faults: [mockFault.rateLimit(1), mockFault.cut(2)] }),
        mockTurn.of([{ type: "thinking", thinking: "hm" }], { stopReason: "max_tokens" }),
        mockTurn.text("bye", {
          faults: [mockFault.overloaded(), mockFault.http(500, "x"), mockFault.delay(3)],
        }),
      ],
    };
    expect(parseMockScript(script)).toEqual(script);
    expect(script.turns[0]).toEqual({
      faults: [
        { type: "http", status: 429, retryAfter: 1 },
        { type: "cut", afterChunks: 2 },
      ],
      content: [{ type: "tool_use", name: "Read", input: { file_path: "/a" }, id: "t1" }],
    });
  });

  it("reject HTTP fault statuses that are not errors", () => {
    expect(MockScript.safeParse({ turns: [{ faults: [{ type: "http", status: 200 }] }] }).success).toBe(false);
  });
});
