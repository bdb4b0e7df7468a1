import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toJsonSchema } from "../registry.js";
import { fileStates } from "./file-state.js";
import { type FileToolHarness, fileToolHarness } from "./file-state.test-harness.js";
import { ReadInput } from "./read.js";

let h: FileToolHarness;
beforeEach(() => {
  h = fileToolHarness();
});
afterEach(() => h.cleanup());

const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

function file(name: string, content: string | Buffer): string {
  const path = join(h.dir, name);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
  return path;
}

describe("Read schema", () => {
  it("is pinned as the model sees it", () => {
    expect(toJsonSchema(ReadInput)).toMatchInlineSnapshot(`
      {
        "properties": {
          "file_path": {
            "description": "The absolute path to the file to read",
            "type": "string",
          },
          "limit": {
            "description": "The number of lines to read. Only provide if the file is too large to read at once.",
            "minimum": 1,
            "type": "number",
          },
          "offset": {
            "description": "The line number to start reading from. Only provide if the file is too large to read at once",
            "minimum": 0,
            "type": "number",
          },
        },
        "required": [
          "file_path",
        ],
        "type": "object",
      }
    `);
  });

  it("accepts and rejects inputs", () => {
    expect(ReadInput.safeParse({ file_path: "/a" }).success).toBe(true);
    expect(ReadInput.safeParse({ file_path: "/a", offset: 10, limit: 5 }).success).toBe(true);
    expect(ReadInput.safeParse({ file_path: "/a", offset: 0 }).success).toBe(true);
    expect(ReadInput.safeParse({}).success).toBe(false);
    expect(ReadInput.safeParse({ file_path: 42 }).success).toBe(false);
    expect(ReadInput.safeParse({ file_path: "/a", offset: "10" }).success).toBe(false);
    expect(ReadInput.safeParse({ file_path: "/a", limit: 0 }).success).toBe(false);
    expect(ReadInput.safeParse({ file_path: "/a", offset: -1 }).success).toBe(false);
    expect(ReadInput.safeParse({ file_path: "/a", offset: 1.5 }).success).toBe(false);
  });

  it("turns missing and wrongly typed fields into an error result the model can act on", async () => {
    const missing = await h.call("Read", {});
    expect(missing.isError).toBe(true);
    expect(missing.content).toContain("InputValidationError: Read failed");
    expect(missing.content).toContain("- file_path:");
    const wrongType = await h.call("Read", { file_path: "/x", limit: "ten" });
    expect(wrongType.isError).toBe(true);
    expect(wrongType.content).toContain("- limit:");
  });
});

