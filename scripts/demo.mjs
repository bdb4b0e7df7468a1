// `npm run demo`: the whole loop with no API key. Starts `gyre mock-llm` with a scripted
// coding session, then runs `gyre run` against it on a scratch project with the real
// built-in tools (Bash, Read, Edit, ...), printing what happens as it happens.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { codingScript, createProject } from "./coding-session.mjs";

const cli = resolve("dist/bin/gyre.js");
const project = mkdtempSync(join(tmpdir(), "gyre-demo-"));
createProject(project);
const scriptPath = join(project, ".mock-script.json");
writeFileSync(scriptPath, JSON.stringify(codingScript(project, 9)));

const mock = spawn(process.execPath, [cli, "mock-llm", "--script", scriptPath], {
  stdio: ["ignore", "pipe", "inherit"],
});
let baseURL;
for await (const line of createInterface({ input: mock.stdout })) {
  const match = /listening on (\S+)/.exec(line);
  if (match) {
    baseURL = `${match[1]}/v1`;
    break;
  }
}
console.log(`mock LLM at ${baseURL}; project in ${project}\n`);

const run = spawn(
  process.execPath,
  [
    cli,
    "run",
    "The tests fail. Fix the bug.",
    "--output-format",
    "stream-json",
    "--cwd",
    project,
    "--permission-mode",
    "acceptEdits",
    "--allowed-tools",
    "Bash(node test.js),Bash(ls:*)",
  ],
  {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ANTHROPIC_API_KEY: "mock", ANTHROPIC_BASE_URL: baseURL },
  },
);
for await (const line of createInterface({ input: run.stdout })) {
  const message = JSON.parse(line);
  if (message.type === "assistant") {
    for (const block of message.message.content) {
      if (block.type === "text") console.log(`assistant: ${block.text}`);
      if (block.type === "tool_use") console.log(`  -> ${block.name} ${JSON.stringify(block.input).slice(0, 100)}`);
    }
  } else if (message.type === "user" && Array.isArray(message.message.content)) {
    for (const block of message.message.content) {
      const text = typeof block.content === "string" ? block.content : JSON.stringify(block.content);
      console.log(`  <- ${block.is_error ? "ERROR " : ""}${text.split("\n").slice(0, 3).join(" | ").slice(0, 120)}`);
    }
  } else if (message.type === "result") {
    console.log(
      `\nresult: ${message.subtype} in ${message.num_turns} turns, $${message.total_cost_usd} (${message.duration_ms} ms)`,
    );
  }
}
mock.kill();
console.log(`\nsrc/math.js now:\n${readFileSync(join(project, "src", "math.js"), "utf8")}`);
