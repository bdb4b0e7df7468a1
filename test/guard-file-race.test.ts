// Issue 26, finding 4: a process that renames folders beside the file tools, swapping `d` between
// a folder of the workspace and a symlink out of it, must never make Read, Write or Edit read or
// write outside what the permission check approved. Replayed through the loop in acceptEdits mode
// with a real renamer: first as a process of its own, then as a sandboxed background Bash command.
import { type ChildProcess, spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemorySessionStore, type QueryOptions, type SDKMessage } from "../src/index.js";
import { type MockScript, type MockTurn, mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

const SECRET = "OUTSIDE-SECRET";
/** Rounds of calls; each round is one model turn of Reads and one of Writes and Edits. */
const ROUNDS = 6;
const READS_PER_ROUND = 40;
const WRITES_PER_ROUND = 40;

/**
 * Swaps `d` between the folder `A` and the symlink `B` (which leads out of the workspace) as
 * fast as it can, printing `renaming` once it has started. A folder a tool made at `d` while
 * `d` was missing is moved aside (to `stray-<n>`), so the swapping goes on.
 */
const RENAMER = `
  const fs = require("node:fs");
  let strays = 0;
  const move = (from, to) => {
    try {
      fs.renameSync(from, to);
    } catch (error) {
      if (error.code !== "ENOENT") try { fs.renameSync("d", "stray-" + strays++); } catch {}
    }
  };
  process.stdout.write("renaming\\n");
  for (;;) { move("A", "d"); move("d", "A"); move("B", "d"); move("d", "B"); }
`;

let ws: string;
let outside: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), "gyre-race-ws-")));
  // Outside the workspace and outside the sandbox's writable folders (as /tmp is not).
  outside = realpathSync(mkdtempSync("/var/tmp/gyre-race-out-"));
  mkdirSync(join(ws, "A"));
  for (const dir of [join(ws, "A"), outside]) {
    const whose = dir === outside ? SECRET : "inside";
    writeFileSync(join(dir, "key.txt"), `${whose} key\n`);
    for (let round = 0; round < ROUNDS; round++) writeFileSync(join(dir, `e${round}.txt`), `${whose} e${round}\n`);
  }
  symlinkSync(outside, join(ws, "B"));
  writeFileSync(join(ws, "renamer.cjs"), RENAMER);
  writeFileSync(join(ws, "plain.txt"), "plain\n");
});

afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  rmSync(ws, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** What `outside` holds, name and content, so that any change to it shows. */
function contentsOf(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    found[path] = entry.isFile() ? readFileSync(path, "utf8") : entry.isDirectory() ? "<folder>" : "<other>";
  }
  return found;
}

/** Temp files of atomic writes anywhere under `dir`. */
function tempFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) => name.includes(".gyre-"));
}

/**
 * Rounds of file-tool calls through `d`: Reads of `d/key.txt` and of the file the next turn
 * edits (in parallel, as read-only calls run), then Writes of new files, Edits that create a
 * file, Edits of `d/key.txt` (each one checkpointed first), and the Edit of the file read just before.
 */
function raceTurns(): MockTurn[] {
  const turns: MockTurn[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Each with its own limit: the same call over and over would be stopped as a doom loop.
    const reads: Array<{ type: "tool_use"; name: string; input: Record<string, unknown> }> = Array.from(
      { length: READS_PER_ROUND },
      (_, index) => ({
        type: "tool_use",
        name: "Read",
        input: { file_path: join(ws, "d", "key.txt"), limit: round * READS_PER_ROUND + index + 1 },
      }),
    );
    reads.push({ type: "tool_use", name: "Read", input: { file_path: join(ws, "d", `e${round}.txt`) } });
    turns.push(mockTurn.of(reads));
    const changes = Array.from({ length: WRITES_PER_ROUND }, (_, index) => {
      const file = join(ws, "d", `race${round}-${index}.txt`);
      const input =
        index % 4 === 3
          ? // Fails (no such text), but only after the loop took its checkpoint of the file.
            { file_path: join(ws, "d", "key.txt"), old_string: `absent ${round}-${index}`, new_string: "x" }
          : index % 2 === 0
            ? { file_path: file, content: "written\n" }
            : { file_path: file, old_string: "", new_string: "made\n" };
      return { type: "tool_use" as const, name: "content" in input ? "Write" : "Edit", input };
    });
    changes.push({
      type: "tool_use",
      name: "Edit",
      input: { file_path: join(ws, "d", `e${round}.txt`), old_string: `e${round}`, new_string: "edited" },
    });
    turns.push(mockTurn.of(changes));
  }
  // Away from the race, to show that the tools and the checkpoints checked below work.
  turns.push(mockTurn.toolUse("Read", { file_path: join(ws, "plain.txt") }));
  turns.push(mockTurn.toolUse("Edit", { file_path: join(ws, "plain.txt"), old_string: "plain", new_string: "edited" }));
  return turns;
}

