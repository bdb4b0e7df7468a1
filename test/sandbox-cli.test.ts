import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { SDKMessage } from "../src/index.js";
import { mockTurn, startMockLLM } from "../src/testing/index.js";
import { cliEnv } from "./helpers.js";

// Issue 15: `gyre run --sandbox` runs the model's Bash commands in the sandbox, and a machine
// without bubblewrap fails the run with a message saying what to install.

const run = promisify(execFile);
const CLI = resolve("dist/bin/gyre.js");
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe("gyre run --sandbox", () => {
  it("sandboxes Bash and reports the violation in stream-json", async () => {
    if (!existsSync(CLI)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
    const cwd = mkdtempSync(join(tmpdir(), "gyre-sandbox-cli-"));
    const outside = mkdtempSync("/var/tmp/gyre-sandbox-cli-out-");
    made.push(cwd, outside);
    const server = await startMockLLM({
      script: { turns: [mockTurn.toolUse("Bash", { command: `echo x > ${outside}/f` }), mockTurn.text("done")] },
    });
    try {
      const args = [CLI, "run", "go", "--sandbox", "--permission-mode", "bypassPermissions"];
      const { stdout } = await run(
        process.execPath,
        [...args, "--output-format", "stream-json", "--cwd", cwd, "--no-session-persistence"],
        { env: cliEnv(server.env()) },
      );
      const messages = stdout
        .trim()
        .split("\n")
        .map((line) => SDKMessage.parse(JSON.parse(line)));
      const violation = messages.find((m) => m.type === "system" && m.subtype === "sandbox_violation");
      expect(violation).toMatchObject({ violations: [{ kind: "write", target: `${outside}/f` }] });
      expect(existsSync(join(outside, "f"))).toBe(false);

      const failed = await run(process.execPath, [...args, "--cwd", cwd, "--no-session-persistence"], {
        env: cliEnv({ ...server.env(), PATH: cwd }),
      }).catch((error: { code: number; stderr: string }) => error);
      expect(failed).toMatchObject({ code: 1, stderr: expect.stringContaining("apt-get install bubblewrap") });
    } finally {
      await server.close();
    }
  });
});
