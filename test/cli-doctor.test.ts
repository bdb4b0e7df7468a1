import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliEnv } from "./helpers.js";

// Issue 15: `gyre doctor` checks for real what the sandbox needs, as a real CLI process.

const run = promisify(execFile);
const CLI = resolve("dist/bin/gyre.js");
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
});

interface Report {
  ok: boolean;
  checks: Array<{ name: string; status: string; required: boolean; detail: string }>;
}

async function doctor(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string }> {
  return run(process.execPath, [CLI, "doctor", ...args], { env: cliEnv(env) }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
}

describe("gyre doctor", () => {
  it("finds bubblewrap, user namespaces and socat here, and a trial sandboxed command works", async () => {
    const { code, stdout } = await doctor(["--json"]);
    const report = JSON.parse(stdout) as Report;
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    const status = Object.fromEntries(report.checks.map((check) => [check.name, check.status]));
    expect(status).toMatchObject({
      node: "ok",
      "session store": "ok",
      bubblewrap: "ok",
      socat: "ok",
      "user namespaces": "ok",
      "trial command": "ok",
    });
    expect(report.checks.find((check) => check.name === "bubblewrap")?.detail).toMatch(/bubblewrap \d+\.\d+/);
    const human = await doctor([]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      /^ok {4}trial command {4}a sandboxed command wrote in its workspace and nowhere else$/m,
    );
  });

  it("fails with what to install when PATH has no bubblewrap, and only warns for what is optional", async () => {
    const bin = mkdtempSync(join(tmpdir(), "gyre-doctor-path-"));
    made.push(bin);
    symlinkSync("/usr/bin/socat", join(bin, "socat"));
    const { code, stdout } = await doctor(["--json"], { PATH: bin });
    const report = JSON.parse(stdout) as Report;
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    const byName = Object.fromEntries(report.checks.map((check) => [check.name, check]));
    expect(byName.bubblewrap).toMatchObject({ status: "missing", required: true });
    expect(byName.bubblewrap?.detail).toContain("apt-get install bubblewrap");
    expect(byName.socat).toMatchObject({ status: "ok", required: false });
    expect(byName.ripgrep).toMatchObject({ status: "missing", required: false });
    expect(byName["trial command"]).toBeUndefined();
    const human = await doctor([], { PATH: bin });
    expect(human.code).toBe(1);
    expect(human.stdout).toContain("FAIL  bubblewrap");
    expect(human.stdout).toContain("warn  ripgrep");
    expect(human.stdout).toContain("Something Gyre needs is missing");
  });

  it("fails when the session store cannot be created", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gyre-doctor-store-"));
    made.push(dir);
    writeFileSync(join(dir, "file"), "");
    const { code, stdout } = await doctor(["--json"], { GYRE_HOME: join(dir, "file", "home") });
    const report = JSON.parse(stdout) as Report;
    expect(code).toBe(1);
    expect(report.checks.find((check) => check.name === "session store")).toMatchObject({
      status: "missing",
      required: true,
    });
  });
});