/** Runs the script, then (once `stopRenamer` has stopped the renamer) checks what the race left. */
async function race(
  script: MockScript,
  options: QueryOptions,
  stopRenamer: () => Promise<void>,
): Promise<SDKMessage[]> {
  const before = contentsOf(outside);
  // The session is stored, so Write and Edit take a checkpoint of each file before they change it.
  const checkpoints: Array<Buffer | null> = [];
  const sessionStore = new MemorySessionStore();
  const saveCheckpoint = sessionStore.saveCheckpoint.bind(sessionStore);
  sessionStore.saveCheckpoint = (id, uuid, file, content) => {
    checkpoints.push(content);
    return saveCheckpoint(id, uuid, file, content);
  };
  const messages = await withMock(script, (server) =>
    runQuery(server, FORMATS[0], "race", {
      cwd: ws,
      permissionMode: "acceptEdits",
      persistSession: true,
      sessionStore,
      ...options,
    }),
  );
  await stopRenamer();
  expect(resultOf(messages).subtype).toBe("success");
  const results = toolResults(messages).map((result) => String(result.content));
  // Nothing outside was read, written or left behind, and the loop's messages never carry the secret.
  expect(contentsOf(outside)).toEqual(before);
  expect(JSON.stringify(messages)).not.toContain(SECRET);
  expect(checkpoints.filter((content) => content?.toString().includes(SECRET))).toEqual([]);
  expect(checkpoints.filter((content) => content?.toString() === "plain\n")).toHaveLength(1);
  expect(tempFiles(ws)).toEqual([]);
  // Not vacuous: the renamer swapped `d` under the calls, so some found it the workspace's folder
  // and others did not (missing, or leading out). Whether a swap also lands between a call's check
  // and its open is timing; that refusal is asserted on schedules of its own in file-tools-race-fuzz.
  const kinds = outcomesOf(results);
  expect(kinds.inside).toBeGreaterThan(0);
  expect(kinds.elsewhere).toBeGreaterThan(0);
  expect(readFileSync(join(ws, "plain.txt"), "utf8")).toBe("edited\n");
  return messages;
}

describe("file tools beside a process that swaps a folder for a symlink out of the workspace", () => {
  it("Read, Write and Edit never read or write outside what was approved", async () => {
    const renamer = spawn(process.execPath, ["renamer.cjs"], { cwd: ws, stdio: ["ignore", "pipe", "inherit"] });
    children.push(renamer);
    await new Promise<void>((resolve) => renamer.stdout!.once("data", () => resolve()));
    const script: MockScript = { mode: "sequential", turns: [...raceTurns(), mockTurn.text("done")] };
    await race(script, {}, async () => {
      // Still running, so it raced every call.
      expect(renamer.exitCode).toBeNull();
      const exited = new Promise((resolve) => renamer.once("exit", resolve));
      renamer.kill("SIGKILL");
      await exited;
    });
  });

  it("nor when the renamer is a sandboxed background command that cannot see the outside folder", async () => {
    const script: MockScript = {
      mode: "sequential",
      turns: [
        mockTurn.toolUse("Bash", { command: "node renamer.cjs > renamer.out", run_in_background: true }),
        mockTurn.toolUse("Bash", {
          command: "while ! grep -q renaming renamer.out; do sleep 0.01; done; echo started",
        }),
        ...raceTurns(),
        mockTurn.toolUse("BashOutput", { bash_id: "bash_1" }),
        mockTurn.toolUse("KillShell", { shell_id: "bash_1" }),
        mockTurn.toolUse("Bash", { command: `cat ${outside}/key.txt; echo end` }),
        mockTurn.text("done"),
      ],
    };
    const options: QueryOptions = {
      // The commands are allowed outright: what confines them is the sandbox.
      allowedTools: ["Bash", "BashOutput", "KillShell"],
      sandbox: { enabled: true, filesystem: { denyRead: [outside] } },
    };
    // KillShell stopped it within the run.
    const messages = await race(script, options, async () => {});
    const texts = toolResults(messages).map((result) => String(result.content));
    expect(texts[1]).toContain("started");
    const [output, killed, hidden] = texts.slice(-3);
    // The renamer was still running when the race ended, and the sandbox hides the outside folder from it.
    expect(output).toContain("running");
    expect(killed).toContain("bash_1");
    expect(hidden).toContain(`read of ${outside}/key.txt denied by the sandbox`);
  });
});

/**
 * How the calls of the race found `d`: as the workspace's folder (they read its file or wrote
 * into it) or not (refused at the open, missing, or leading out of the workspace).
 */
function outcomesOf(results: string[]): { inside: number; elsewhere: number } {
  const inside = results.filter((text) => /inside (key|e\d)|File created successfully/.test(text)).length;
  const elsewhere = results.filter((text) =>
    /the path changed while it was being opened|is outside the workspace|File does not exist/.test(text),
  ).length;
  return { inside, elsewhere };
}
