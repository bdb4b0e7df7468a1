// Property test of the file tools against rename races (issue 26, finding 4): generated
// schedules of renames — `d` swapped between a folder of the workspace and a symlink out of it,
// a symlink planted at the file's own name — each run at a generated point between the file
// system calls of one Read, Write or Edit, and before its permission check. Whatever the
// interleaving, nothing outside the workspace is read or written, and no temp file is left.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PermissionPolicy } from "../src/permissions/index.js";
import { editTool } from "../src/tools/builtin/edit.js";
import { readTool } from "../src/tools/builtin/read.js";
import { writeTool } from "../src/tools/builtin/write.js";
import { executeTool, prepareCall } from "../src/tools/execute.js";
import { ToolRegistry } from "../src/tools/registry.js";
import type { ToolResult } from "../src/tools/tool.js";
import { ToolSession } from "../src/tools/tool-session.js";

/** Runs the schedule's renames due before each call the tools make to node:fs/promises. */
const fsHook = vi.hoisted(() => ({ beforeCall: undefined as (() => void) | undefined }));

vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<Record<string, unknown>>();
  const hooked = Object.fromEntries(
    Object.entries(real).map(([name, value]) => [
      name,
      typeof value === "function" && name !== "default"
        ? (...args: unknown[]) => {
            fsHook.beforeCall?.();
            return (value as (...args: unknown[]) => unknown)(...args);
          }
        : value,
    ]),
  );
  return { ...hooked, default: hooked };
});

const SECRET = "OUTSIDE-SECRET";
let root: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "gyre-race-fuzz-")));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What another process does to the workspace at one point of the schedule. */
type Move = "A->d" | "d->A" | "B->d" | "d->B" | "link-name";

interface World {
  ws: string;
  outside: string;
}

let worlds = 0;

/** A workspace with the folder `A` and the link `B` to `outside`; both hold the same names. */
function makeWorld(): World {
  const ws = join(root, `ws${worlds}`);
  const outside = join(root, `out${worlds++}`);
  mkdirSync(join(ws, "A"), { recursive: true });
  mkdirSync(outside);
  for (const [dir, whose] of [
    [join(ws, "A"), "inside"],
    [outside, SECRET],
  ] as const) {
    for (const name of ["key.txt", "e.txt"]) writeFileSync(join(dir, name), `${whose} ${name}\n`);
  }
  symlinkSync(outside, join(ws, "B"));
  return { ws, outside };
}

/** The move, if it can be made now (a rename whose source is gone does nothing, as in a real race). */
function move(world: World, step: Move, file: string): void {
  const at = (name: string) => join(world.ws, name);
  const rename = (from: string, to: string) => {
    if (existsSync(at(to))) return;
    try {
      renameSync(at(from), at(to));
    } catch {
      // Gone meanwhile: nothing to move.
    }
  };
  if (step !== "link-name") {
    const [from, to] = step.split("->") as [string, string];
    rename(from, to);
    return;
  }
  // The folder of the workspace, wherever it is now, gets a link at the file's name leading out.
  const folder = ["A", "d"].map(at).find((dir) => existsSync(dir) && !lstatSync(dir).isSymbolicLink());
  if (!folder || lstatSync(join(folder, file), { throwIfNoEntry: false })?.isSymbolicLink()) return;
  rmSync(join(folder, file), { force: true });
  symlinkSync(join(world.outside, file), join(folder, file));
}

/** Every file under `dir` with its content (links and folders by kind). */
function snapshot(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    found[path] = entry.isFile() ? readFileSync(path, "utf8") : entry.isSymbolicLink() ? "<link>" : "<folder>";
  }
  return found;
}

const tempFiles = (dir: string) =>
  readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) => name.includes(".gyre-"));

type CallKind = "read" | "write-new" | "write-existing" | "write-deeper" | "edit" | "edit-create";

/** The tool call for `kind` on paths through `d`, and the file its schedule's `link-name` targets. */
function callFor(kind: CallKind, ws: string): { name: string; input: Record<string, unknown>; file: string } {
  const d = (name: string) => join(ws, "d", name);
  switch (kind) {
    case "read":
      return { name: "Read", input: { file_path: d("key.txt") }, file: "key.txt" };
    case "write-new":
      return { name: "Write", input: { file_path: d("new.txt"), content: "new\n" }, file: "new.txt" };
    case "write-existing":
      return { name: "Write", input: { file_path: d("e.txt"), content: "replaced\n" }, file: "e.txt" };
    case "write-deeper":
      return { name: "Write", input: { file_path: d("sub/deeper/new.txt"), content: "deep\n" }, file: "sub" };
    case "edit":
      return {
        name: "Edit",
        input: { file_path: d("e.txt"), old_string: "e.txt", new_string: "edited" },
        file: "e.txt",
      };
    case "edit-create":
      return {
        name: "Edit",
        input: { file_path: d("made.txt"), old_string: "", new_string: "made\n" },
        file: "made.txt",
      };
  }
}

