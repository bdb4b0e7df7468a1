// Property tests of the Bash permission check against real bash: commands generated from a
// grammar of quoting, expansions, redirects, lists and compound statements. Whatever the
// policy allows is then run, and what it really did is the verdict:
// - under `Bash(okcmd:*)`, an allowed line may run `okcmd` and nothing else, and write only
//   inside the workspace (every other command, builtin tricks included, ends up calling
//   `pwn` or an unknown name, both logged);
// - under `Bash` with a `Bash(pwn:*)` deny rule, an allowed line never runs `pwn`.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
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
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadShellParser, PermissionPolicy } from "../src/permissions/index.js";

let root: string;
let ws: string;
let bin: string;
let log: string;
let outside: string;
let bashEnv: string;

beforeAll(async () => {
  await loadShellParser();
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-fuzz-")));
  ws = path.join(root, "ws");
  bin = path.join(root, "bin");
  outside = path.join(root, "outside");
  log = path.join(root, "log");
  for (const dir of [ws, bin, outside, path.join(ws, ".git")]) mkdirSync(dir);
  for (const name of ["okcmd", "pwn"]) {
    const script = path.join(bin, name);
    writeFileSync(script, `#!/bin/sh\necho "${name} $*" >> '${log}'\n`);
    chmodSync(script, 0o755);
  }
  // Any name bash cannot find is logged too, so an unexpected command never goes unseen.
  bashEnv = path.join(root, "bash-env");
  writeFileSync(bashEnv, `command_not_found_handle() { echo "NOTFOUND $1" >> '${log}'; return 127; }\n`);
  symlinkSync(outside, path.join(ws, "lnk"));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function resetFiles(): void {
  for (const entry of readdirSync(ws))
    if (entry !== "lnk" && entry !== ".git") rmSync(path.join(ws, entry), { recursive: true, force: true });
  for (const entry of readdirSync(outside)) rmSync(path.join(outside, entry), { recursive: true, force: true });
  writeFileSync(path.join(ws, ".git", "config"), "[core]\n");
  writeFileSync(log, "");
}

/** Run the line in real bash in the workspace; the log of what ran. */
function runInBash(command: string, searchPath: string): string[] {
  const result = spawnSync("/bin/bash", ["-c", command], {
    cwd: ws,
    env: { PATH: searchPath, BASH_ENV: bashEnv, HOME: ws, x: "", f: "" },
    input: "",
    timeout: 5_000,
    encoding: "utf8",
  });
  if (result.error) throw result.error;
  return readFileSync(log, "utf8").split("\n").filter(Boolean);
}

const decide = (policy: PermissionPolicy, command: string) =>
  policy.evaluate({ toolName: "Bash", input: { command }, sideEffect: "mutating", cwd: ws }).behavior;

// The grammar. Payloads call `pwn`; names not on PATH are logged as NOTFOUND.
const plainWord = fc.constantFrom(
  "a",
  "-x",
  "--flag=1",
  "file.txt",
  "1",
  "sub/dir",
  "%s",
  "a=b",
  "x,y",
  "^",
  "!",
  "]",
  "a\\\nb",
  "#c",
);
const quotedWord = fc.constantFrom("'a b'", '"a b"', "'$(pwn)'", '"\\$(pwn)"', "\\$x", "'`pwn`'", '"it\'s"', "''");
const expansionWord = fc.constantFrom(
  "$x",
  "${x}",
  '"$x"',
  "${x@P}",
  "$((x))",
  "$((1+2))",
  "$(pwn)",
  '"$(pwn)"',
  "`pwn`",
  "$'\\x41'",
  '$"t"',
  "{a,b}",
  "{pwn,x}",
  "*",
  "?",
  "[a]*",
  "~",
  "~/x",
  "<(pwn)",
  "${x:-$(pwn)}",
  "${a[$(pwn)]}",
  "${#x}",
  "$1",
  "$@",
  "a=~/x",
);
// Weighted towards lines that are nearly inert: one construct away from allowed is where a
// checker goes wrong.
const word = fc.oneof(
  { weight: 8, arbitrary: plainWord },
  { weight: 3, arbitrary: quotedWord },
  { weight: 2, arbitrary: expansionWord },
);
const trickyName = fc.constantFrom(
  'ok"cmd"',
  "ok\\cmd",
  "$x",
  "pwn",
  "eval",
  "printf -v",
  "read",
  "declare",
  "export",
  "let",
  "source",
  "[",
  "test -v",
  "${x}",
  "okcmd$x",
  "o?cmd",
);
const commandName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("okcmd", "'okcmd'", 'ok"cmd"', "ok\\cmd") },
  { weight: 2, arbitrary: trickyName },
  // A line continuation joins words in bash: `ok\<newline>cmd` is okcmd, `okcmd\<newline>x` is not.
  { weight: 1, arbitrary: fc.constantFrom("ok\\\ncmd", "okcmd\\\nx", "p\\\nwn") },
);
const assignment = fc.constantFrom(
  "x='$(pwn)'",
  "x='a[$(pwn)]'",
  "x=pwn",
  "x=okcmd",
  "PATH=.",
  "x=1",
  "f=../outside/o",
  "x=",
);
const redirect = fc.constantFrom(
  "> out.txt",
  ">> out.txt",
  "2>&1",
  "> /dev/null",
  `> lnk/victim.txt`,
  "> l?k/victim.txt",
  "> $'lnk/v'",
  "> .git/config",
  "> $f",
  "> ~/x",
  "> {a,lnk/b}",
  "< /dev/null",
  "<<< $(pwn)",
  "<<< plain",
  "&> both.txt",
  ">| out.txt",
);
/** `arbitrary` in `yes` of `yes + no` cases, else nothing. */
const sometimes = (arbitrary: fc.Arbitrary<string>, yes: number, no: number) =>
  fc.oneof({ weight: yes, arbitrary }, { weight: no, arbitrary: fc.constant(null) });
