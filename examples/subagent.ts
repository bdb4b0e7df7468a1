// A subagent: the main agent hands a review to `reviewer`, a read-only agent with a prompt and
// tools of its own. The reviewer's messages reach this stream tagged with the `Agent` call's id
// (`parent_tool_use_id`); its final answer is the call's result, and its cost adds to the run's.
//
//   npm run example -- subagent [--mock]
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { query } from "gyre";

const project = process.argv[2] ?? mkdtempSync(join(tmpdir(), "gyre-subagent-"));
mkdirSync(join(project, "src"), { recursive: true });
writeFileSync(join(project, "src", "math.js"), "export function add(a, b) {\n  return a - b;\n}\n");

const run = query({
  prompt: "Have the reviewer check src/ for bugs, then tell me what it found.",
  options: {
    model: "anthropic/claude-sonnet-5-5",
    cwd: project,
    agents: {
      reviewer: {
        description: "Reviews code for bugs. Read-only.",
        prompt: "You review code for bugs. Report each bug with its file and line; change nothing.",
        tools: ["Read", "Grep", "Glob"],
        model: "inherit",
        maxTurns: 10,
      },
    },
    maxTurns: 10,
    persistSession: false,
  },
});

for await (const message of run) {
  const who = "parent_tool_use_id" in message && message.parent_tool_use_id ? "  [reviewer]" : "[main]";
  if (message.type === "assistant") {
    for (const block of message.message.content) {
      if (block.type === "text") console.log(`${who} ${block.text}`);
      if (block.type === "tool_use") console.log(`${who} -> ${block.name} ${JSON.stringify(block.input)}`);
    }
  } else if (message.type === "user" && Array.isArray(message.message.content)) {
    for (const block of message.message.content) {
      if (block.type !== "tool_result") continue;
      const text = typeof block.content === "string" ? block.content : JSON.stringify(block.content);
      console.log(`${who} <- ${text.split("\n")[0]}`);
    }
  } else if (message.type === "result") {
    console.log(`${message.subtype}: ${message.subtype === "success" ? message.result : message.terminal_reason}`);
  }
}