const SIDE_EFFECT = { Read: "read-only", Write: "mutating", Edit: "mutating" } as const;
const registry = new ToolRegistry([readTool(), writeTool(), editTool()]);

/** Runs one call as the loop does: the permission check judges it, then the tool runs with its verdict. */
async function callTool(
  world: World,
  session: ToolSession,
  call: { name: string; input: Record<string, unknown> },
): Promise<ToolResult | "denied"> {
  const policy = new PermissionPolicy({ cwd: world.ws, home: root, mode: "acceptEdits" });
  const verdict = policy.evaluate({
    toolName: call.name,
    input: call.input,
    sideEffect: SIDE_EFFECT[call.name as keyof typeof SIDE_EFFECT],
    cwd: world.ws,
  });
  // Outside the workspace the check asks, and nobody answers here: the call does not run.
  if (verdict.behavior !== "allow") return "denied";
  const prepared = prepareCall(registry, { id: `call-${worlds}`, name: call.name, input: call.input });
  if (!prepared.ok) throw new Error("the generated input is invalid");
  return executeTool(prepared.tool, prepared.input, {
    cwd: world.ws,
    signal: new AbortController().signal,
    sessionId: session.id,
    toolUseId: prepared.call.id,
    session,
    files: { ...(verdict.path !== undefined && { approvedPath: verdict.path }), mayRead: () => true },
    reportProgress: () => {},
    emit: () => {},
  });
}

const schedule = fc.array(
  fc.record({
    /** 0: before the permission check; n: before the tools' n-th call to node:fs/promises. */
    at: fc.nat({ max: 14 }),
    step: fc.constantFrom<Move>("A->d", "d->A", "B->d", "d->B", "link-name"),
  }),
  { maxLength: 6 },
);

describe("Read, Write and Edit beside generated rename races", () => {
  it("never read or write outside the workspace, and leave no temp file", async () => {
    const outcomes = { ran: 0, refused: 0, denied: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<CallKind>("read", "write-new", "write-existing", "write-deeper", "edit", "edit-create"),
        fc.constantFrom("A", "B", "none"),
        schedule,
        async (kind, start, steps) => {
          const world = makeWorld();
          const session = new ToolSession("race-fuzz");
          // The session read d/e.txt while `d` was the workspace's folder, so Write and Edit may change it.
          move(world, "A->d", "");
          fsHook.beforeCall = undefined;
          await callTool(world, session, { name: "Read", input: { file_path: join(world.ws, "d", "e.txt") } });
          if (start !== "A") move(world, "d->A", "");
          if (start === "B") move(world, "B->d", "");
          const before = snapshot(world.outside);
          const call = callFor(kind, world.ws);
          const due = (index: number) => {
            for (const { step } of steps.filter(({ at }) => at === index)) move(world, step, call.file);
          };
          let calls = 0;
          due(0);
          fsHook.beforeCall = () => due(++calls);
          let result: ToolResult | "denied";
          try {
            result = await callTool(world, session, call);
          } finally {
            fsHook.beforeCall = undefined;
          }
          const text = result === "denied" ? "" : JSON.stringify(result.content);
          expect(snapshot(world.outside)).toEqual(before);
          expect(text).not.toContain(SECRET);
          expect([...tempFiles(world.ws), ...tempFiles(world.outside)]).toEqual([]);
          if (result === "denied") outcomes.denied++;
          else if (text.includes("the path changed while it was being opened")) outcomes.refused++;
          else if (result.isError !== true) outcomes.ran++;
        },
      ),
      { numRuns: Number(process.env.GYRE_FUZZ_RUNS ?? 300), seed: Number(process.env.GYRE_FUZZ_SEED ?? 20261128) },
    );
    // The schedules reached every outcome: calls that ran, that the check denied, and swaps caught.
    expect(outcomes.ran).toBeGreaterThan(0);
    expect(outcomes.denied).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
  });
});
