import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toJsonSchema } from "../registry.js";
import { EditInput } from "./edit.js";
import { fileStates } from "./file-state.js";
import { type FileToolHarness, fileToolHarness } from "./file-state.test-harness.js";

let h: FileToolHarness;
beforeEach(() => {
  h = fileToolHarness();
});
afterEach(() => h.cleanup());

/** Create a file and Read it, as the model must before editing. */
async function readFile(name: string, content: string | Buffer): Promise<string> {
  const path = join(h.dir, name);
  writeFileSync(path, content);
  const read = await h.call("Read", { file_path: path });
  expect(read.isError).toBeFalsy();
  return path;
}

describe("Edit schema", () => {
  it("is pinned as the model sees it", () => {
    expect(toJsonSchema(EditInput)).toMatchInlineSnapshot(`
      {
        "properties": {
          "file_path": {
            "description": "The absolute path to the file to modify",
            "type": "string",
          },
          "new_string": {
            "description": "The text to replace it with (must be different from old_string)",
            "type": "string",
          },
          "old_string": {
            "description": "The text to replace",
            "type": "string",
          },
          "replace_all": {
            "default": false,
            "description": "Replace all occurrences of old_string (default false)",
            "type": "boolean",
          },
        },
        "required": [
          "file_path",
          "old_string",
          "new_string",
        ],
        "type": "object",
      }
    `);
  });

  it("accepts and rejects inputs", async () => {
    expect(EditInput.parse({ file_path: "/a", old_string: "x", new_string: "y" }).replace_all).toBe(false);
    expect(EditInput.safeParse({ file_path: "/a", old_string: "x", new_string: "y", replace_all: true }).success).toBe(
      true,
    );
    expect(EditInput.safeParse({ file_path: "/a", old_string: "x" }).success).toBe(false);
    expect(EditInput.safeParse({ file_path: "/a", old_string: "x", new_string: "y", replace_all: "yes" }).success).toBe(
      false,
    );
    const result = await h.call("Edit", { file_path: "/a", new_string: 1 });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("- old_string:");
    expect(result.content).toContain("- new_string:");
  });
});

describe("Edit rules", () => {
  it("requires a Read first", async () => {
    const path = join(h.dir, "a.txt");
    writeFileSync(path, "a\n");
    const result = await h.call("Edit", { file_path: path, old_string: "a", new_string: "b" });
    expect(result.content).toBe(`Error: File has not been read yet: ${path}. Read it first before writing to it.`);
  });

  it("refuses when the file changed on disk after the read", async () => {
    const path = await readFile("a.txt", "a\n");
    writeFileSync(path, "a and more\n");
    const result = await h.call("Edit", { file_path: path, old_string: "a", new_string: "b" });
    expect(result.content).toContain("File has been modified since it was read");
    expect(readFileSync(path, "utf8")).toBe("a and more\n");
  });

  it("works after reading only part of the file", async () => {
    const path = join(h.dir, "long.txt");
    writeFileSync(path, "1\n2\n3\n4\n");
    await h.call("Read", { file_path: path, offset: 3, limit: 1 });
    expect((await h.call("Edit", { file_path: path, old_string: "3", new_string: "three" })).isError).toBeFalsy();
    expect(readFileSync(path, "utf8")).toBe("1\n2\nthree\n4\n");
  });

  it("refuses identical strings", async () => {
    const path = await readFile("a.txt", "a\n");
    const result = await h.call("Edit", { file_path: path, old_string: "a", new_string: "a" });
    expect(result.content).toBe("Error: No changes to make: old_string and new_string are exactly the same.");
  });

  it("tells no match apart from several matches", async () => {
    const path = await readFile("a.txt", "foo\nbar foo\nfoo\n");
    const none = await h.call("Edit", { file_path: path, old_string: "baz", new_string: "x" });
    expect(none.isError).toBe(true);
    expect(none.content).toContain("String to replace not found in file");
    expect(none.content).toContain("\nString: baz");
    const many = await h.call("Edit", { file_path: path, old_string: "foo", new_string: "x" });
    expect(many.isError).toBe(true);
    expect(many.content).toContain("Found 3 matches of the string to replace, but replace_all is false.");
    expect(many.content).toContain("provide more context");
    expect(readFileSync(path, "utf8")).toBe("foo\nbar foo\nfoo\n");
  });

  it("replaces every occurrence with replace_all", async () => {
    const path = await readFile("a.txt", "foo\nbar foo\nfoo\n");
    const text = await h.text("Edit", {
      file_path: path,
      old_string: "foo",
      new_string: "qux",
      replace_all: true,
    });
    expect(text).toBe(
      `The file ${path} has been updated. All 3 occurrences of old_string were replaced with new_string.`,
    );
    expect(readFileSync(path, "utf8")).toBe("qux\nbar qux\nqux\n");
  });

  it("replaces literally ($& in new_string is text)", async () => {
    const path = await readFile("a.txt", "price\n");
    await h.call("Edit", { file_path: path, old_string: "price", new_string: "$& = $1" });
    expect(readFileSync(path, "utf8")).toBe("$& = $1\n");
  });

  it("refuses a missing file with a suggestion, and a directory", async () => {
    writeFileSync(join(h.dir, "index.ts"), "x");
    const missing = await h.call("Edit", {
      file_path: join(h.dir, "index.js"),
      old_string: "a",
      new_string: "b",
    });
    expect(missing.content).toContain(`Did you mean "${join(h.dir, "index.ts")}"?`);
    mkdirSync(join(h.dir, "folder"));
    const folder = await h.call("Edit", {
      file_path: join(h.dir, "folder"),
      old_string: "a",
      new_string: "b",
    });
    expect(folder.content).toContain("is a directory, not a file");
  });

  it("refuses a relative path", async () => {
    const result = await h.call("Edit", { file_path: "./a.txt", old_string: "a", new_string: "b" });
    expect(result.content).toContain('"./a.txt" is relative');
  });

  it("creates a new file from an empty old_string, but not over an existing one", async () => {
    const path = join(h.dir, "new", "file.txt");
    expect(await h.text("Edit", { file_path: path, old_string: "", new_string: "hi\n" })).toBe(
      `File created successfully at: ${path}`,
    );
    expect(readFileSync(path, "utf8")).toBe("hi\n");
    const again = await h.call("Edit", { file_path: path, old_string: "", new_string: "other" });
    expect(again.content).toContain("Cannot create new file - file already exists");
  });
});

