import { mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toJsonSchema } from "../registry.js";
import { type FileToolHarness, fileToolHarness } from "./file-state.test-harness.js";
import { countLines, WriteInput } from "./write.js";

let h: FileToolHarness;
beforeEach(() => {
  h = fileToolHarness();
});
afterEach(() => h.cleanup());

function file(name: string, content: string | Buffer): string {
  const path = join(h.dir, name);
  writeFileSync(path, content);
  return path;
}

describe("Write schema", () => {
  it("is pinned as the model sees it", () => {
    expect(toJsonSchema(WriteInput)).toMatchInlineSnapshot(`
      {
        "properties": {
          "content": {
            "description": "The content to write to the file",
            "type": "string",
          },
          "file_path": {
            "description": "The absolute path to the file to write (must be absolute, not relative)",
            "type": "string",
          },
        },
        "required": [
          "file_path",
          "content",
        ],
        "type": "object",
      }
    `);
  });

  it("accepts and rejects inputs", async () => {
    expect(WriteInput.safeParse({ file_path: "/a", content: "" }).success).toBe(true);
    expect(WriteInput.safeParse({ file_path: "/a" }).success).toBe(false);
    expect(WriteInput.safeParse({ content: "x" }).success).toBe(false);
    expect(WriteInput.safeParse({ file_path: "/a", content: 5 }).success).toBe(false);
    const result = await h.call("Write", { file_path: join(h.dir, "a.txt") });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("- content:");
  });
});

describe("Write", () => {
  it("creates a new file and its folders without a read", async () => {
    const path = join(h.dir, "deep", "er", "new.txt");
    expect(await h.text("Write", { file_path: path, content: "hello\n" })).toBe(
      `File created successfully at: ${path}. Wrote 1 line.`,
    );
    expect(readFileSync(path, "utf8")).toBe("hello\n");
  });

  it("refuses to overwrite a file that was not read", async () => {
    const path = file("old.txt", "old\n");
    const result = await h.call("Write", { file_path: path, content: "new\n" });
    expect(result.isError).toBe(true);
    expect(result.content).toBe(`Error: File has not been read yet: ${path}. Read it first before writing to it.`);
    expect(readFileSync(path, "utf8")).toBe("old\n");
  });

  it("overwrites a file that was read", async () => {
    const path = file("old.txt", "old\n");
    await h.call("Read", { file_path: path });
    expect(await h.text("Write", { file_path: path, content: "new\nlines\nhere" })).toBe(
      `The file ${path} has been updated successfully. Wrote 3 lines.`,
    );
    expect(readFileSync(path, "utf8")).toBe("new\nlines\nhere");
  });

  it("says how many lines it wrote, in its result and its data", async () => {
    const path = join(h.dir, "counted.txt");
    const result = await h.call("Write", { file_path: path, content: "one\r\ntwo\n\nfour\n" });
    expect(result.content).toBe(`File created successfully at: ${path}. Wrote 4 lines.`);
    expect(result.data).toMatchObject({ type: "create", lines: 4 });
    expect(countLines("")).toBe(0);
    expect(countLines("a")).toBe(1);
    expect(countLines("a\nb")).toBe(2);
    expect(countLines("a\nb\n")).toBe(2);
    expect(countLines("\n")).toBe(1);
  });

  it("refuses when the file changed on disk after the read", async () => {
    const path = file("old.txt", "old\n");
    await h.call("Read", { file_path: path });
    writeFileSync(path, "changed by someone else\n");
    const result = await h.call("Write", { file_path: path, content: "new\n" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("File has been modified since it was read");
    expect(result.content).toContain("Read it again");
    expect(readFileSync(path, "utf8")).toBe("changed by someone else\n");
  });

  it("refuses a same-size change (the bytes are compared, not just the size)", async () => {
    const path = file("old.txt", "old\n");
    await h.call("Read", { file_path: path });
    writeFileSync(path, "OLD\n");
    const later = new Date(statSync(path).mtimeMs + 60_000);
    utimesSync(path, later, later);
    const result = await h.call("Write", { file_path: path, content: "new\n" });
    expect(result.content).toContain("File has been modified since it was read");
  });

  it("allows a file that was only touched (same bytes, new mtime)", async () => {
    const path = file("old.txt", "old\n");
    await h.call("Read", { file_path: path });
    const later = new Date(statSync(path).mtimeMs + 60_000);
    utimesSync(path, later, later);
    expect((await h.call("Write", { file_path: path, content: "new\n" })).isError).toBeFalsy();
  });

  it("lets an Edit follow a Write without another Read", async () => {
    const path = join(h.dir, "fresh.txt");
    await h.call("Write", { file_path: path, content: "one two\n" });
    await h.call("Write", { file_path: path, content: "one two three\n" });
    const edit = await h.call("Edit", { file_path: path, old_string: "two", new_string: "2" });
    expect(edit.isError).toBeFalsy();
    expect(readFileSync(path, "utf8")).toBe("one 2 three\n");
  });

  it("keeps an existing file's CRLF line endings and Latin-1 encoding", async () => {
    const crlf = file("crlf.txt", "a\r\nb\r\n");
    await h.call("Read", { file_path: crlf });
    await h.call("Write", { file_path: crlf, content: "x\ny\n" });
    expect(readFileSync(crlf, "utf8")).toBe("x\r\ny\r\n");
    const latin = file("latin.txt", Buffer.from("caf\xe9\n", "latin1"));
    await h.call("Read", { file_path: latin });
    await h.call("Write", { file_path: latin, content: "thé “chaud”\n" });
    expect(readFileSync(latin)).toEqual(Buffer.from("th\xe9 \x93chaud\x94\n", "latin1"));
  });

  it("saves as UTF-8, and says so, when the file's encoding cannot hold the content", async () => {
    const latin = file("latin.txt", Buffer.from("caf\xe9\n", "latin1"));
    await h.call("Read", { file_path: latin });
    const text = await h.text("Write", { file_path: latin, content: "café ☕\n" });
    expect(text).toContain("It was saved as UTF-8");
    expect(readFileSync(latin, "utf8")).toBe("café ☕\n");
  });

  it("refuses a relative path and a directory", async () => {
    const relative = await h.call("Write", { file_path: "notes.txt", content: "x" });
    expect(relative.content).toContain('"notes.txt" is relative');
    mkdirSync(join(h.dir, "folder"));
    const folder = await h.call("Write", { file_path: join(h.dir, "folder"), content: "x" });
    expect(folder.isError).toBe(true);
    expect(folder.content).toContain("is a directory, not a file");
  });

  it("writes through a symlink to its target, tracked by the real path", async () => {
    const target = file("target.txt", "target\n");
    const link = join(h.dir, "link.txt");
    symlinkSync(target, link);
    await h.call("Read", { file_path: target });
    expect((await h.call("Write", { file_path: link, content: "via link\n" })).isError).toBeFalsy();
    expect(readFileSync(target, "utf8")).toBe("via link\n");
    expect(statSync(link).isFile() && readFileSync(link, "utf8")).toBe("via link\n");
  });

  it("says so when part of the folder path is a file", async () => {
    file("plain", "x");
    const result = await h.call("Write", { file_path: join(h.dir, "plain", "child.txt"), content: "y" });
    expect(result.content).toContain("part of its folder path is a file");
  });

  it("resolves .. in the path", async () => {
    mkdirSync(join(h.dir, "sub"));
    await h.call("Write", { file_path: join(h.dir, "sub", "..", "up.txt"), content: "up" });
    expect(readFileSync(join(h.dir, "up.txt"), "utf8")).toBe("up");
  });
});
