import { describe, expect, it } from "vitest";
import { commandEnvironment, resolveShell, withheldVariables } from "./shell-environment.js";

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

describe("withheldVariables", () => {
  it("holds back every built-in provider's key and the secrets named, except those passed", () => {
    const withheld = withheldVariables({ secretEnv: ["CORP_LLM_KEY"], passEnv: ["OPENAI_API_KEY"] });
    expect([...withheld].sort()).toEqual(
      [
        "ANTHROPIC_API_KEY",
        "AZURE_API_KEY",
        "CORP_LLM_KEY",
        "DEEPSEEK_API_KEY",
        "FIREWORKS_API_KEY",
        "GOOGLE_GENERATIVE_AI_API_KEY",
        "GROQ_API_KEY",
        "MISTRAL_API_KEY",
        "OPENAI_COMPATIBLE_API_KEY",
        "OPENROUTER_API_KEY",
        "TOGETHER_API_KEY",
        "VLLM_API_KEY",
        "XAI_API_KEY",
      ].sort(),
    );
    const env = commandEnvironment({}, { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o", PATH: "/bin" }, withheld);
    expect(env).toMatchObject({ OPENAI_API_KEY: "o", PATH: "/bin" });
    expect(env).not.toHaveProperty("ANTHROPIC_API_KEY");
  });

  it("holds back the provider keys by default", () => {
    expect(commandEnvironment({}, { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o" })).not.toHaveProperty(
      "ANTHROPIC_API_KEY",
    );
  });
});
