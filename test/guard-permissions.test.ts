// The adversarial review's permission findings (issue 8, items 1-4 and 8), each replayed
// through the loop: a scripted model makes the call, real bash runs what is allowed, and
// the file system says whether the guard held.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { QueryOptions } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

const format = FORMATS[0];
let root: string;
let ws: string;
let outside: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-guard-perm-")));
  ws = path.join(root, "ws");
  outside = path.join(root, "outside");
  mkdirSync(ws);
  mkdirSync(outside);
  mkdirSync(path.join(ws, ".git"));
  writeFileSync(path.join(ws, ".git", "config"), "[core]\n");
  writeFileSync(path.join(outside, "victim.txt"), "original");
  symlinkSync(outside, path.join(ws, "lnk"));
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Have the model call one tool per turn, then finish; returns the tool results in order. */
async function replay(calls: Array<[string, Record<string, unknown>]>, options: QueryOptions) {
  const turns = [...calls.map(([name, input]) => mockTurn.toolUse(name, input)), mockTurn.text("done")];
  return withMock({ turns }, async (server) => {
    const messages = await runQuery(server, format, "go", { cwd: ws, ...options });
    expect(resultOf(messages).subtype).toBe("success");
    return toolResults(messages);
  });
}

const bash = (command: string): [string, Record<string, unknown>] => ["Bash", { command }];
const echoOnly: QueryOptions = { allowedTools: ["Bash(echo:*)"], permissionMode: "dontAsk" };

describe("Bash(echo:*) allows echo and nothing else (findings 1-3)", () => {
  it("runs plain echo, with a redirect inside the workspace (the rule still works)", async () => {
    const results = await replay([bash("echo hello > out.txt && echo 'a; b' >> out.txt")], echoOnly);
    expect(results[0]?.is_error).toBeFalsy();
    expect(readFileSync(path.join(ws, "out.txt"), "utf8")).toBe("hello\na; b\n");
  });

  it.each([
    ["prompt expansion", "x='$(touch pwned)'; echo ${x@P}"],
    ["arithmetic on an array subscript", "x='a[$(touch pwned)]'; echo $((x))"],
    ["a for list", "for x in '$(touch pwned)'; do echo ${x@P}; done"],
    ["printf -v", "printf -v 'a[$(touch pwned)]' x"],
    ["command substitution", "echo $(touch pwned)"],
    ["backticks in double quotes", 'echo "`touch pwned`"'],
    ["a heredoc with substitution", "cat <<EOF\n$(touch pwned)\nEOF"],
    ["a name from a variable", "x=touch; $x pwned"],
  ])("%s does not run: %j", async (_, command) => {
    const results = await replay([bash(command)], echoOnly);
    expect(results[0]?.is_error).toBe(true);
    expect(existsSync(path.join(ws, "pwned"))).toBe(false);
  });

  it.each([
    ["ANSI-C quoting", () => `echo x > $'${outside}/out.txt'`, () => path.join(outside, "out.txt")],
    ["a glob through a symlink", () => "echo x > l?k/victim.txt", () => path.join(outside, "victim.txt")],
    ["a brace expansion", () => `echo x > {${outside}/victim.txt,b}`, () => path.join(outside, "victim.txt")],
  ])("a redirect via %s does not write outside the workspace", async (_, command, target) => {
    const before = existsSync(target()) ? readFileSync(target(), "utf8") : undefined;
    const results = await replay([bash(command())], echoOnly);
    expect(results[0]?.is_error).toBe(true);
    expect(existsSync(target()) ? readFileSync(target(), "utf8") : undefined).toBe(before);
  });

  it("a glob redirect does not get past an Edit deny rule", async () => {
    writeFileSync(path.join(ws, "protected.txt"), "keep");
    const results = await replay([bash("echo gone > protecte?.txt")], {
      allowedTools: ["Bash"],
      disallowedTools: ["Edit(protected.txt)"],
      permissionMode: "dontAsk",
    });
    expect(results[0]?.is_error).toBe(true);
    expect(readFileSync(path.join(ws, "protected.txt"), "utf8")).toBe("keep");
  });

  it("the agent cannot rewrite its own settings or git's config with echo", async () => {
    mkdirSync(path.join(ws, ".gyre"));
    const results = await replay(
      [
        bash(`echo '{"permissions":{"allow":["Bash"]}}' > .gyre/settings.json`),
        bash(`echo -e '[core]\\n\\tfsmonitor = "touch pwned; false"' >> .git/config`),
      ],
      { ...echoOnly, allowedTools: ["Bash(echo:*)", "Bash(git status:*)"] },
    );
    expect(results.slice(0, 2).map((r) => r.is_error)).toEqual([true, true]);
    expect(existsSync(path.join(ws, ".gyre", "settings.json"))).toBe(false);
    expect(readFileSync(path.join(ws, ".git", "config"), "utf8")).toBe("[core]\n");
  });

  it("a symlink into .git does not open a way in", async () => {
    symlinkSync(path.join(ws, ".git"), path.join(ws, "g"));
    const results = await replay([bash("echo x >> g/config")], echoOnly);
    expect(results[0]?.is_error).toBe(true);
    expect(readFileSync(path.join(ws, ".git", "config"), "utf8")).toBe("[core]\n");
  });
});

