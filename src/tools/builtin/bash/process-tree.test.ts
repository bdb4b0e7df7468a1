import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ProcessInfo } from "./proc-fs.js";
import { isProcessAlive, type ProcessTable, stopCommandProcesses } from "./process-tree.js";
import { describeStopped } from "./stop-report-text.js";
import { waitFor } from "./test-support.js";
import { MARKER_VARIABLE, newMarker } from "./tool-call-marker.js";

const onLinux = process.platform === "linux";

/** Start `script` as a tool command would: bash in its own group, with `marker` in its environment. */
function startMarked(script: string, marker: string) {
  const child = spawn("/bin/bash", ["-c", script], {
    env: { ...process.env, [MARKER_VARIABLE]: marker },
    detached: true,
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return { pgid: child.pid!, exited };
}

const pidsIn = async (file: string, count: number) =>
  waitFor(
    () => {
      try {
        const pids = readFileSync(file, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
        return pids.length >= count ? pids : undefined;
      } catch {
        return undefined;
      }
    },
    { what: `${count} pids in ${file}` },
  );

describe.runIf(onLinux)("stopCommandProcesses (Linux /proc)", () => {
  it("finds processes that left the group by their marker, after the shell has exited", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "gyre-tree-")), "pids");
    const marker = newMarker();
    const command = startMarked(
      `setsid sleep 1000 & echo $! > ${file}; nohup sleep 1000 >/dev/null 2>&1 & echo $! >> ${file}`,
      marker,
    );
    await command.exited;
    const pids = await pidsIn(file, 2);
    const report = await stopCommandProcesses({ pgid: command.pgid, marker }, { graceMs: 100 });
    expect(report).toEqual({ stopped: 2, survivors: [], scope: "all" });
    expect(pids.every((pid) => !isProcessAlive(pid))).toBe(true);
  });

  it("finds a child that dropped its environment through its marked parent", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "gyre-tree-")), "pids");
    const marker = newMarker();
    // The parent leaves the group and starts an unmarked child, then both wait.
    const command = startMarked(`setsid bash -c 'env -i /bin/sleep 1000 & echo $$ $! > ${file}; wait' &`, marker);
    await command.exited;
    const [parent, child] = await pidsIn(file, 2);
    await waitFor(() => !readFileSync(`/proc/${child}/environ`, "utf8").includes(marker), {
      what: "the child to drop its environment",
    });
    const report = await stopCommandProcesses({ pgid: command.pgid, marker }, { graceMs: 100 });
    expect(report.survivors).toEqual([]);
    expect(isProcessAlive(parent!) || isProcessAlive(child!)).toBe(false);
  });

  it("leaves alone the processes of other tool calls", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "gyre-tree-")), "pids");
    const other = startMarked(`setsid sleep 1000 & echo $! > ${file}`, newMarker());
    await other.exited;
    const [bystander] = await pidsIn(file, 1);
    const mine = startMarked("sleep 1000", newMarker());
    const report = await stopCommandProcesses({ pgid: mine.pgid, marker: newMarker() }, { graceMs: 100 });
    expect(report.stopped).toBe(1);
    expect(isProcessAlive(bystander!)).toBe(true);
    process.kill(bystander!, "SIGKILL");
  });

  it("returns at once when nothing is left", async () => {
    const command = startMarked("true", newMarker());
    await command.exited;
    const started = Date.now();
    expect(await stopCommandProcesses({ pgid: command.pgid, marker: newMarker() })).toEqual({
      stopped: 0,
      survivors: [],
      scope: "all",
    });
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe("stopCommandProcesses reports only what it verified", () => {
  /** A table in which `immortal` ignores every signal and the others die on SIGKILL. */
  function fakeTable(pids: number[], immortal: number): ProcessTable & { signals: string[] } {
    const alive = new Map<number, ProcessInfo>(
      pids.map((pid) => [pid, { pid, ppid: 1, pgid: 4242, state: "S", startTime: pid }]),
    );
    const signals: string[] = [];
    return {
      signals,
      list: () => [...alive.values()],
      hasMarker: () => false,
      signal: (target, signal) => {
        signals.push(`${target}:${signal}`);
        for (const info of alive.values()) {
          if (info.pid === immortal || (target !== info.pid && target !== -info.pgid)) continue;
          if (signal === "SIGSTOP") info.state = "T";
          if (signal === "SIGKILL") alive.delete(info.pid);
        }
      },
    };
  }

  it("names the processes that survived, and never says they were stopped", async () => {
    const table = fakeTable([4242, 4243, 4244], 4244);
    const report = await stopCommandProcesses({ pgid: 4242 }, { graceMs: 0 }, table);
    expect(report).toEqual({ stopped: 2, survivors: [4244], scope: "all" });
    expect(table.signals).toContain("4244:SIGSTOP");
    expect(table.signals).toContain("4244:SIGKILL");
    expect(describeStopped(report)).toBe(
      "1 of its processes could not be stopped and may still be running (pids 4244)",
    );
  });

  it("says every process was killed only when a scan found none left", async () => {
    const report = await stopCommandProcesses({ pgid: 4242 }, { graceMs: 0 }, fakeTable([4242, 4243], -1));
    expect(report).toEqual({ stopped: 2, survivors: [], scope: "all" });
    expect(describeStopped(report)).toBe("it and every process it started were killed");
  });

  it("reads the environment only of processes that started after the command", async () => {
    const asked: number[] = [];
    const table: ProcessTable = {
      list: () => [
        { pid: 50, ppid: 1, pgid: 50, state: "S", startTime: 50 },
        { pid: 150, ppid: 1, pgid: 150, state: "S", startTime: 150 },
      ],
      hasMarker: (pid) => {
        asked.push(pid);
        return false;
      },
      signal: () => {},
    };
    const report = await stopCommandProcesses({ pgid: 4242, marker: "m", startTime: 100 }, {}, table);
    expect(report).toEqual({ stopped: 0, survivors: [], scope: "all" });
    expect(asked).toEqual([150]);
  });
});
