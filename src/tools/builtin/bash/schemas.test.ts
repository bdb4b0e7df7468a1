import { describe, expect, it } from "vitest";
import { prepareCall } from "../../execute.js";
import { ToolRegistry, toJsonSchema } from "../../registry.js";
import { bashTools, type CommandSandbox } from "./index.js";

const registry = new ToolRegistry(bashTools());
const accepts = (name: string, input: unknown) => prepareCall(registry, { id: "toolu_1", name, input }).ok;

describe("Bash tool family schemas", () => {
  it("offers Bash, BashOutput and KillShell under Claude Code's names", () => {
    expect(registry.names()).toEqual(["Bash", "BashOutput", "KillShell"]);
    expect(registry.offered().map((tool) => [tool.name, tool.sideEffect, tool.maxOutputChars])).toEqual([
      ["Bash", "mutating", 30_000],
      ["BashOutput", "read-only", 30_000],
      ["KillShell", "mutating", undefined],
    ]);
  });

  it("accepts and rejects Bash inputs", () => {
    expect(accepts("Bash", { command: "ls" })).toBe(true);
    expect(
      accepts("Bash", {
        command: "ls",
        timeout: 900_000,
        description: "List files",
        run_in_background: false,
      }),
    ).toBe(true);
    expect(accepts("Bash", {})).toBe(false);
    expect(accepts("Bash", { command: "" })).toBe(false);
    expect(accepts("Bash", { command: 42 })).toBe(false);
    expect(accepts("Bash", { command: "ls", timeout: "1000" })).toBe(false);
    expect(accepts("Bash", { command: "ls", timeout: -1 })).toBe(false);
    expect(accepts("Bash", { command: "ls", run_in_background: "yes" })).toBe(false);
  });

  it("tells the model which field was wrong", () => {
    const prepared = prepareCall(registry, {
      id: "toolu_1",
      name: "Bash",
      input: { command: "ls", timeout: "1" },
    });
    expect(prepared.ok).toBe(false);
    if (!prepared.ok) {
      expect(prepared.code).toBe("tool_input_invalid");
      expect(prepared.result.content).toMatch(/^InputValidationError: Bash failed .*\n- timeout: /);
    }
  });

  it("accepts and rejects BashOutput and KillShell inputs", () => {
    expect(accepts("BashOutput", { bash_id: "bash_1" })).toBe(true);
    expect(accepts("BashOutput", { bash_id: "bash_1", filter: "error|warn" })).toBe(true);
    expect(accepts("BashOutput", { shell_id: "bash_1" })).toBe(false);
    expect(accepts("BashOutput", { bash_id: 1 })).toBe(false);
    expect(accepts("KillShell", { shell_id: "bash_1" })).toBe(true);
    expect(accepts("KillShell", { bash_id: "bash_1" })).toBe(false);
  });

  it("pins the JSON Schemas the model sees", () => {
    const schemas = Object.fromEntries(registry.offered().map((tool) => [tool.name, toJsonSchema(tool.inputSchema)]));
    expect(schemas).toMatchInlineSnapshot(`
      {
        "Bash": {
          "properties": {
            "command": {
              "description": "The command to execute",
              "minLength": 1,
              "type": "string",
            },
            "description": {
              "description": "Clear, concise description of what this command does in 5-10 words, in active voice. Examples: "Lists files in current directory", "Installs package dependencies"",
              "type": "string",
            },
            "run_in_background": {
              "description": "Set to true to run this command in the background. Use BashOutput to read the output later.",
              "type": "boolean",
            },
            "timeout": {
              "description": "Optional timeout in milliseconds (max 600000)",
              "exclusiveMinimum": 0,
              "type": "number",
            },
          },
          "required": [
            "command",
          ],
          "type": "object",
        },
        "BashOutput": {
          "properties": {
            "bash_id": {
              "description": "The ID of the background shell to retrieve output from",
              "minLength": 1,
              "type": "string",
            },
            "filter": {
              "description": "Optional regular expression to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read.",
              "type": "string",
            },
          },
          "required": [
            "bash_id",
          ],
          "type": "object",
        },
        "KillShell": {
          "properties": {
            "shell_id": {
              "description": "The ID of the background shell to kill",
              "minLength": 1,
              "type": "string",
            },
          },
          "required": [
            "shell_id",
          ],
          "type": "object",
        },
      }
    `);
  });

  it("offers dangerouslyDisableSandbox, and says commands are sandboxed, only when a sandbox is given", () => {
    const sandbox: CommandSandbox = {
      confines: () => true,
      allowsUnsandboxed: true,
      wrap: (file, args) => ({ file, args: [...args] }),
      temporaryDirectory: "/tmp",
      watch: () => ({ finish: () => [], end: () => {}, report: () => [] }),
    };
    const [plain] = bashTools();
    const [sandboxed] = bashTools({ sandbox });
    expect(Object.keys(toJsonSchema(plain!.inputSchema).properties as object)).not.toContain(
      "dangerouslyDisableSandbox",
    );
    expect(
      (toJsonSchema(sandboxed!.inputSchema).properties as Record<string, unknown>).dangerouslyDisableSandbox,
    ).toMatchObject({
      type: "boolean",
    });
    expect(sandboxed!.description).toContain("Commands run in a sandbox");
    const sandboxedRegistry = new ToolRegistry([sandboxed!]);
    const call = (input: unknown) => prepareCall(sandboxedRegistry, { id: "toolu_1", name: "Bash", input }).ok;
    expect(call({ command: "ls", dangerouslyDisableSandbox: true })).toBe(true);
    expect(call({ command: "ls", dangerouslyDisableSandbox: "yes" })).toBe(false);
  });
});