describe("Read text", () => {
  it("numbers lines cat -n style from 1 and records the read", async () => {
    const path = file("a.txt", "alpha\nbeta\n\ngamma");
    expect(await h.text("Read", { file_path: path })).toBe("1\talpha\n2\tbeta\n3\t\n4\tgamma");
    const state = fileStates(h.session).get(path);
    expect(state?.size).toBe(17);
    expect(state?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("reads from offset (1-based) for limit lines and says more lines follow", async () => {
    const path = file("n.txt", Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n"));
    const text = await h.text("Read", { file_path: path, offset: 3, limit: 2 });
    expect(text).toMatch(/^3\tline 3\n4\tline 4\n\n<system-reminder>Showing lines 3-4; /);
    expect(text).toContain("offset=5");
    expect(await h.text("Read", { file_path: path, offset: 9, limit: 2 })).toBe("9\tline 9\n10\tline 10");
  });

  it("reads at most 2000 lines by default", async () => {
    const path = file("many.txt", Array.from({ length: 2500 }, (_, i) => `${i + 1}`).join("\n"));
    const text = await h.text("Read", { file_path: path });
    expect(text).toContain("2000\t2000\n");
    expect(text).not.toContain("2001\t2001");
    expect(text).toContain("Call Read with offset=2001 to continue.");
  });

  it("stops at a line boundary when the output would be too large", async () => {
    const line = "x".repeat(199);
    const path = file("wide.txt", `${line}\n`.repeat(1000));
    const text = await h.text("Read", { file_path: path });
    // Each line costs 199 characters plus its number, a TAB and a newline.
    let fits = 0;
    for (let used = 0; used + line.length + String(fits + 1).length + 2 <= 100_000; fits++)
      used += line.length + String(fits + 1).length + 2;
    expect(text).toContain(`Output stopped after line ${fits} to stay under 100000 characters`);
    expect(text).toContain(`offset=${fits + 1}`);
    expect(text).toContain(`\n${fits}\t${line}\n`);
    expect(text).not.toContain(`\n${fits + 1}\t`);
    expect(text.length).toBeLessThan(100_300);
  });

  it("says when the offset is past the end", async () => {
    const path = file("short.txt", "one\ntwo\n");
    expect(await h.text("Read", { file_path: path, offset: 5 })).toBe(
      "<system-reminder>Warning: the file exists but is shorter than the provided offset (5). " +
        "The file has 3 lines.</system-reminder>",
    );
  });

  it("warns about an empty file instead of showing nothing", async () => {
    const path = file("empty.txt", "");
    const result = await h.call("Read", { file_path: path });
    expect(result.isError).toBeFalsy();
    expect(result.content).toBe(
      "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>",
    );
    expect(fileStates(h.session).has(path)).toBe(true);
  });

  it("cuts lines longer than 2000 characters and says so", async () => {
    const path = file("long.txt", `short\n${"é".repeat(5000)}\nend\n`);
    const text = await h.text("Read", { file_path: path });
    const lines = text.split("\n");
    expect(lines[1]).toBe(`2\t${"é".repeat(2000)}`);
    expect(lines[2]).toBe("3\tend");
    expect(text).toContain("Line 2 was longer than 2000 characters and cut");
  });

  it("numbers the empty line after a final newline, as Claude Code does", async () => {
    const lines = Array.from({ length: 26 }, (_, i) => `line ${i + 1}`);
    const path = file("26.txt", `${lines.join("\n")}\n`);
    const text = await h.text("Read", { file_path: path });
    expect(text.split("\n")).toHaveLength(27);
    expect(text.endsWith("\n26\tline 26\n27\t")).toBe(true);
    const unterminated = file("25.txt", lines.slice(0, 25).join("\n"));
    expect((await h.text("Read", { file_path: unterminated })).endsWith("\n25\tline 25")).toBe(true);
  });

  it("shows CRLF lines without the carriage return", async () => {
    const path = file("crlf.txt", "one\r\ntwo\r\n");
    expect(await h.text("Read", { file_path: path })).toBe("1\tone\n2\ttwo\n3\t");
  });

  it("decodes Latin-1, UTF-8 with BOM and UTF-16LE with BOM", async () => {
    const latin = file("latin.txt", Buffer.from("caf\xe9 \x93quoted\x94\n", "latin1"));
    const latinText = await h.text("Read", { file_path: latin });
    expect(latinText).toContain("1\tcafé “quoted”");
    expect(latinText).toContain("Latin-1 (Windows-1252) text");
    const bom = file("bom.txt", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("héllo\n")]));
    expect(await h.text("Read", { file_path: bom })).toBe("1\théllo\n2\t");
    const utf16 = file(
      "u16.txt",
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("ünï\r\ncode\r\n", "utf16le")]),
    );
    const utf16Text = await h.text("Read", { file_path: utf16 });
    expect(utf16Text).toMatch(/^1\tünï\n2\tcode\n/);
    expect(utf16Text).toContain("UTF-16LE with BOM");
  });
});

