// A coding agent: the built-in tools (Bash, Glob, Grep, Read, Edit, …) find and fix a bug in a
// small project, under permissions that let it edit the project and run its tests, nothing else.
//
//   npm run example -- coding-agent          the real model (ANTHROPIC_API_KEY), on a scratch project
//   npm run example -- coding-agent --mock   the scripted mock LLM, no key needed
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { query } from "gyre";

// The project: a folder given as the first argument, else a new scratch folder.
const project = process.argv[2] ?? mkdtempSync(join(tmpdir(), "gyre-coding-agent-"));
mkdirSync(join(project, "src"), { recursive: true });
writeFileSync(join(project, "src", "math.js"), "export function add(a, b) {\n  return a - b;\n}\n");
writeFileSync(
  join(project, "test.js"),
  'import { add } from "./src/math.js";\n' +
    'if (add(2, 3) === 5) console.log("all tests pass");\n' +
    'else console.log("FAIL: add(2, 3) is", add(2, 3)), (process.exitCode = 1);\n',
);
writeFileSync(join(project, "package.json"), '{ "type": "module" }\n');

const run = query({
  prompt: "The tests (node test.js) fail. Find the bug and fix it.",
  options: {
    model: "anthropic/claude-sonnet-5-5",
    cwd: project,
    permissionMode: "acceptEdits", // file edits inside the project run without asking
    allowedTools: ["Bash(node test.js)"], // and so does this one command; anything else is denied
    maxTurns: 20,
    maxBudgetUsd: 1,
    persistSession: false,
  },
});

for await (const message of run) {
  if (message.type === "assistant") {
    for (const block of message.message.content) {
      if (block.type === "tool_use") console.log(`-> ${block.name} ${JSON.stringify(block.input)}`);
    }
  } else if (message.type === "user" && Array.isArray(message.message.content)) {
    for (const block of message.message.content) {
      if (block.type === "tool_result") console.log(`   ${block.is_error ? "error: " : ""}${firstLine(block.content)}`);
    }
  } else if (message.type === "result") {
    console.log(`\n${message.subtype}: ${message.subtype === "success" ? message.result : message.terminal_reason}`);
    console.log(`${message.num_turns} turns, $${message.total_cost_usd.toFixed(4)}`);
  }
}
console.log(`\nsrc/math.js now:\n${readFileSync(join(project, "src", "math.js"), "utf8")}`);

/** The first line of a tool result's text, to show what each call gave. */
function firstLine(content: unknown): string {
  const blocks: unknown[] = typeof content === "string" ? [{ text: content }] : Array.isArray(content) ? content : [];
  const text = blocks
    .map((block) => (block && typeof block === "object" && "text" in block ? block.text : ""))
    .join("\n");
  return text.trim().split("\n")[0]?.slice(0, 100) ?? "";
}
