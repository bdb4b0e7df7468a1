import { describe, expect, it } from "vitest";
import { isGyreError } from "../errors/index.js";
import { type HookCallbacks, parseSettingsHooks, validateCallbacks } from "./config.js";

function configError(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    expect(isGyreError(error, "config_error")).toBe(true);
    return error as Error;
  }
  throw new Error("expected a config_error");
}

describe("parseSettingsHooks", () => {
  const hooks = {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./check.sh", timeout: 5 }] }],
    Stop: [{ hooks: [{ type: "command", command: "./stop.sh" }] }],
  };

  it("accepts the hooks map and the whole settings object", () => {
    const expected = {
      PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./check.sh", timeout: 5 }] }],
      Stop: [{ matcher: undefined, hooks: [{ type: "command", command: "./stop.sh" }] }],
    };
    expect(parseSettingsHooks(hooks).hooks).toEqual(expected);
    expect(parseSettingsHooks({ permissions: {}, hooks }).hooks).toEqual(expected);
    expect(parseSettingsHooks(undefined).hooks).toEqual({});
  });

  it("rejects a bad shape with config_error naming the place", () => {
    expect(configError(() => parseSettingsHooks({ PreToolUse: { matcher: "Bash" } })).message).toContain("PreToolUse");
    expect(
      configError(() => parseSettingsHooks({ PreToolUse: [{ hooks: [{ type: "command", command: "" }] }] })).message,
    ).toContain("hooks.PreToolUse[0].hooks[0]");
    configError(() => parseSettingsHooks({ Stop: [{ hooks: [{ type: "command", command: "x", timeout: "10" }] }] }));
    configError(() => parseSettingsHooks("not an object"));
  });

  it("skips unsupported events and hook types with a warning", () => {
    const parsed = parseSettingsHooks({
      TeammateIdle: [{ hooks: [{ type: "command", command: "x" }] }],
      Stop: [
        {
          hooks: [
            { type: "prompt", prompt: "Is the work done?" },
            { type: "command", command: "./stop.sh" },
          ],
        },
      ],
    });
    expect(parsed.hooks.Stop?.[0]?.hooks).toEqual([{ type: "command", command: "./stop.sh" }]);
    expect(parsed.warnings).toHaveLength(2);
    expect(parsed.warnings.join("\n")).toMatch(/TeammateIdle[\s\S]*prompt/);
  });
});

describe("validateCallbacks", () => {
  it("accepts the Agent SDK shape", () => {
    expect(() =>
      validateCallbacks({ PreToolUse: [{ matcher: "Bash", hooks: [async () => ({})], timeout: 5 }] }),
    ).not.toThrow();
  });

  it("rejects unknown events, non-function hooks and bad timeouts", () => {
    configError(() => validateCallbacks({ PreToolUze: [{ hooks: [] }] } as unknown as HookCallbacks));
    configError(() => validateCallbacks({ Stop: [{ hooks: ["echo hi"] }] } as unknown as HookCallbacks));
    configError(() => validateCallbacks({ Stop: [{ hooks: [async () => ({})], timeout: 0 }] }));
    configError(() => validateCallbacks({ Stop: {} } as unknown as HookCallbacks));
  });
});
