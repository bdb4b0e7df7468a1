import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Language, Parser, Tree } from "web-tree-sitter";
import type { SyntaxNode } from "./syntax-tree.js";

/**
 * Bash syntax trees from tree-sitter-bash, run as WebAssembly through web-tree-sitter: a
 * maintained grammar, one parser for every platform, no native build. Loading is async and
 * slow (once per process) but parsing is synchronous and quick, so the permission policy
 * stays synchronous: whoever evaluates Bash calls awaits `loadShellParser()` first, and
 * until it has loaded every command is treated as unparsed. web-tree-sitter itself is
 * imported by that first load, not with Gyre: most programs that import Gyre never judge a
 * Bash command.
 */
let parser: Parser | undefined;

/** Set on globalThis while the parser compiles under V8 flags of its own (src/cli/code-cache.ts reads it). */
const V8_FLAGS_CHANGED = Symbol.for("gyre.v8-flags-changed");
let loading: Promise<void> | undefined;

/** Load the parser once; later calls return the same promise. Never rejects. */
export function loadShellParser(): Promise<void> {
  // A parser that fails to load leaves every command unreadable: Bash calls ask.
  loading ??= load().catch(() => {});
  return loading;
}

/** A command line's syntax tree, copied out of WebAssembly. */
export interface ParsedShell {
  root: SyntaxNode;
  /** The grammar met something it could not read (an `ERROR` or `MISSING` node). */
  hasError: boolean;
}

/** Parse a command line; `undefined` when the parser has not loaded. */
export function parseShell(source: string): ParsedShell | undefined {
  const tree = parser?.parse(source);
  if (!tree) return undefined;
  try {
    return { root: copyTree(tree), hasError: tree.rootNode.hasError };
  } finally {
    tree.delete();
  }
}

async function load(): Promise<void> {
  const { Language, Parser } = await import("web-tree-sitter");
  // Resolved from the package rather than from this file's URL, so the bundled CLI finds them too.
  const require = createRequire(import.meta.url);
  // node:v8 only now: a start that never parses a command does not load it.
  const { setFlagsFromString } = require("node:v8") as typeof import("node:v8");
  const runtime = readFileSync(require.resolve("web-tree-sitter/web-tree-sitter.wasm"));
  const grammarBytes = readFileSync(require.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
  // V8 optimises a WebAssembly module with TurboFan in the background: for the 1.3 MB
  // grammar that is CPU that competes with the run and holds up the process's exit
  // (docs/benchmarks.md says how much). Its baseline compiler parses a command fast enough.
  let grammar: Language;
  setFlagsFromString("--liftoff-only");
  Reflect.set(globalThis, V8_FLAGS_CHANGED, true);
  try {
    await Parser.init({ wasmBinary: runtime });
    grammar = await Language.load(grammarBytes);
  } finally {
    setFlagsFromString("--no-liftoff-only");
  }
  // --liftoff-only also turned off wasm tier-up (V8's flag implications), and --no-liftoff-only
  // leaves it off, as it must stay for the grammar: turned back on now, the grammar tiers up
  // after all (about 0.5 s of CPU and an exit 1.3 s later, measured). But V8 accepts code cache
  // only from a process whose flags hash as the reader's: the CLI, which loads its files as it
  // needs them (src/cli/code-cache.ts), loads the files it needs from now on without a cache
  // and writes none (else it would write caches every later start rejects), and the defaults
  // come back at exit, before any other exit listener runs (the CLI's writes its caches).
  process.prependOnceListener("exit", () => {
    setFlagsFromString("--wasm-tier-up --wasm-dynamic-tiering");
    Reflect.deleteProperty(globalThis, V8_FLAGS_CHANGED);
  });
  const instance = new Parser();
  instance.setLanguage(grammar);
  parser = instance;
}

/** Copy a tree-sitter tree into `SyntaxNode`s. */
function copyTree(tree: Tree): SyntaxNode {
  const cursor = tree.walk();
  const make = (parent: SyntaxNode | null): SyntaxNode => {
    const node: SyntaxNode = {
      type: cursor.nodeType,
      named: cursor.nodeIsNamed,
      start: cursor.startIndex,
      end: cursor.endIndex,
      field: cursor.currentFieldName,
      children: [],
      parent,
    };
    parent?.children.push(node);
    return node;
  };
  try {
    const root = make(null);
    let current = root;
    for (;;) {
      if (cursor.gotoFirstChild()) {
        current = make(current);
        continue;
      }
      for (;;) {
        if (cursor.gotoNextSibling()) {
          current = make(current.parent);
          break;
        }
        if (!cursor.gotoParent()) return root;
        current = current.parent!;
      }
    }
  } finally {
    cursor.delete();
  }
}
