import { execFile } from "node:child_process";
import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { folderWithPeer } from "./compat-peers.js";
import { startMockWithScript } from "./mock-llm-process.js";

/**
 * A program written for the Claude Agent SDK, ported by changing its import: it uses `skills`,
 * `plugins` and answers AskUserQuestion through `canUseTool` with `updatedInput`, as the SDK
 * documents. The same source type-checks against the SDK's declarations (pinned in
 * test/compat/claude-agent-sdk) and against Gyre's built ones, and the Gyre build of it runs:
 * a real Node process, a real skill folder with a script, a real plugin folder, the model a
 * `gyre mock-llm` process speaking Anthropic's wire format.
 */
const run = promisify(execFile);
const TSC = resolve("node_modules/typescript/bin/tsc");

/** The program, importing the SDK from `from`. It prints one JSON line per fact the test checks. */
const program = (from: string) => `import { query, type CanUseTool } from ${JSON.stringify(from)};

const [cwd, pluginPath] = process.argv.slice(2);
const asked: string[] = [];

// Every tool is allowed; AskUserQuestion is answered by picking each question's first option.
const canUseTool: CanUseTool = async (toolName, input) => {
  asked.push(toolName);
  if (toolName !== "AskUserQuestion") return { behavior: "allow", updatedInput: input };
  const { questions } = input as { questions: Array<{ question: string; options: Array<{ label: string }> }> };
  const answers = Object.fromEntries(questions.map((q) => [q.question, q.options[0]?.label ?? ""]));
  return { behavior: "allow", updatedInput: { ...input, answers } };
};

for await (const message of query({
  prompt: "Greet the team the way the team likes.",
  options: {
    cwd,
    settingSources: ["project"],
    skills: "all",
    plugins: [{ type: "local", path: pluginPath ?? "" }],
    canUseTool,
  },
})) {
  if (message.type === "system" && message.subtype === "init") {
    console.log(JSON.stringify({ init: { skills: message.skills, plugins: message.plugins.map((p) => p.name) } }));
  } else if (message.type === "user" && Array.isArray(message.message.content)) {
    for (const block of message.message.content) {
      if (typeof block === "object" && block.type === "tool_result") {
        const text = typeof block.content === "string" ? block.content : JSON.stringify(block.content);
        console.log(JSON.stringify({ toolResult: text, isError: block.is_error === true }));
      }
    }
  } else if (message.type === "result") {
    console.log(JSON.stringify({ asked, result: message.subtype === "success" ? message.result : message.errors }));
  }
}
`;

function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

describe("a Claude Agent SDK program using skills, plugins and AskUserQuestion, ported to Gyre", () => {
  let check: string;
  let project: string;
  let plugin: string;

  beforeAll(() => {
    // A folder whose node_modules is the installed SDK's, holding both builds of the program.
    check = realpathSync(folderWithPeer("claude-agent-sdk", "gyre-sdk-port-"));
    project = join(check, "project");
    plugin = join(check, "kit-plugin");
    write(join(check, "package.json"), JSON.stringify({ type: "module" }));
    write(join(check, "sdk.ts"), program("@anthropic-ai/claude-agent-sdk"));
    write(join(check, "gyre.ts"), program(resolve("dist/index.js")));
    const compilerOptions = {
      strict: true,
      target: "es2022",
      module: "nodenext",
      moduleResolution: "nodenext",
      // The SDK's own declarations are not ours to check; the program is.
      skipLibCheck: true,
      // The program reads process.argv: Node's types, from Gyre's own dev dependencies.
      typeRoots: [resolve("node_modules/@types")],
      types: ["node"],
    };
    write(join(check, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...compilerOptions, noEmit: true } }));
    write(
      join(check, "tsconfig.emit.json"),
      JSON.stringify({ compilerOptions: { ...compilerOptions, outDir: "out" }, files: ["gyre.ts"] }),
    );
    // The project's skill, with a script beside its SKILL.md.
    write(
      join(project, ".claude", "skills", "greeter", "SKILL.md"),
      "---\nname: greeter\ndescription: Greets people by name.\n---\nRun `node greet.mjs <name>` from this folder.\n",
    );
    write(
      join(project, ".claude", "skills", "greeter", "greet.mjs"),
      "console.log(`Hello, ${process.argv[2]}! (from the greeter script)`);\n",
    );
    // A plugin in Claude Code's layout, bringing a skill of its own.
    write(join(plugin, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "kit", version: "1.0.0" }));
    write(
      join(plugin, "skills", "tone", "SKILL.md"),
      "---\nname: tone\ndescription: The team's tone.\n---\nKIT-TONE: greet warmly, in the language the team picks.\n",
    );
  });
  afterAll(() => rmSync(check, { recursive: true, force: true }));

  it("type-checks against the SDK's declarations and Gyre's", async () => {
    const result = await run(process.execPath, [TSC, "-p", check], { cwd: check }).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(result).toBe("");
  }, 120_000);

  it("runs on Gyre: the skills load, the skill's script runs, the question is answered through canUseTool", async () => {
    await run(process.execPath, [TSC, "-p", join(check, "tsconfig.emit.json")], { cwd: check });
    const script = join(project, ".claude", "skills", "greeter", "greet.mjs");
    const question = {
      question: "Which language should the greeting be in?",
      header: "Language",
      options: [
        { label: "Welsh", description: "Shwmae" },
        { label: "Basque", description: "Kaixo" },
      ],
      multiSelect: false,
    };
    const mock = await startMockWithScript(
      {
        mode: "sequential",
        turns: [
          { content: [{ type: "tool_use", name: "Skill", input: { skill: "greeter" } }] },
          { content: [{ type: "tool_use", name: "Bash", input: { command: `node ${script} team` } }] },
          { content: [{ type: "tool_use", name: "Skill", input: { skill: "kit:tone" } }] },
          { content: [{ type: "tool_use", name: "AskUserQuestion", input: { questions: [question] } }] },
          { content: [{ type: "text", text: "Greeted the team in Welsh." }] },
        ],
      },
      check,
    );
    try {
      const { stdout } = await run(process.execPath, [join(check, "out", "gyre.js"), project, plugin], {
        cwd: check,
        env: {
          PATH: process.env.PATH,
          HOME: join(check, "home"),
          GYRE_HOME: join(check, "home", ".gyre"),
          ANTHROPIC_API_KEY: "mock",
          ANTHROPIC_BASE_URL: mock.baseURL,
        },
      });
      const lines = stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const init = lines.find((line) => line.init)?.init as { skills: string[]; plugins: string[] };
      expect(init.skills).toEqual(expect.arrayContaining(["greeter", "kit:tone"]));
      expect(init.plugins).toContain("kit");
      const results = lines.filter((line) => "toolResult" in line) as Array<{ toolResult: string; isError: boolean }>;
      expect(results.map((result) => result.isError)).toEqual([false, false, false, false]);
      expect(results[0]?.toolResult).toContain("Run `node greet.mjs <name>` from this folder.");
      expect(results[1]?.toolResult).toContain("Hello, team! (from the greeter script)");
      expect(results[2]?.toolResult).toContain("KIT-TONE: greet warmly");
      expect(results[3]?.toolResult).toContain('"Which language should the greeting be in?"="Welsh"');
      const end = lines.at(-1) as { asked: string[]; result: unknown };
      expect(end.asked).toContain("AskUserQuestion");
      expect(end.result).toBe("Greeted the team in Welsh.");
    } finally {
      mock.child.kill();
    }
  }, 120_000);
});
