import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SDKMessage } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { cliEnv, withMock } from "./helpers.js";

const run = promisify(execFile);
const CLI = resolve("dist/bin/gyre.js");

let home: string;
let project: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "gyre-cli-handoffs-home-"));
  project = mkdtempSync(join(tmpdir(), "gyre-cli-handoffs-project-"));
  const agents = join(home, ".claude", "agents");
  mkdirSync(agents, { recursive: true });
  writeFileSync(
    join(agents, "triage.md"),
    "---\nname: triage\ndescription: Sorts requests\ntools: Read\nhandoffs: billing\n---\nYou are triage.\n",
  );
  writeFileSync(
    join(agents, "billing.md"),
    "---\nname: billing\ndescription: Handles refunds and invoices\ntools: [Glob]\n---\nYou are billing.\n",
  );
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
});

describe("gyre run --agent", () => {
  it("runs the main thread as an agent file's agent, whose handoffs hand the run over", async () => {
    const script = {
      turns: [],
      routes: [
        { system: "You are triage.", turns: [mockTurn.toolUse("transfer_to_billing", {}, { id: "call_t" })] },
        { system: "You are billing.", turns: [mockTurn.text("(unused)"), mockTurn.text("Refunded.")] },
      ],
    };
    await withMock(script, async (server) => {
      const { stdout } = await run(
        process.execPath,
        [CLI, "run", "refund me", "--agent", "triage", "--output-format", "stream-json", "--cwd", project],
        { env: cliEnv({ ...server.env(), HOME: home }) },
      );
      const messages = stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as SDKMessage);
      expect(messages[0]).toMatchObject({ subtype: "init", tools: ["Read", "transfer_to_billing"] });
      expect(messages.filter((m) => m.type === "system" && m.subtype === "handoff")).toEqual([
        expect.objectContaining({ from: "triage", to: "billing", tool_use_id: "call_t" }),
      ]);
      expect(messages.at(-1)).toMatchObject({ type: "result", result: "Refunded.", agent: "billing" });
      expect(server.requests.map((r) => r.route)).toEqual([0, 1]);
    });
  });

  it("an unknown agent is an error naming the agents there are", async () => {
    const error = await run(process.execPath, [CLI, "run", "hi", "--agent", "nobody", "--cwd", project], {
      env: cliEnv({ HOME: home, ANTHROPIC_API_KEY: "unused" }),
    }).catch((e: unknown) => e as { code: number; stderr: string });
    expect(error).toMatchObject({ code: 1 });
    expect((error as { stderr: string }).stderr).toContain('there is no agent "nobody"');
    expect((error as { stderr: string }).stderr).toContain("billing");
  });
});
