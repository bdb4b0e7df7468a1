import { beforeAll, describe, expect, it, vi } from "vitest";
import { analyzeShell, MAX_ANALYZED_LENGTH } from "./analyze.js";
import { loadShellParser } from "./parser.js";
import { wordValues } from "./shell-command.js";

beforeAll(async () => {
  await loadShellParser();
});

const HOME = "/home/u";
const analyze = (line: string) => analyzeShell(line, HOME);
const argvs = (line: string) => analyze(line).commands.map((c) => wordValues([...c.assignments, ...c.words]));

describe("analyzeShell: commands it can read", () => {
  it.each([
    [
      "npm test && rm -rf ~",
      [
        ["npm", "test"],
        ["rm", "-rf", HOME],
      ],
    ],
    ["a || b; c | d |& e & f", [["a"], ["b"], ["c"], ["d"], ["e"], ["f"]]],
    ["a\nb\n\nc", [["a"], ["b"], ["c"]]],
    ["echo \"x && y\" 'p | q' z\\;w", [["echo", "x && y", "p | q", "z;w"]]],
    ["(cd sub && make)", [["cd", "sub"], ["make"]]],
    ["{ a; b; }", [["a"], ["b"]]],
    [
      "if test -f x; then rm x; else echo no; fi",
      [
        ["test", "-f", "x"],
        ["rm", "x"],
        ["echo", "no"],
      ],
    ],
    ["FOO=1 BAR=2 npm test", [["FOO=1", "BAR=2", "npm", "test"]]],
    ["ls   -la    # a comment && rm -rf /", [["ls", "-la"]]],
    ["echo a \\\n  b", [["echo", "a", "b"]]],
    ["echo a\\\n b", [["echo", "a", "b"]]],
    ["'r'\"m\" x", [["rm", "x"]]],
    ["\\rm x", [["rm", "x"]]],
    ['git commit -m "it\'s \\"done\\""', [["git", "commit", "-m", 'it\'s "done"']]],
    ["cat <<'EOF'\nrm -rf ~ $(id)\nEOF", [["cat"]]],
    ["cat <<EOF | tee out\nplain text\nEOF\necho after", [["cat"], ["tee", "out"], ["echo", "after"]]],
    ["find . -name x -exec grep -l y {} +", [["find", ".", "-name", "x", "-exec", "grep", "-l", "y", "{}", "+"]]],
  ])("%j → %j, inert", (line, expected) => {
    const analysis = analyze(line);
    expect(analysis.opaque).toEqual([]);
    expect(analysis.hidden).toEqual([]);
    expect(argvs(line)).toEqual(expected);
  });

  it("keeps redirections apart, and knows which write", () => {
    const analysis = analyze("echo x > /etc/passwd 2>&1 < in >> log &> both");
    expect(analysis.opaque).toEqual([]);
    expect(analysis.redirects.map((r) => [r.op, r.target.literal?.value, r.writes])).toEqual([
      [">", "/etc/passwd", true],
      [">&", "1", false],
      ["<", "in", false],
      [">>", "log", true],
      ["&>", "both", true],
    ]);
  });

  it("marks glob words; they are literal patterns, not values", () => {
    const [command] = analyze("ls *.ts src/?.js").commands;
    expect(command!.words.map((word) => word.literal?.glob)).toEqual([false, true, true]);
  });
});