const simple = fc
  .tuple(sometimes(assignment, 1, 5), commandName, fc.array(word, { maxLength: 3 }), sometimes(redirect, 1, 2))
  .map(([assign, name, args, redirect]) => [assign, name, ...args, redirect].filter((part) => part !== null).join(" "));

const { line } = fc.letrec<{ line: string; statement: string }>((tie) => ({
  statement: fc.oneof(
    { weight: 14, arbitrary: simple },
    { weight: 1, arbitrary: assignment },
    // A value set up for a later expansion (`x='$(pwn)'; okcmd ${x@P}`).
    { weight: 3, arbitrary: fc.tuple(assignment, simple).map(([a, c]) => `${a}; ${c}`) },
    { weight: 1, arbitrary: tie("line").map((body) => `( ${body} )`) },
    { weight: 1, arbitrary: tie("line").map((body) => `{ ${body}; }`) },
    { weight: 1, arbitrary: fc.tuple(word, simple).map(([w, body]) => `for x in ${w}; do ${body}; done`) },
    { weight: 1, arbitrary: fc.tuple(simple, simple).map(([c, body]) => `if ${c}; then ${body}; fi`) },
    { weight: 1, arbitrary: simple.map((body) => `while false; do ${body}; done`) },
    { weight: 1, arbitrary: simple.map((body) => `f() { ${body}; }; f`) },
    { weight: 1, arbitrary: word.map((w) => `[[ ${w} -eq 1 ]]`) },
    { weight: 1, arbitrary: word.map((w) => `(( ${w} ))`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("okcmd <<EOF\n$(pwn)\nEOF", "okcmd <<'EOF'\n$(pwn)\nEOF", "okcmd <<EOF\nplain\nEOF"),
    },
  ),
  line: fc
    .tuple(
      tie("statement"),
      fc.array(fc.tuple(fc.constantFrom(" && ", " || ", "; ", " | ", "\n", " & "), tie("statement")), { maxLength: 2 }),
    )
    .map(([first, rest]) => first + rest.map(([op, statement]) => op + statement).join("")),
}));

describe("Bash permissions hold against generated commands, judged by real bash", () => {
  it("under Bash(okcmd:*), an allowed line runs only okcmd and writes only inside the workspace", () => {
    const policy = new PermissionPolicy({ cwd: ws, home: ws, allow: ["Bash(okcmd:*)"], mode: "dontAsk" });
    let allowed = 0;
    fc.assert(
      fc.property(line, (command) => {
        if (decide(policy, command) !== "allow") return;
        allowed++;
        resetFiles();
        const ran = runInBash(command, bin);
        expect(ran.filter((entry) => !entry.startsWith("okcmd"))).toEqual([]);
        expect(readdirSync(outside)).toEqual([]);
        expect(readFileSync(path.join(ws, ".git", "config"), "utf8")).toBe("[core]\n");
      }),
      { numRuns: Number(process.env.GYRE_FUZZ_RUNS ?? 300), seed: Number(process.env.GYRE_FUZZ_SEED ?? 20261123) },
    );
    // The property must have been tested on real allowed lines, not vacuously.
    expect(allowed).toBeGreaterThan(20);
  });

  it("with Bash allowed and Bash(pwn:*) denied, an allowed line never runs pwn", () => {
    const policy = new PermissionPolicy({ cwd: ws, home: ws, allow: ["Bash"], deny: ["Bash(pwn:*)"], mode: "dontAsk" });
    const wrapped = fc
      .tuple(
        fc.constantFrom(
          "",
          "timeout 5 ",
          "timeout -s KILL 5 ",
          "env ",
          "env -u X ",
          "nice -n 1 ",
          "nohup ",
          "setsid -w ",
          "stdbuf -o0 ",
          "command ",
          "exec ",
          "coproc ",
          "env -S",
          "sh -c ",
          "bash -c ",
        ),
        fc.constantFrom("pwn", "'pwn'", "p\\wn", "p\\\nwn", `${"$"}x`, "okcmd", "echo", `"$(echo pwn)"`),
        fc.constantFrom("", " a", " $x"),
      )
      .map(([wrapper, name, arg]) =>
        wrapper.endsWith("-c ") || wrapper.endsWith("-S") ? `${wrapper}'${name}${arg}'` : `${wrapper}${name}${arg}`,
      );
    const deny = fc.oneof(
      wrapped,
      line,
      fc.tuple(assignment, wrapped).map(([a, w]) => `${a}; ${w}`),
      wrapped.map((w) => `echo a | xargs ${w}`),
      fc.constant(`${path.join("/bin/../", "tmp", "..")}/${"pwn"}`),
    );
    let allowed = 0;
    fc.assert(
      fc.property(deny, (command) => {
        if (decide(policy, command) !== "allow") return;
        allowed++;
        resetFiles();
        const ran = runInBash(command, `${bin}:/usr/bin:/bin`);
        expect(ran.filter((entry) => entry.startsWith("pwn"))).toEqual([]);
      }),
      { numRuns: Number(process.env.GYRE_FUZZ_RUNS ?? 300), seed: Number(process.env.GYRE_FUZZ_SEED ?? 20261123) },
    );
    expect(allowed).toBeGreaterThan(20);
  });
});
