// `npm run demo`: the whole loop with no API key. Starts `gyre mock-llm` with a scripted
// coding session, then runs `gyre run` against it on a scratch project with the real
// built-in tools (Bash, Read, Edit, ...), printing what happens as it happens.
// `npm run demo -- --interactive`: the same session in the interactive agent (`gyre` in
// this terminal), paced so a person can follow it; Ctrl+D quits once it is done, and the
// command that goes on with the session is printed. Its sessions and prompt history go to a
// throwaway data folder next to the scratch project: the demo leaves nothing in ~/.gyre.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { codingScript, createProject } from "./coding-session.mjs";

const PROMPT = "The tests fail. Fix the bug.";
/** In the interactive demo, each model answer waits this long, so the session can be watched. */
const INTERACTIVE_PACE_MS = 400;

const interactive = process.argv.slice(2).includes("--interactive");
const cli = fileURLToPath(new URL("../dist/bin/gyre.js", import.meta.url));
const project = mkdtempSync(join(tmpdir(), "gyre-demo-"));
createProject(project);
// Gyre's data folder for the demo's processes (and this one's look at their sessions).
const dataFolder = mkdtempSync(join(tmpdir(), "gyre-demo-data-"));
process.env.GYRE_HOME = dataFolder;
const script = codingScript(project, 9);
if (interactive) for (const turn of script.turns) turn.delayMs = INTERACTIVE_PACE_MS;
const scriptPath = join(project, ".mock-script.json");
writeFileSync(scriptPath, JSON.stringify(script));

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
const env = { ...process.env, GYRE_HOME: dataFolder, ANTHROPIC_API_KEY: "mock", ANTHROPIC_BASE_URL: baseURL };
// Edits are accepted and only the two commands of the script may run without asking.
const permissions = ["--permission-mode", "acceptEdits", "--allowed-tools", "Bash(node test.js),Bash(ls:*)"];

if (interactive) await runInteractive();
else await runPrintMode();
mock.kill();
console.log(`\nsrc/math.js now:\n${readFileSync(join(project, "src", "math.js"), "utf8")}`);

/** `gyre "<prompt>"` in this terminal: the interactive agent, until the person quits it. */
async function runInteractive() {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    console.error("npm run demo -- --interactive needs a terminal (stdin and stdout)");
    mock.kill();
    process.exit(1);
  }
  const agent = spawn(process.execPath, [cli, PROMPT, ...permissions], { cwd: project, stdio: "inherit", env });
  // The agent reads Ctrl+C itself (twice quits); this process waits for it to end.
  const ignore = () => {};
  process.on("SIGINT", ignore);
  const code = await new Promise((resolve) => agent.once("exit", (exitCode) => resolve(exitCode ?? 1)));
  process.off("SIGINT", ignore);
  process.exitCode = code;
  await printResumeHint();
}

/**
 * The agent printed its own hint; this one works as it stands, from any folder of a checkout:
 * in the scratch project, with the demo's data folder. The mock model has stopped by then, so
 * going on needs a real key (ANTHROPIC_API_KEY).
 */
async function printResumeHint() {
  const { listSessions } = await import("../dist/index.js");
  const [session] = await listSessions({ cwd: project, limit: 1 });
  if (!session) return;
  console.log(
    `\nThe demo's session is kept in a throwaway data folder. To go on with it (with a real ANTHROPIC_API_KEY):\n` +
      `  cd ${project} && GYRE_HOME=${dataFolder} node ${cli} --resume ${session.id}`,
  );
}

/** `gyre run "<prompt>" --output-format stream-json`, each message printed as a line as it comes. */
async function runPrintMode() {
  const run = spawn(
    process.execPath,
    [cli, "run", PROMPT, "--output-format", "stream-json", "--cwd", project, ...permissions],
    { stdio: ["ignore", "pipe", "inherit"], env },
  );
  for await (const line of createInterface({ input: run.stdout })) printMessage(JSON.parse(line));
}

function printMessage(message) {
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
