// Property test for issue 26, finding 1: generated trees, generated Read deny rules (`./`, bare,
// `**`, folder and file forms) and generated Grep and Glob calls, on ripgrep and the JavaScript
// backend, with the context the tool-call pipeline gives (the policy's judged path and its
// per-file Read check). Which files a rule denies is worked out here from the rule's form, not
// by the policy, so a policy that matched wrongly would be caught. No output may hold a denied
// file's name or content, and every allowed file a search finds must still be reported.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../src/permissions/index.js";
import { globTool } from "../src/tools/builtin/glob-tool.js";
import { grepTool } from "../src/tools/builtin/grep/index.js";
import { type AnyTool, type FoundPath, type ToolContext, ToolSession } from "../src/tools/index.js";

const FOLDERS = ["a", "b", ".h", "deep"];
const EXTENSIONS = ["txt", "env", "pem", ""];

interface TreeFile {
  /** Path below the workspace, `/`-separated; its base name `f<i>x…` is unique. */
  rel: string;
  /** Unique text in its content. */
  token: string;
}

/** A rule and, worked out from its form, whether it denies a file at `rel`. */
interface GeneratedRule {
  rule: string;
  denies: (rel: string) => boolean;
}

const fileSpec = fc.record({
  folders: fc.array(fc.constantFrom(...FOLDERS), { maxLength: 2 }),
  hidden: fc.boolean(),
  extension: fc.constantFrom(...EXTENSIONS),
});

function treeFiles(specs: Array<{ folders: string[]; hidden: boolean; extension: string }>) {
  return specs.map((spec, i): TreeFile => {
    const name = `${spec.hidden ? "." : ""}f${i}x${spec.extension === "" ? "" : `.${spec.extension}`}`;
    return { rel: [...spec.folders, name].join("/"), token: `tk${i}q` };
  });
}

const segments = (rel: string) => rel.split("/");

/** Rules in each form the settings allow, each with what it denies in gitignore terms. */
function ruleFor(kind: number, files: TreeFile[], pick: number): GeneratedRule {
  const file = files[pick % files.length]!;
  const folder = FOLDERS[pick % FOLDERS.length]!;
  switch (kind) {
    case 0: // a file, anchored at the workspace
      return { rule: `Read(./${file.rel})`, denies: (rel) => rel === file.rel };
    case 1: // a file as written bare: anchored when it has a slash, any depth when not
      return {
        rule: `Read(${file.rel})`,
        denies: (rel) => rel === file.rel || (!file.rel.includes("/") && rel.split("/").at(-1) === file.rel),
      };
    case 2: // a folder at the top, with `./…/**`
      return { rule: `Read(./${folder}/**)`, denies: (rel) => rel.startsWith(`${folder}/`) };
    case 3: // a folder at the top, bare with `/**`
      return { rule: `Read(${folder}/**)`, denies: (rel) => rel.startsWith(`${folder}/`) };
    case 4: // a name at any depth: the folder (and all it holds) or a file of that name
      return { rule: `Read(${folder})`, denies: (rel) => segments(rel).includes(folder) };
    case 5: // a folder anywhere, with `**/…/**`
      return { rule: `Read(**/${folder}/**)`, denies: (rel) => segments(rel).slice(0, -1).includes(folder) };
    case 6: // an extension anywhere
      return { rule: "Read(**/*.pem)", denies: (rel) => rel.endsWith(".pem") };
    default: // a bare extension: any depth
      return { rule: "Read(*.env)", denies: (rel) => rel.endsWith(".env") };
  }
}

const grepInput = fc.record(
  {
    pattern: fc.constantFrom("common", "tk\\d+q", "COMMON", "line\\n.*common", "^last"),
    output_mode: fc.constantFrom("content", "files_with_matches", "count"),
    glob: fc.constantFrom("*", "**", ".*", "*.env", "**/*.txt", "{.h,**}", "*.{pem,env}", "!*.txt"),
    path: fc.constantFrom(".", "a", ".h", "deep/a", "WS"),
    "-i": fc.boolean(),
    "-C": fc.integer({ min: 0, max: 2 }),
    multiline: fc.boolean(),
    head_limit: fc.constantFrom(0, 1, 3),
    offset: fc.constantFrom(0, 1),
  },
  { requiredKeys: ["pattern"] },
);

