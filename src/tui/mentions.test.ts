import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { attachMentions, findMentions } from "./mentions.js";

describe("@path mentions", () => {
  it("finds each mention once, at the start of a word, without the sentence's punctuation", () => {
    expect(findMentions('see @src/a.ts, then @"my notes.md" and @src/a.ts. mail me@host.org (@b)')).toEqual([
      "src/a.ts",
      "my notes.md",
    ]);
    expect(findMentions("@README.md")).toEqual(["README.md"]);
  });

  it("attaches a file as Read gives it, a folder as a listing, and leaves unknown names as text", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-mention-"));
    mkdirSync(join(cwd, "src"));
    writeFileSync(join(cwd, "src", "a.ts"), "const a = 1;\nexport default a;\n");
    writeFileSync(join(cwd, "src", "b.ts"), "");
    const { content, attached, problems } = await attachMentions("explain @src/a.ts and @src to @someone", cwd);
    expect(attached).toEqual(["src/a.ts", "src"]);
    expect(problems).toEqual([]);
    expect(content).toEqual([
      { type: "text", text: "explain @src/a.ts and @src to @someone" },
      { type: "text", text: "Contents of src/a.ts (attached with @src/a.ts):" },
      { type: "text", text: expect.stringMatching(/1\tconst a = 1;\n\s*2\texport default a;/) as unknown as string },
      { type: "text", text: "Listing of the folder src/ (attached with @src):\na.ts\nb.ts" },
    ]);
    expect(await attachMentions("ask @someone", cwd)).toEqual({ content: "ask @someone", attached: [], problems: [] });
  });

  it("refuses a binary file with Read's reason, and sends only the head of a long file", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "gyre-mention-"));
    writeFileSync(join(cwd, "blob.bin"), Buffer.from([0, 1, 2, 0, 255, 0, 3]));
    writeFileSync(join(cwd, "long.txt"), Array.from({ length: 5000 }, (_, i) => `line ${i + 1}`).join("\n"));
    const binary = await attachMentions("what is @blob.bin", cwd);
    expect(binary.attached).toEqual([]);
    expect(binary.problems[0]).toMatch(/^@blob\.bin: .*binary/);
    expect(JSON.stringify(binary.content)).toContain("was not attached");
    const long = await attachMentions("read @long.txt", cwd);
    const text = JSON.stringify(long.content);
    expect(text).toContain("line 2000");
    expect(text).not.toContain("line 2001\\n");
    expect(text).toContain("Showing lines 1-2000; the file has more lines. Call Read with offset=2001 to continue.");
  });
});

describe("which mentions may be attached", () => {
  it("keeps denied files out, and files a command file names outside the project unless typed", async () => {
    const { mentionGate } = await import("./mention-gate.js");
    const cwd = mkdtempSync(join(tmpdir(), "gyre-mention-gate-"));
    const outside = mkdtempSync(join(tmpdir(), "gyre-mention-outside-"));
    mkdirSync(join(cwd, ".gyre"));
    writeFileSync(join(cwd, ".gyre", "settings.json"), JSON.stringify({ permissions: { deny: ["Read(./.env)"] } }));
    writeFileSync(join(cwd, ".env"), "TOKEN=hunter2\n");
    writeFileSync(join(cwd, "ok.txt"), "fine\n");
    writeFileSync(join(outside, "key"), "PRIVATE\n");
    const options = { settingSources: ["project" as const] };
    const prompt = `use @.env @ok.txt @${outside}/key`;

    const fromCommand = await attachMentions(prompt, cwd, { refuse: await mentionGate(options, cwd, []) });
    expect(fromCommand.attached).toEqual(["ok.txt"]);
    expect(fromCommand.problems).toEqual([
      expect.stringMatching(/^@\.env: Permission to use Read has been denied/),
      `@${outside}/key: named by the command file, not typed by you, and Read would have to ask for it`,
    ]);
    expect(JSON.stringify(fromCommand.content)).not.toMatch(/hunter2|PRIVATE/);

    const typed = await attachMentions(prompt, cwd, {
      refuse: await mentionGate(options, cwd, [".env", "ok.txt", `${outside}/key`]),
    });
    expect(typed.attached).toEqual(["ok.txt", join("..", outside.split("/").pop() ?? "", "key")]);
    expect(JSON.stringify(typed.content)).not.toContain("hunter2");
  });

  it("lists a mentioned folder without the names a Read rule denies", async () => {
    const { mentionGate } = await import("./mention-gate.js");
    const cwd = mkdtempSync(join(tmpdir(), "gyre-mention-gate-"));
    mkdirSync(join(cwd, "keys"));
    writeFileSync(join(cwd, ".env"), "TOKEN=hunter2\n");
    writeFileSync(join(cwd, "ok.txt"), "fine\n");
    writeFileSync(join(cwd, "keys", "id_rsa"), "PRIVATE\n");
    const refuse = await mentionGate({ disallowedTools: ["Read(./.env)", "Read(./keys/**)"] }, cwd, ["./"]);
    const { content, attached } = await attachMentions("look at @./", cwd, { refuse });
    expect(attached).toEqual(["."]);
    // The folder `keys` is named (its files are not); `.env` is not named at all.
    expect(content).toEqual([
      { type: "text", text: "look at @./" },
      { type: "text", text: "Listing of the folder ./ (attached with @.):\nkeys/\nok.txt" },
    ]);
  });
});
