import { describe, expect, it } from "vitest";
import { compileCommandPattern, matchesCommand, matchesCommandText } from "./command-pattern.js";

describe("command patterns", () => {
  it.each([
    ["npm run test:*", "npm run test", true],
    ["npm run test:*", "npm run test --watch", true],
    ["npm run test:*", "npm run testx", false],
    ["npm test:*", "npm testx", false],
    ["npm test:*", "npm tes", false],
    ["git status", "git status", true],
    ["git status", "git status -s", false],
    ["git   status", "git status", true],
    ["ls *", "ls", true],
    ["ls *", "ls -la", true],
    ["ls *", "lsof", false],
    ["ls*", "lsof", true],
    ["git * main", "git push origin main", true],
    ["git * main", "git push origin main2", false],
    ["* --version", "node --version", true],
    ["echo \\*", "echo *", true],
    ["echo \\*", "echo x", false],
    ["echo x > out", "echo x", false],
    ["curl http://a.b/:*", "curl http://a.b/x", false],
    ["curl http://a.b/:*", "curl http://a.b/ -o f", true],
  ])("%j vs %j → %s", (rule, command, expected) => {
    expect(matchesCommand(compileCommandPattern(rule), command.split(" "))).toBe(expected);
    expect(matchesCommandText(compileCommandPattern(rule), command)).toBe(expected);
  });

  it("classifies the forms", () => {
    expect(compileCommandPattern("npm test:*").kind).toBe("prefix");
    expect(compileCommandPattern("npm test").kind).toBe("exact");
    expect(compileCommandPattern("npm * test").kind).toBe("wildcard");
    expect(compileCommandPattern("npm test && rm x").kind).toBe("never");
    expect(compileCommandPattern("echo $HOME").kind).toBe("never");
  });

  it("matches allow rules word for word: a quoted word is one word", () => {
    expect(matchesCommand(compileCommandPattern("git status:*"), ["git status", "x"])).toBe(false);
    expect(matchesCommand(compileCommandPattern("git * main"), ["git x", "main"])).toBe(false);
    expect(matchesCommand(compileCommandPattern("echo 'a b'"), ["echo", "a b"])).toBe(true);
    expect(matchesCommand(compileCommandPattern("echo 'a b'"), ["echo", "a", "b"])).toBe(false);
  });
});