describe("protected files ask even when edits are accepted (finding 3)", () => {
  it.each([".git/hooks/pre-commit", ".claude/settings.json", ".gyre/settings.json", ".mcp.json"])(
    "Write to %s in acceptEdits is not done without asking",
    async (file) => {
      const results = await replay(
        [["Write", { file_path: path.join(ws, file), content: "#!/bin/sh\ntouch pwned\n" }]],
        {
          permissionMode: "acceptEdits",
        },
      );
      expect(results[0]?.is_error).toBe(true);
      expect(String(results[0]?.content)).toContain("controls the agent or the repository");
      expect(existsSync(path.join(ws, file))).toBe(false);
    },
  );

  it("asks canUseTool, which may allow it", async () => {
    const asked: string[] = [];
    const file = path.join(ws, ".gyre", "settings.json");
    const results = await replay([["Write", { file_path: file, content: "{}" }]], {
      permissionMode: "acceptEdits",
      canUseTool: async (tool, input) => {
        asked.push(`${tool} ${String(input.file_path)}`);
        return { behavior: "allow" };
      },
    });
    expect(asked).toEqual([`Write ${file}`]);
    expect(results[0]?.is_error).toBeFalsy();
    expect(readFileSync(file, "utf8")).toBe("{}");
  });

  it("an ordinary file is still written in acceptEdits", async () => {
    await replay([["Write", { file_path: path.join(ws, "ok.txt"), content: "fine" }]], {
      permissionMode: "acceptEdits",
    });
    expect(readFileSync(path.join(ws, "ok.txt"), "utf8")).toBe("fine");
  });
});

describe("a canUseTool callback that throws", () => {
  it("denies the call, counts the denial, and tells the caller with a hook_response message", async () => {
    const target = path.join(ws, "note.txt");
    await withMock(
      { turns: [mockTurn.toolUse("Write", { file_path: target, content: "x" }), mockTurn.text("ok")] },
      async (server) => {
        const messages = await runQuery(server, format, "go", {
          cwd: ws,
          canUseTool: async () => {
            throw new Error("approval service down");
          },
        });
        expect(existsSync(target)).toBe(false);
        expect(toolResults(messages)[0]).toMatchObject({
          is_error: true,
          content: expect.stringContaining("approval service down"),
        });
        const [call] = messages.flatMap((m) =>
          m.type === "assistant" ? m.message.content.filter((block) => block.type === "tool_use") : [],
        );
        const report = messages.find((m) => m.type === "system" && m.subtype === "hook_response");
        expect(report).toMatchObject({
          hook_name: "canUseTool",
          hook_event: "canUseTool",
          outcome: "error",
          output: "canUseTool threw: approval service down",
          tool_use_id: call?.id,
          error: { kind: "threw", on_failure: "block" },
        });
        expect(resultOf(messages).permission_denials).toEqual([expect.objectContaining({ tool_name: "Write" })]);
      },
    );
  });
});

describe("deny rules see through wrappers (finding 4)", () => {
  const denyRm: QueryOptions = { allowedTools: ["Bash"], disallowedTools: ["Bash(rm:*)"], permissionMode: "dontAsk" };
  it.each([
    "timeout -s KILL 5 rm victim",
    "env -u X rm victim",
    "setsid rm victim",
    "stdbuf -o0 rm victim",
    "x=rm; $x victim",
    "/bin/rm victim",
    "'r'm victim",
    "nice -n 5 nohup rm victim",
    "bash -c 'rm victim'",
    "echo victim | xargs rm",
    "find . -name victim -exec rm {} ;",
    "eval 'rm victim'",
    "command rm victim",
    "env -S'rm victim'",
  ])("%j does not delete the file", async (command) => {
    writeFileSync(path.join(ws, "victim"), "still here");
    const results = await replay([bash(command)], denyRm);
    expect(results[0]?.is_error).toBe(true);
    expect(existsSync(path.join(ws, "victim"))).toBe(true);
  });

  it("other commands still run under the bare allow", async () => {
    const results = await replay([bash("echo kept > kept.txt")], denyRm);
    expect(results[0]?.is_error).toBeFalsy();
    expect(existsSync(path.join(ws, "kept.txt"))).toBe(true);
  });
});

describe("Glob judges where the pattern searches (finding 8)", () => {
  it.each(["default", "dontAsk", "acceptEdits"] as const)(
    "an absolute or ../ pattern outside the workspace asks in %s",
    async (mode) => {
      const results = await replay(
        [
          ["Glob", { pattern: `${outside}/*` }],
          ["Glob", { pattern: "../outside/*" }],
          ["Glob", { pattern: "*.txt", path: outside }],
        ],
        { permissionMode: mode },
      );
      for (const result of results) {
        expect(result.is_error).toBe(true);
        expect(String(result.content)).not.toContain("victim.txt");
      }
    },
  );

  it("a pattern inside the workspace still runs", async () => {
    writeFileSync(path.join(ws, "a.txt"), "");
    const results = await replay([["Glob", { pattern: `${ws}/*.txt` }]], { permissionMode: "dontAsk" });
    expect(String(results[0]?.content)).toContain("a.txt");
  });
});