describe("Edit keeps the file's format", () => {
  it("matches LF text against a CRLF file and writes CRLF back", async () => {
    const path = await readFile("crlf.txt", "one\r\ntwo\r\nthree\r\n");
    await h.call("Edit", { file_path: path, old_string: "one\ntwo", new_string: "1\n2\n2.5" });
    expect(readFileSync(path, "utf8")).toBe("1\r\n2\r\n2.5\r\nthree\r\n");
  });

  it("keeps a UTF-8 BOM", async () => {
    const path = await readFile("bom.txt", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("héllo\n")]));
    await h.call("Edit", { file_path: path, old_string: "héllo", new_string: "wörld" });
    expect(readFileSync(path)).toEqual(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("wörld\n")]));
  });

  it("keeps Latin-1 and refuses characters it cannot hold", async () => {
    const path = await readFile("latin.txt", Buffer.from("caf\xe9 cr\xe8me\n", "latin1"));
    await h.call("Edit", { file_path: path, old_string: "crème", new_string: "brûlée" });
    expect(readFileSync(path)).toEqual(Buffer.from("caf\xe9 br\xfbl\xe9e\n", "latin1"));
    const emoji = await h.call("Edit", { file_path: path, old_string: "café", new_string: "☕" });
    expect(emoji.isError).toBe(true);
    expect(emoji.content).toContain('cannot hold the character "☕" (U+2615)');
    expect(readFileSync(path)).toEqual(Buffer.from("caf\xe9 br\xfbl\xe9e\n", "latin1"));
  });

  it("keeps UTF-16LE with BOM", async () => {
    const bom = Buffer.from([0xff, 0xfe]);
    const path = await readFile("u16.txt", Buffer.concat([bom, Buffer.from("a = 1\r\n", "utf16le")]));
    await h.call("Edit", { file_path: path, old_string: "1", new_string: "2" });
    expect(readFileSync(path)).toEqual(Buffer.concat([bom, Buffer.from("a = 2\r\n", "utf16le")]));
  });

  it("keeps a missing final newline, and a present one", async () => {
    const bare = await readFile("bare.txt", "a\nb");
    await h.call("Edit", { file_path: bare, old_string: "b", new_string: "c" });
    expect(readFileSync(bare, "utf8")).toBe("a\nc");
    const ended = await readFile("ended.txt", "a\nb\n");
    await h.call("Edit", { file_path: ended, old_string: "b", new_string: "c" });
    expect(readFileSync(ended, "utf8")).toBe("a\nc\n");
  });

  it("refuses a binary file", async () => {
    const path = join(h.dir, "blob.bin");
    writeFileSync(path, Buffer.from([0x41, 0, 0x42]));
    // Read refuses binary files, so record the read-state directly.
    const stats = statSync(path);
    fileStates(h.session).set(path, { mtimeMs: stats.mtimeMs, size: stats.size });
    const result = await h.call("Edit", { file_path: path, old_string: "A", new_string: "B" });
    expect(result.content).toContain("is a binary file");
  });
});

describe("Edit result", () => {
  it("shows the edited region with line numbers and context", async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    const path = await readFile("ctx.txt", `${lines.join("\n")}\n`);
    const text = await h.text("Edit", {
      file_path: path,
      old_string: "line 10\n",
      new_string: "line 10\nnew A\nnew B\n",
    });
    expect(text).toBe(
      `The file ${path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n` +
        [
          "6\tline 6",
          "7\tline 7",
          "8\tline 8",
          "9\tline 9",
          "10\tline 10",
          "11\tnew A",
          "12\tnew B",
          "13\tline 11",
          "14\tline 12",
          "15\tline 13",
          "16\tline 14",
          "17\tline 15",
        ].join("\n"),
    );
  });

  it("stops the snippet at the file's ends", async () => {
    const path = await readFile("small.txt", "a\nb\n");
    const text = await h.text("Edit", { file_path: path, old_string: "a", new_string: "A" });
    expect(text.split("\n").slice(1)).toEqual(["1\tA", "2\tb"]);
  });

  it("lets a second Edit follow the first without another Read", async () => {
    const path = await readFile("twice.txt", "x y\n");
    await h.call("Edit", { file_path: path, old_string: "x", new_string: "1" });
    expect((await h.call("Edit", { file_path: path, old_string: "y", new_string: "2" })).isError).toBeFalsy();
    expect(readFileSync(path, "utf8")).toBe("1 2\n");
  });
});
