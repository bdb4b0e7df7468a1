import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// DESIGN.md's layout as a check: the import graph of src/ (relative imports, type-only and
// dynamic ones included) has no circles, no room imports one that stands above it, and a room
// reaches another only through an index.ts (its own, or a nested room's as tools/builtin's).

const SRC = path.resolve(import.meta.dirname, "../src");

/**
 * Each room's floor (a folder of src/, or a file directly in it), from DESIGN.md's layers: a file may import its own floor and those below,
 * never one above. Rooms on one floor may import each other (the file graph has no circles).
 */
const FLOORS: Readonly<Record<string, number>> = {
  protocol: 0,
  errors: 0,
  // src/version.ts: the package's version (written from package.json).
  "version.ts": 0,
  async: 1,
  files: 1,
  net: 1,
  model: 2,
  tools: 2,
  permissions: 2,
  hooks: 2,
  settings: 2,
  context: 2,
  sessions: 2,
  sandbox: 2,
  mcp: 2,
  skills: 2,
  "tool-search": 2,
  plugins: 2,
  commands: 2,
  loop: 3,
  telemetry: 3,
  run: 4,
  agents: 5,
  server: 6,
  "mcp-server": 6,
  cli: 6,
  tui: 6,
  ui: 6,
  testing: 6,
  // src/index.ts: the public API.
  "index.ts": 6,
};

/** What a module imports or re-exports, type-only and dynamic imports included. */
function specifiersOf(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map(({ fileName }) => fileName);
}

/** src/-relative path → the src/ files it imports. */
function importGraph(): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true })
    .map((file) => String(file).split(path.sep).join("/"))
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith(".d.ts"));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const imports = specifiersOf(readFileSync(path.join(SRC, file), "utf8"))
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => {
        const base = path.posix.join(path.posix.dirname(file), specifier).replace(/\.js$/, "");
        return [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find((candidate) => known.has(candidate));
      })
      .filter((target) => target !== undefined);
    graph.set(file, [...new Set(imports)]);
  }
  return graph;
}

/** The strongly connected components with more than one file (or a file importing itself): Tarjan's. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** One way round a circle, from its first file back to it, for the failure message. */
function wayRound(graph: ReadonlyMap<string, readonly string[]>, component: readonly string[]): string {
  const members = new Set(component);
  const start = component[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of graph.get(file) ?? []) {
      if (!members.has(target) || cameFrom.has(target)) continue;
      cameFrom.set(target, file);
      if (target === start) queue.length = 0;
      else queue.push(target);
    }
  }
  const way: string[] = [];
  for (let file = cameFrom.get(start)!; file !== start; file = cameFrom.get(file)!) way.unshift(file);
  return [start, ...way, start].join(" → ");
}

const isTestCode = (file: string) => /\.test(-harness)?\.tsx?$|-fixtures\.ts$|test-support\.ts$/.test(file);

describe("the import graph of src/", () => {
  const graph = importGraph();

  it("has no import circles", () => {
    expect(circles(graph).map((component) => wayRound(graph, component))).toEqual([]);
  });

  it("has no import from a room to one above it", () => {
    const roomOf = (file: string) => file.split("/")[0]!;
    const rooms = new Set([...graph.keys()].map(roomOf));
    expect([...rooms].filter((room) => FLOORS[room] === undefined)).toEqual([]);
    const upward = [...graph]
      .filter(([file]) => !isTestCode(file))
      .flatMap(([file, imports]) =>
        imports
          .filter((target) => FLOORS[roomOf(target)]! > FLOORS[roomOf(file)]!)
          .map((target) => `${file} → ${target}`),
      );
    expect(upward).toEqual([]);
  });

  it("has a room reach another only through an index.ts", () => {
    const roomOf = (file: string) => file.split("/")[0]!;
    const aside = [...graph]
      .filter(([file]) => !isTestCode(file))
      .flatMap(([file, imports]) =>
        imports
          .filter((target) => target.includes("/") && roomOf(target) !== roomOf(file) && !target.endsWith("/index.ts"))
          .map((target) => `${file} → ${target}`),
      );
    expect(aside).toEqual([]);
  });

  it("reads type-only and dynamic imports and re-exports", () => {
    const source = [
      'import type { A } from "./a.js";',
      'export type { B } from "./b.js";',
      'export * from "./c.js";',
      'const { d } = await import("./d.js");',
      'type E = import("./e.js").E;',
    ].join("\n");
    expect(specifiersOf(source).sort()).toEqual(["./a.js", "./b.js", "./c.js", "./d.js", "./e.js"]);
  });

  it("finds a circle and a way round it", () => {
    const example = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(circles(example)).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(wayRound(example, ["a.ts", "b.ts", "c.ts"])).toBe("a.ts → b.ts → c.ts → a.ts");
  });
});
