// Every program in examples/ runs as a reader runs it, `npm run example -- NAME --mock`: the
// example's own file, importing "gyre" from the built package, against the scripted mock LLM of
// examples/mock/NAME.json, and what it prints is checked. examples/serve.config.yaml is started
// with `gyre serve --config` and driven with the `openai` client. An example without a check
// here fails, so none can be added untested or rot unseen.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import OpenAI from "openai";
import { afterAll, describe, expect, it } from "vitest";
import { mockTurn, startMockLLM } from "../src/testing/index.js";
import { cliEnv } from "./helpers.js";

const run = promisify(execFile);
const ROOT = resolve(".");
const EXAMPLES = join(ROOT, "examples");
const programs = readdirSync(EXAMPLES)
  .filter((file) => file.endsWith(".ts"))
  .map((file) => file.slice(0, -3))
  .sort();

/** What each example must print when it runs against its mock script. */
const EXPECTED: Record<string, (stdout: string) => void> = {
  "coding-agent": (stdout) => {
    // The real tools ran: the tests failed, the fix was made by Edit, the tests passed.
    expect(stdout).toContain('-> Bash {"command":"node test.js"');
    expect(stdout).toContain("error: FAIL: add(2, 3) is -1");
    expect(stdout).toContain("src/math.js:1:export function add(a, b) {");
    expect(stdout).toMatch(/-> Edit .*"new_string":"return a \+ b;"/);
    expect(stdout).toContain("   all tests pass");
    expect(stdout).toContain("success: Fixed: add() subtracted its arguments; the tests pass now.");
    expect(stdout).toMatch(/6 turns, \$\d+\.\d{4}/);
    expect(stdout).toContain("src/math.js now:\nexport function add(a, b) {\n  return a + b;\n}\n");
  },
  "client-tool-resume": (stdout) => {
    const [paused, ...rest] = stdout.split("\n");
    expect(paused).toMatch(/^paused: requires_action \(session [0-9a-f-]{36}\)$/);
    expect(rest.join("\n")).toBe(
      'the model asks: get_weather({"city":"Oslo"})\nsuccess: It is snowing in Oslo, -3 °C: dress warmly.\n',
    );
  },
  "server-openai-client": (stdout) => {
    expect(stdout).toBe(
      'function call: get_time({"city":"Oslo"})\n' +
        "answer: It is 14:05 in Oslo.\n" +
        "streamed: Hei! Hvordan har du det?\n" +
        "usage: 28 tokens\n",
    );
  },
  "mcp-tool": (stdout) => {
    expect(stdout).toBe(
      "servers: calc connected\n" +
        "tools: mcp__calc__add\n" +
        'call: mcp__calc__add {"a":2,"b":3}\n' +
        'result: "5"\n' +
        "success: 2 + 3 = 5.\n",
    );
  },
  subagent: (stdout) => {
    expect(stdout).toContain('[main] -> Agent {"description":"Review src/"');
    // The reviewer's own Grep ran in the project, and its answer is the Agent call's result.
    expect(stdout).toContain("  [reviewer] -> Grep ");
    expect(stdout).toContain("  [reviewer] <- src/math.js:2:  return a - b;");
    expect(stdout).toContain("[main] <- src/math.js:2: add() returns a - b; it should return a + b.");
    expect(stdout).toContain("success: The reviewer found one bug: add() in src/math.js subtracts instead of adding.");
  },
};

const temps: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("examples/", () => {
  it("has a mock script, a check here and a line in examples/README.md for every program", () => {
    expect(programs.length).toBeGreaterThanOrEqual(5);
    const readme = readFileSync(join(EXAMPLES, "README.md"), "utf8");
    for (const name of programs) {
      expect(existsSync(join(EXAMPLES, "mock", `${name}.json`)), `examples/mock/${name}.json`).toBe(true);
      expect(Object.keys(EXPECTED), `a check of ${name} in test/examples.test.ts`).toContain(name);
      expect(readme).toContain(`[${name}.ts](${name}.ts)`);
    }
    expect(Object.keys(EXPECTED).sort()).toEqual(programs);
  });

  for (const name of programs) {
    it(`${name} runs against the mock LLM with \`npm run example -- ${name} --mock\` and prints what it should`, async () => {
      if (!existsSync("dist/index.js")) throw new Error("dist/ is missing: run `npm run build` first (npm test does)");
      const { stdout, stderr } = await run(process.execPath, ["scripts/run-example.mjs", name, "--mock"], {
        cwd: ROOT,
        env: cliEnv(),
      });
      expect(stderr).toBe("");
      EXPECTED[name]?.(stdout);
    });
  }

  it("serve.config.yaml: gyre serve serves `coder` with the server-side tools and rules it names, and no other model", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "gyre-example-serve-"));
    temps.push(workspace);
    writeFileSync(join(workspace, "notes.md"), "# Notes\nTODO: ship the docs\n");
    writeFileSync(join(workspace, ".env"), "SECRET=hunter2\n");
    const mock = await startMockLLM({
      script: {
        turns: [
          mockTurn.toolUse("Grep", { pattern: "TODO", output_mode: "content" }),
          mockTurn.toolUse("Read", { file_path: join(workspace, ".env") }),
          mockTurn.text("notes.md says: ship the docs."),
        ],
      },
    });
    try {
      // `workspace: .` is the server's working directory: the workspace.
      const child = spawn(
        process.execPath,
        [resolve("dist/bin/gyre.js"), "serve", "--port", "0", "--config", join(EXAMPLES, "serve.config.yaml")],
        { cwd: workspace, env: cliEnv(mock.env()), stdio: ["ignore", "pipe", "ignore"] },
      );
      children.push(child);
      let url = "";
      for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
        url = /listening on (http:\/\/\S+)/.exec(line)?.[1] ?? "";
        if (url) break;
      }
      expect(url).toMatch(/\/v1$/);
      const client = new OpenAI({ baseURL: url, apiKey: "unused-on-loopback", maxRetries: 0 });

      const response = await client.responses.create({ model: "coder", input: "What is left to do?" });
      expect(response.status).toBe("completed");
      expect(response.output_text).toBe("notes.md says: ship the docs.");
      const outputs = response.output.filter((item) => item.type === "function_call_output");
      expect(outputs).toHaveLength(2);
      expect(JSON.stringify(outputs[0])).toContain("TODO: ship the docs");
      // The config's deny rule keeps .env from the model.
      expect(JSON.stringify(outputs[1])).not.toContain("hunter2");
      expect(JSON.stringify(outputs[1])).toMatch(/denied/i);
      expect(mock.requests[0]?.body.model).toBe("claude-sonnet-5-5");

      // Only the listed name is served.
      const refused = await client.responses.create({ model: "anthropic/claude-sonnet-5-5", input: "hi" }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(OpenAI.NotFoundError);
      expect((refused as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
    } finally {
      await mock.close();
    }
  });

  it("docs/server.md shows serve.config.yaml as it is", () => {
    const guide = readFileSync("docs/server.md", "utf8");
    expect(guide).toContain("```yaml\n" + readFileSync(join(EXAMPLES, "serve.config.yaml"), "utf8") + "```\n");
  });
});
