// A scripted coding session for the mock LLM: the "model" finds a bug in a small project,
// reads the file, fixes it with Edit, runs the tests with Bash and reports. Used by
// `npm run demo` and by the CLI benchmark. Paths must be absolute (Read/Edit require it),
// so the script is generated for the project folder it will run in.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Create the small project the session works on. */
export function createProject(dir) {
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(
    join(dir, "src", "math.js"),
    "export function add(a, b) {\n  return a - b;\n}\n\nexport function mul(a, b) {\n  return a * b;\n}\n",
  );
  writeFileSync(
    join(dir, "test.js"),
    'import { add, mul } from "./src/math.js";\n' +
      "const checks = [[add(2, 3), 5], [mul(2, 3), 6]];\n" +
      "const failed = checks.filter(([got, want]) => got !== want);\n" +
      'console.log(failed.length === 0 ? "all tests pass" : `${failed.length} failing`);\n' +
      "process.exitCode = failed.length;\n",
  );
  writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
}

const tool = (name, input, text) => ({
  content: [...(text ? [{ type: "text", text }] : []), { type: "tool_use", name, input }],
  usage: { input_tokens: 2400, output_tokens: 90, cache_read_input_tokens: 12000 },
});

/**
 * Each Glob and Grep call as Claude Code 2.x on Linux makes it: it offers no Glob or Grep tool and
 * answers a call of one with "find files with `find` via the Bash tool instead" (the same for
 * grep), so its session runs these commands where Gyre's runs the tools (bench/cli.bench.mjs).
 */
const SEARCH_AS_BASH = {
  Glob: (input) => ({
    command: `find ${input.pattern.startsWith("src/") ? "src" : "."} -name '${input.pattern.split("/").pop()}'`,
  }),
  Grep: (input) => ({
    command: `grep -r${input.output_mode === "count" ? "c" : "n"}E '${input.pattern}' src test.js package.json`,
  }),
};

/**
 * The mock script: `turns` model answers, the last one a summary. `searchWithBash`: Glob and
 * Grep calls are Bash commands instead (for a CLI without those tools; `turnKinds` still names them).
 */
export function codingScript(dir, turns = 20, { searchWithBash = false } = {}) {
  const math = join(dir, "src", "math.js");
  const steps = [
    tool(
      "TodoWrite",
      {
        todos: [
          { content: "Find the failing test", status: "in_progress", activeForm: "Finding the failing test" },
          { content: "Fix the bug", status: "pending", activeForm: "Fixing the bug" },
          { content: "Verify", status: "pending", activeForm: "Verifying" },
        ],
      },
      "I'll start by running the tests.",
    ),
    tool("Bash", { command: "node test.js", description: "Run the tests" }),
    tool("Glob", { pattern: "src/**/*.js" }),
    tool("Grep", { pattern: "export function", output_mode: "content" }),
    tool("Read", { file_path: math }),
    tool(
      "Edit",
      { file_path: math, old_string: "return a - b;", new_string: "return a + b;" },
      "`add` subtracts; fixing it.",
    ),
    tool("Bash", { command: "node test.js", description: "Run the tests again" }),
    tool("TodoWrite", {
      todos: [
        { content: "Find the failing test", status: "completed", activeForm: "Finding the failing test" },
        { content: "Fix the bug", status: "completed", activeForm: "Fixing the bug" },
        { content: "Verify", status: "completed", activeForm: "Verifying" },
      ],
    }),
  ];
  // Longer sessions keep inspecting the project, as real ones do.
  const extra = [
    () => tool("Read", { file_path: join(dir, "test.js") }),
    () => tool("Grep", { pattern: "add|mul", output_mode: "count" }),
    () => tool("Bash", { command: "ls -la src" }),
    () => tool("Glob", { pattern: "**/*.json" }),
  ];
  for (let i = 0; steps.length < turns - 1; i++) steps.push(extra[i % extra.length]());
  steps.push({
    content: [{ type: "text", text: "Fixed `add` in src/math.js (it subtracted); the tests pass now." }],
    usage: { input_tokens: 2600, output_tokens: 40, cache_read_input_tokens: 12000 },
  });
  const script = steps.slice(0, turns).map((turn) => {
    const call = turn.content.find((block) => block.type === "tool_use");
    const asBash = searchWithBash && call ? SEARCH_AS_BASH[call.name] : undefined;
    if (!asBash) return turn;
    const content = turn.content.map((block) =>
      block === call ? { type: "tool_use", name: "Bash", input: asBash(call.input) } : block,
    );
    return { ...turn, content };
  });
  return { mode: "history", turns: script };
}

/** The tool each turn of `codingScript` calls in Gyre's session (undefined for the closing text). */
export function turnKinds(turns = 20) {
  return codingScript("/", turns).turns.map((turn) => turn.content.find((block) => block.type === "tool_use")?.name);
}