const globInput = fc.record(
  {
    pattern: fc.constantFrom("**/*", "**/.*", ".*", "**/*.env", "*/*", "**/f*", "a/**", ".h/**", "**/.h/*", "*"),
    path: fc.constantFrom(".", "a", "b", ".h", "WS"),
  },
  { requiredKeys: ["pattern"] },
);

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The workspace on disk, with a link out of it to a file that must never be reported. */
function writeTree(files: TreeFile[]): string {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-search-fuzz-")));
  scratch.push(root);
  const ws = path.join(root, "ws");
  mkdirSync(path.join(root, "out"));
  writeFileSync(path.join(root, "out", "fOUTx.txt"), "tkOUTq common line\n");
  mkdirSync(ws);
  for (const file of files) {
    mkdirSync(path.dirname(path.join(ws, file.rel)), { recursive: true });
    writeFileSync(path.join(ws, file.rel), `line one\n${file.token} common line\nlast ${file.token}\n`);
  }
  symlinkSync(path.join(root, "out"), path.join(ws, "lnk"));
  symlinkSync(path.join(root, "out", "fOUTx.txt"), path.join(ws, "flink.txt"));
  return ws;
}

/** Run a tool as the tool-call pipeline does: the permission check first, then the call with its `files`. */
async function call(tool: AnyTool, input: Record<string, unknown>, ws: string, policy: PermissionPolicy | undefined) {
  const concrete = { ...input, ...(input.path === "WS" && { path: ws }) };
  const decision = policy?.evaluate({ toolName: tool.name, input: concrete, sideEffect: "read-only", cwd: ws });
  if (decision?.behavior === "deny") return undefined;
  const context: ToolContext = {
    cwd: ws,
    signal: new AbortController().signal,
    sessionId: "fuzz",
    toolUseId: "fuzz",
    session: new ToolSession("fuzz"),
    reportProgress: () => {},
    emit: () => {},
    ...(policy && {
      files: {
        ...(decision?.path !== undefined && { approvedPath: decision.path }),
        mayRead: (file: string, found?: FoundPath) => policy.mayRead(file, tool.name, found),
      },
    }),
  };
  if (!tool.execute) throw new Error(`${tool.name} runs nowhere`);
  try {
    const result = await tool.execute(concrete, context);
    return typeof result === "string" ? { content: result, data: undefined } : result;
  } catch (error) {
    return { content: String(error), data: undefined };
  }
}

const TOOLS = [grepTool({ backend: "ripgrep" }), grepTool({ backend: "js" })];
const GLOB = globTool();

describe("searches never report what Read rules deny (property)", () => {
  it("for generated trees, rules and calls, on both Grep backends and Glob", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fileSpec, { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 7 }), fc.nat(20)), { minLength: 1, maxLength: 3 }),
        fc.array(grepInput, { minLength: 1, maxLength: 2 }),
        fc.array(globInput, { minLength: 1, maxLength: 2 }),
        async (specs, ruleSpecs, greps, globs) => {
          const files = treeFiles(specs);
          const rules = ruleSpecs.map(([kind, pick]) => ruleFor(kind, files, pick));
          const ws = writeTree(files);
          const policy = new PermissionPolicy({ cwd: ws, deny: rules.map((rule) => rule.rule) });
          const denied = files.filter((file) => rules.some((rule) => rule.denies(file.rel)));
          const allowed = new Set(files.filter((file) => !denied.includes(file)).map((file) => file.rel));
          const leaks = (text: string) =>
            [...denied.flatMap((file) => [file.token, path.posix.basename(file.rel)]), "tkOUTq", "fOUTx"].filter(
              (secret) => text.includes(secret),
            );
          const runs = [
            ...greps.flatMap((input) => TOOLS.map((tool) => [tool, input] as const)),
            ...globs.map((input) => [GLOB, input] as const),
          ];
          for (const [tool, input] of runs) {
            const guarded = await call(tool, input, ws, policy);
            if (guarded === undefined) continue; // the call itself was denied
            const shown = JSON.stringify(guarded);
            expect(leaks(shown), `${tool.name} ${JSON.stringify(input)} with ${rules.map((r) => r.rule)}`).toEqual([]);
            // Nothing allowed goes missing: the same search without rules, less the denied files.
            const unpaged = tool.name === "Grep" ? { ...input, head_limit: 0, offset: 0 } : input;
            const bare = await call(tool, unpaged, ws, undefined);
            const full = await call(tool, unpaged, ws, policy);
            const names = (result: typeof bare) => [...((result?.data as { filenames?: string[] })?.filenames ?? [])];
            const inWorkspace = (name: string) => path.relative(ws, path.resolve(ws, name));
            expect(names(full).map(inWorkspace).sort()).toEqual(
              names(bare)
                .map(inWorkspace)
                .filter((name) => allowed.has(name))
                .sort(),
            );
          }
        },
      ),
      { numRuns: Number(process.env.GYRE_FUZZ_RUNS ?? 25), seed: Number(process.env.GYRE_FUZZ_SEED ?? 20261128) },
    );
  });
});
