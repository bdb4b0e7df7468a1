import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SDKMessage } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, runQuery, toolResults, withMock } from "./helpers.js";

const anthropic = FORMATS[0];
/** A real 1×1 PNG, as Jupyter stores a plot: base64 under `image/png`. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/** A notebook as Jupyter saves one (nbformat 4.5, one-space indent, sources as lists of lines). */
function notebook(minor = 5) {
  const ids = minor >= 5;
  return {
    cells: [
      { cell_type: "markdown", ...(ids && { id: "intro" }), metadata: {}, source: ["# Tides\n", "A study."] },
      {
        cell_type: "code",
        ...(ids && { id: "load" }),
        execution_count: 1,
        metadata: {},
        outputs: [
          { name: "stdout", output_type: "stream", text: ["loaded 42 rows\n"] },
          {
            output_type: "display_data",
            data: { "image/png": PNG, "text/plain": ["<Figure size 640x480 with 1 Axes>"] },
            metadata: {},
          },
        ],
        source: ["rows = load()\n", "plot(rows)"],
      },
      {
        cell_type: "code",
        ...(ids && { id: "boom" }),
        execution_count: 2,
        metadata: {},
        outputs: [
          {
            output_type: "error",
            ename: "ZeroDivisionError",
            evalue: "division by zero",
            traceback: ["\u001b[0;31mZeroDivisionError\u001b[0m: division by zero"],
          },
        ],
        source: ["1 / 0"],
      },
    ],
    metadata: { kernelspec: { name: "python3" }, language_info: { name: "python" } },
    nbformat: 4,
    nbformat_minor: minor,
  };
}

function writeNotebook(minor = 5): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "gyre-notebook-"));
  const file = join(dir, "tides.ipynb");
  writeFileSync(file, `${JSON.stringify(notebook(minor), null, 1)}\n`);
  return { dir, file };
}

function textOf(messages: SDKMessage[], index: number): string {
  const content = toolResults(messages)[index]?.content;
  if (typeof content === "string") return content;
  return (content ?? []).map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("");
}