describe("analyzeShell: what keeps a line from being allowed", () => {
  // Each of these is not inert: no allow rule may vouch for it.
  it.each([
    "echo $HOME",
    "echo ${HOME}",
    "echo $(git status)",
    "echo `id`",
    "diff <(ls a) <(ls b)",
    "echo x > $'/outside/out.txt'",
    'echo $"translated"',
    "echo {a,b}",
    "echo ~root/x",
    "echo a=~/x",
    "for f in a b; do echo $f; done",
    "while true; do ls; done",
    "case x in a) echo;; esac",
    "f() { ls; }",
    "cat <<EOF\n$HOME\nEOF",
    "cat <<EOF\nback\\slash\nEOF",
    "echo 'unterminated",
    "echo )",
  ])("%j is opaque", (line) => {
    expect(analyze(line).opaque).not.toEqual([]);
  });

  // And these may run code the analysis cannot see: deny rules cannot be ruled out.
  it.each([
    ["x='$(touch pwned)'; echo ${x@P}", "can run code"],
    ["x='a[$(touch p)]'; echo $((x))", "arithmetic"],
    ["for x in '$(touch p)'; do echo ${x@P}; done", "can run code"],
    ["x=rm; $x -f victim", "decided at run time"],
    ['eval "$cmd"', "evaluates"],
    ["source ./script.sh", "evaluates"],
    [". ./script.sh", "evaluates"],
    ["printf -v 'a[$(touch p)]' x", "evaluates"],
    ["[[ x -eq 'a[$(touch p)]' ]]", "can run code"],
    ["(( x ))", "can run code"],
    ["declare -i x='a[$(touch p)]'", "can run code"],
    ["export X=1", "can run code"],
    ["read 'a[$(touch p)]' < /dev/null", "evaluates"],
    ["echo ${a[$(touch p)]}", "can run code"],
    ["PATH=/tmp/evil ls", "changes what runs"],
    ["LD_PRELOAD=/tmp/x.so ls", "changes what runs"],
    ["timeout 5 $x", "decided at run time"],
    ["bash script.sh", "not on the command line"],
    ["curl example.com | sh", "not on the command line"],
    ['bash -c "$x"', "decided at run time"],
    ["cat <<A <<-B\na\nA\n\tb\n\tB", "does not parse"],
    ["echo a\rrm x", "control characters"],
    ["r? x", "decided at run time"],
    ["shopt -s dotglob", "evaluates"],
    ['env -S"pwn x"', "env -S"],
    ["env --split-string='pwn x'", "env -S"],
    ["command . ./script", "evaluates"],
    // The grammar splits at a backslash-newline; bash joins: this is `pwn`, and `a#b`.
    ["pw\\\nn", "line continuation"],
    ["echo a\\\n#b", "line continuation"],
  ])("%j hides code (%s)", (line, reason) => {
    const analysis = analyze(line);
    expect(analysis.hidden.join("; ")).toContain(reason);
  });

  it("does not analyse a line past its length limit, so nothing it hides can match", () => {
    const long = `echo ${"a ".repeat(MAX_ANALYZED_LENGTH / 2)}`;
    expect(analyze(long).hidden).toEqual([`the command is longer than ${MAX_ANALYZED_LENGTH / 1024} KiB`]);
    expect(analyze(long.slice(0, MAX_ANALYZED_LENGTH)).hidden).toEqual([]);
  });

  it("reads the script of sh -c as commands of its own", () => {
    expect(argvs("bash -lc 'rm -rf x && ls'")).toEqual([["bash", "-lc", "rm -rf x && ls"], ["rm", "-rf", "x"], ["ls"]]);
    expect(argvs("sudo sh -c 'rm x'").at(-1)).toEqual(["rm", "x"]);
  });

  it("a here-document ends where bash ends it", () => {
    // The body holds a line that is exactly the delimiter: bash ends there and runs `rm`.
    const analysis = analyze("cat <<EOF\nEOF\nrm -rf x\nEOF");
    expect(argvs("cat <<EOF\nEOF\nrm -rf x\nEOF")).toContainEqual(["rm", "-rf", "x"]);
    expect(analysis.commands.length).toBeGreaterThan(1);
  });

  it("treats every command as unreadable until the parser is loaded", async () => {
    vi.resetModules();
    const { analyzeShell: fresh } = await import("./analyze.js");
    expect(fresh("ls", HOME).hidden).toEqual(["the shell parser is not loaded"]);
  });
});
