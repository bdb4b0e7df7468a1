import { describe, expect, it } from "vitest";
import { commandText, unquote, writesFile } from "./shell-command.js";
import { splitCommand } from "./split-command.js";

function texts(line: string): string[] {
  const result = splitCommand(line);
  if (!result.ok) throw new Error(`unparseable: ${result.reason}`);
  return result.commands.map((command) => commandText(command, { withAssignments: true }));
}

describe("splitCommand", () => {
  it.each([
    ["npm test && rm -rf ~", ["npm test", "rm -rf ~"]],
    ["a || b; c | d |& e & f", ["a", "b", "c", "d", "e", "f"]],
    ["a\nb\n\nc", ["a", "b", "c"]],
    ["echo \"x && y\" 'p | q' z\\;w", ["echo \"x && y\" 'p | q' z\\;w"]],
    ["echo $(rm -rf ~)", ["rm -rf ~", "echo $(rm -rf ~)"]],
    ["echo `rm -rf ~`", ["rm -rf ~", "echo `rm -rf ~`"]],
    ['git commit -m "$(cat msg | head -1)"', ["cat msg", "head -1", 'git commit -m "$(cat msg | head -1)"']],
    ["echo $(echo $(whoami))", ["whoami", "echo $(whoami)", "echo $(echo $(whoami))"]],
    ["(cd sub && make)", ["cd sub", "make"]],
    ["{ a; b; }", ["a", "b"]],
    ["diff <(ls a) <(ls b)", ["ls a", "ls b", "diff <(ls a) <(ls b)"]],
    ["if test -f x; then rm x; else echo no; fi", ["test -f x", "rm x", "echo no"]],
    ["for f in $(ls); do echo $f; done", ["ls", "echo $f"]],
    ["while true; do sleep 1; done", ["true", "sleep 1"]],
    ["FOO=1 BAR=2 npm test", ["FOO=1 BAR=2 npm test"]],
    ["x=$(whoami)", ["whoami", "x=$(whoami)"]],
    // Shell parameter expansion, not a template string.
    ["echo ${HOME:-$(id)}", ["id", "echo ${HOME:-$(id)}"]],
    ["echo $((1 + $(wc -l < f)))", ["wc -l", "echo $((1 + $(wc -l < f)))"]],
    ["ls   -la    # a comment && rm -rf /", ["ls -la"]],
    ["echo a \\\n  b", ["echo a b"]],
    ["echo $'it\\'s' && ls", ["echo $'it\\'s'", "ls"]],
  ])("%j → %j", (line, expected) => {
    expect(texts(line)).toEqual(expected);
  });

  it("reads heredoc bodies as data, but runs substitutions in unquoted ones", () => {
    expect(texts("cat <<EOF\nrm -rf ~ && echo $(whoami)\nEOF\necho after")).toEqual([
      "cat",
      "whoami",
      "echo after",
    ]);
    expect(texts("cat <<'EOF'\n$(rm -rf ~)\nEOF")).toEqual(["cat"]);
    expect(texts("cat <<-EOF > out\n\t`id`\n\tEOF")).toEqual(["cat", "id"]);
  });

  it("keeps redirections apart from the words", () => {
    const result = splitCommand("echo x > /etc/passwd 2>&1 < in");
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [command] = result.commands;
    expect(commandText(command!)).toBe("echo x");
    expect(command!.redirects.map((r) => [r.op, r.target.raw, writesFile(r)])).toEqual([
      [">", "/etc/passwd", true],
      [">&", "1", false],
      ["<", "in", false],
    ]);
  });

  it("marks words whose value is only known at run time", () => {
    const result = splitCommand('$CMD -rf "$HOME" plain');
    if (!result.ok) throw new Error(result.reason);
    expect(result.commands[0]!.words.map((word) => word.dynamic)).toEqual([true, false, true, false]);
  });

  it.each([
    "echo 'unterminated",
    'echo "unterminated',
    "echo $(unclosed",
    "echo `unclosed",
    "cat <<EOF\nno end",
    "case $x in a) rm -rf ~;; esac",
    "f() { rm -rf ~; }",
    "function f { rm; }",
    "(( x++ ))",
    "arr=(a b)",
    "echo )",
    "echo >",
    "a ;; b",
  ])("refuses %j", (line) => {
    expect(splitCommand(line).ok).toBe(false);
  });

  it("unquotes words", () => {
    expect(unquote(`'a b'"c\\"d"e\\ f`)).toBe('a bc"de f');
  });
});