describe("notebooks through the loop", () => {
  it("Read shows every cell with its outputs, the plot as an image the model receives", async () => {
    const { dir, file } = writeNotebook();
    const script = { turns: [mockTurn.toolUse("Read", { file_path: file }), mockTurn.text("A plot of 42 rows.")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "what is in it?", {
        cwd: dir,
        tools: ["Read"],
        permissionMode: "bypassPermissions",
      });
      const result = toolResults(messages)[0];
      expect(result?.is_error).toBeUndefined();
      const shown = textOf(messages, 0);
      expect(shown).toContain('<cell id="intro"><cell_type>markdown</cell_type># Tides\nA study.</cell id="intro">');
      expect(shown).toContain('<cell id="load">rows = load()\nplot(rows)</cell id="load">');
      expect(shown).toContain("loaded 42 rows");
      expect(shown).toContain("<Figure size 640x480 with 1 Axes>");
      expect(shown).toContain("ZeroDivisionError: division by zero");
      expect(shown).not.toContain("\u001b[");
      const blocks = Array.isArray(result?.content) ? result.content : [];
      expect(blocks.filter((block) => block.type === "image")).toEqual([
        { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
      ]);
      // The model got the image itself, in the provider's wire format.
      expect(JSON.stringify(server.requests[1]?.body)).toContain(PNG);
    });
  });

  it("NotebookEdit replaces, inserts and deletes cells of a notebook it read, writing valid nbformat", async () => {
    const { dir, file } = writeNotebook();
    const script = {
      turns: [
        mockTurn.toolUse("Read", { file_path: file }),
        mockTurn.toolUse("NotebookEdit", { notebook_path: file, cell_id: "load", new_source: "rows = load(limit=10)" }),
        mockTurn.toolUse("NotebookEdit", {
          notebook_path: file,
          cell_id: "intro",
          new_source: "## Method\nWe count rows.",
          cell_type: "markdown",
          edit_mode: "insert",
        }),
        mockTurn.toolUse("NotebookEdit", { notebook_path: file, cell_id: "boom", new_source: "", edit_mode: "delete" }),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "edit it", {
        cwd: dir,
        tools: ["Read", "NotebookEdit"],
        permissionMode: "bypassPermissions",
      });
      expect(toolResults(messages).map((result) => result.is_error)).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      expect(textOf(messages, 1)).toBe("Updated cell load with rows = load(limit=10)");
      expect(textOf(messages, 3)).toBe("Deleted cell boom");
      const text = readFileSync(file, "utf8");
      expect(text).toMatch(/^\{\n "cells": \[/);
      const saved = JSON.parse(text) as ReturnType<typeof notebook>;
      expect(saved.cells.map((cell) => cell.cell_type)).toEqual(["markdown", "markdown", "code"]);
      expect(saved.cells[0]?.id).toBe("intro");
      const inserted = saved.cells[1]!;
      expect(inserted.source).toEqual(["## Method\n", "We count rows."]);
      expect(inserted.id).toMatch(/^[0-9a-f]{8}$/);
      expect(textOf(messages, 2)).toBe(`Inserted cell ${inserted.id} with ## Method\nWe count rows.`);
      // A replaced code cell loses the outputs of its old source.
      expect(saved.cells[2]).toMatchObject({
        id: "load",
        source: ["rows = load(limit=10)"],
        outputs: [],
        execution_count: null,
      });
      expect(saved.metadata).toEqual(notebook().metadata);
      // Written by replacing the file whole: no temporary file left beside it.
      expect(readdirSync(dir)).toEqual(["tides.ipynb"]);
      const result = messages.find(
        (m) => m.type === "user" && JSON.stringify(m.tool_use_result).includes("old_source"),
      );
      expect(JSON.stringify(result?.type === "user" && result.tool_use_result)).toContain('"edit_mode":"replace"');
    });
  });

  it("NotebookEdit refuses a notebook not read, or changed since it was read", async () => {
    const { dir, file } = writeNotebook();
    const before = readFileSync(file, "utf8");
    const script = {
      turns: [
        mockTurn.toolUse("NotebookEdit", { notebook_path: file, cell_id: "load", new_source: "x = 1" }),
        mockTurn.toolUse("Read", { file_path: file }),
        mockTurn.toolUse("Bash", { command: `printf ' ' >> ${JSON.stringify(file)}` }),
        mockTurn.toolUse("NotebookEdit", { notebook_path: file, cell_id: "load", new_source: "x = 1" }),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "edit it", {
        cwd: dir,
        tools: ["Read", "NotebookEdit", "Bash"],
        permissionMode: "bypassPermissions",
      });
      const results = toolResults(messages);
      expect(results[0]?.is_error).toBe(true);
      expect(textOf(messages, 0)).toContain("has not been read yet");
      expect(results[3]?.is_error).toBe(true);
      expect(textOf(messages, 3)).toContain("modified since it was read");
      expect(readFileSync(file, "utf8")).toBe(`${before} `);
    });
  });

  it("addresses cells of a notebook without ids as cell-<index>, and inserts without giving one", async () => {
    const { dir, file } = writeNotebook(4);
    const script = {
      turns: [
        mockTurn.toolUse("Read", { file_path: file }),
        mockTurn.toolUse("NotebookEdit", {
          notebook_path: file,
          cell_id: "cell-1",
          new_source: "print('hi')",
          cell_type: "code",
          edit_mode: "insert",
        }),
        mockTurn.toolUse("NotebookEdit", { notebook_path: file, cell_id: "cell-9", new_source: "x" }),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "edit it", {
        cwd: dir,
        tools: ["Read", "NotebookEdit"],
        permissionMode: "bypassPermissions",
      });
      expect(textOf(messages, 0)).toContain('<cell id="cell-1">rows = load()');
      expect(textOf(messages, 1)).toBe("Inserted cell cell-2 with print('hi')");
      expect(toolResults(messages)[2]?.is_error).toBe(true);
      expect(textOf(messages, 2)).toContain('Cell with ID "cell-9" not found');
      const saved = JSON.parse(readFileSync(file, "utf8")) as { cells: Array<Record<string, unknown>> };
      expect(saved.cells[2]).toEqual({
        cell_type: "code",
        metadata: {},
        source: ["print('hi')"],
        execution_count: null,
        outputs: [],
      });
    });
  });
});
