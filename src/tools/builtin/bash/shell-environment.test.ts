import { describe, expect, it } from "vitest";
import { commandEnvironment, resolveShell } from "./shell-environment.js";

describe("resolveShell", () => {
  it("uses an explicit shell, then a POSIX-style $SHELL, else bash", () => {
    expect(resolveShell("/bin/sh", { SHELL: "/bin/bash" })).toBe("/bin/sh");
    expect(resolveShell(undefined, { SHELL: "/bin/sh" })).toBe("/bin/sh");
    expect(resolveShell(undefined, { SHELL: "/usr/bin/fish" })).toBe("/bin/bash");
    expect(resolveShell(undefined, {})).toBe("/bin/bash");
  });
});

describe("commandEnvironment", () => {
  it("keeps the parent's variables and disables pagers and prompts", () => {
    const env = commandEnvironment({}, { PATH: "/usr/bin", PAGER: "less" });
    expect(env).toMatchObject({
      PATH: "/usr/bin",
      PAGER: "cat",
      GIT_PAGER: "cat",
      GIT_TERMINAL_PROMPT: "0",
      CI: "true",
    });
  });

  it("lets the embedding program override anything", () => {
    expect(commandEnvironment({ PAGER: "more", CI: "0" }, { CI: "1" })).toMatchObject({
      PAGER: "more",
      CI: "0",
    });
    expect(commandEnvironment({}, { CI: "1" }).CI).toBe("1");
  });
});