describe("Read paths", () => {
  it("refuses a relative path and names the absolute one", async () => {
    const result = await h.call("Read", { file_path: "src/a.ts" });
    expect(result.isError).toBe(true);
    expect(result.content).toContain('"src/a.ts" is relative');
    expect(result.content).toContain(join(h.dir, "src/a.ts"));
  });

  it("resolves .. segments", async () => {
    file("sub/x.txt", "x\n");
    const path = file("y.txt", "why\n");
    expect(await h.text("Read", { file_path: join(h.dir, "sub", "..", "y.txt") })).toBe("1\twhy\n2\t");
    expect(fileStates(h.session).has(path)).toBe(true);
  });

  it("follows symlinks and tracks the real path", async () => {
    const target = file("real/target.txt", "target\n");
    const link = join(h.dir, "link.txt");
    symlinkSync(target, link);
    expect(await h.text("Read", { file_path: link })).toBe("1\ttarget\n2\t");
    expect(fileStates(h.session).has(target)).toBe(true);
    expect(fileStates(h.session).has(link)).toBe(false);
  });

  it("refuses a directory", async () => {
    mkdirSync(join(h.dir, "folder"));
    const result = await h.call("Read", { file_path: join(h.dir, "folder") });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("is a directory, not a file");
  });

  it("refuses a named pipe instead of blocking on it", async () => {
    const fifo = join(h.dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    const result = await h.call("Read", { file_path: fifo });
    expect(result.isError).toBe(true);
    expect(result.content).toContain("is not a regular file");
  });

  it("suggests near names for a missing file", async () => {
    file("config.json", "{}");
    file("readme.md", "hi");
    const sameStem = await h.call("Read", { file_path: join(h.dir, "config.yaml") });
    expect(sameStem.isError).toBe(true);
    expect(sameStem.content).toContain(`File does not exist: ${join(h.dir, "config.yaml")}`);
    expect(sameStem.content).toContain(`Did you mean "${join(h.dir, "config.json")}"?`);
    const typo = await h.call("Read", { file_path: join(h.dir, "raedme.md") });
    expect(typo.content).toContain(`Did you mean "${join(h.dir, "readme.md")}"?`);
    const nothingClose = await h.call("Read", { file_path: join(h.dir, "zzzzzzzzzzzz.rs") });
    expect(nothingClose.content).not.toContain("Did you mean");
    const noFolder = await h.call("Read", { file_path: join(h.dir, "nope", "a.txt") });
    expect(noFolder.content).toContain(`Its folder "${join(h.dir, "nope")}" does not exist either.`);
  });

  it("reports a file it may not read (EACCES)", async () => {
    const path = file("secret.txt", "secret\n");
    chmodSync(path, 0o000);
    if (process.getuid?.() !== 0) {
      const result = await h.call("Read", { file_path: path });
      expect(result.isError).toBe(true);
      expect(result.content).toBe(`Error: Permission denied: cannot read ${path} (EACCES).`);
      return;
    }
    // Root reads anything, so drop the effective uid to "nobody" for the call. The folder
    // must be searchable by that user for the error to be about the file itself.
    chmodSync(h.dir, 0o755);
    process.seteuid!(65534);
    let result: Awaited<ReturnType<typeof h.call>>;
    try {
      result = await h.call("Read", { file_path: path });
    } finally {
      process.seteuid!(0);
    }
    expect(result.isError).toBe(true);
    expect(result.content).toBe(`Error: Permission denied: cannot read ${path} (EACCES).`);
    expect(fileStates(h.session).has(path)).toBe(false);
  });
});

describe("Read binary and images", () => {
  it("refuses a binary file", async () => {
    const path = file("blob.bin", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00]));
    const result = await h.call("Read", { file_path: path });
    expect(result.isError).toBe(true);
    expect(result.content).toContain(`Cannot read ${path} (10 bytes): it is binary, not text.`);
  });

  it("returns an image as a base64 image block", async () => {
    const path = file("dot.png", PNG_1X1);
    const result = await h.call("Read", { file_path: path });
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([
      {
        type: "image",
        source: { type: "base64", media_type: "image/png", data: PNG_1X1.toString("base64") },
      },
    ]);
    expect(fileStates(h.session).get(path)?.size).toBe(PNG_1X1.length);
  });

  it("takes the media type from the bytes, not the extension", async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);
    const result = await h.call("Read", { file_path: file("photo.png", jpeg) });
    expect(result.content).toMatchObject([{ type: "image", source: { media_type: "image/jpeg" } }]);
    const webp = Buffer.concat([Buffer.from("RIFF\x10\x00\x00\x00WEBPVP8 ", "latin1"), Buffer.alloc(8)]);
    const webpResult = await h.call("Read", { file_path: file("x.webp", webp) });
    expect(webpResult.content).toMatchObject([{ type: "image", source: { media_type: "image/webp" } }]);
  });

  it("refuses a corrupt image and one too large to send", async () => {
    const corrupt = await h.call("Read", { file_path: file("bad.png", Buffer.from([0, 1, 2, 3, 0, 0, 0])) });
    expect(corrupt.content).toContain("has an image extension (.png) but is not a valid");
    const big = Buffer.concat([PNG_1X1, Buffer.alloc(4 * 1024 * 1024)]);
    const tooLarge = await h.call("Read", { file_path: file("big.png", big) });
    expect(tooLarge.isError).toBe(true);
    expect(tooLarge.content).toContain("images up to 3.75 MB can be sent");
  });
});
