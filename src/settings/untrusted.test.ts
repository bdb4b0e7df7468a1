import { describe, expect, it } from "vitest";
import { describeIgnoredSettings, restrictUntrusted } from "./untrusted.js";

describe("restrictUntrusted", () => {
  it("keeps deny and ask rules and lists every other non-empty key", () => {
    const { settings, ignored } = restrictUntrusted({
      $schema: "https://json.schemastore.org/claude-code-settings.json",
      permissions: {
        allow: ["Bash"],
        deny: ["Bash(rm:*)"],
        ask: [],
        defaultMode: "acceptEdits",
        additionalDirectories: [],
        disableBypassPermissionsMode: "disable",
      },
      hooks: { Stop: [] },
      env: {},
      apiKeyHelper: "./print-key.sh",
      enableAllProjectMcpServers: false,
    });
    expect(settings).toEqual({ permissions: { deny: ["Bash(rm:*)"], ask: [] } });
    expect(ignored).toEqual([
      "permissions.allow",
      "permissions.defaultMode",
      "permissions.disableBypassPermissionsMode",
      "hooks",
      "apiKeyHelper",
      "enableAllProjectMcpServers",
    ]);
  });

  it("gives nothing for a file without permissions", () => {
    expect(restrictUntrusted({ model: "x" })).toEqual({ settings: {}, ignored: ["model"] });
  });
});

describe("describeIgnoredSettings", () => {
  it("names the folder, each file relative to it with what was ignored, and how to trust it", () => {
    const line = describeIgnoredSettings({
      folder: "/work/repo",
      files: [
        { path: "/work/repo/.claude/settings.json", ignored: ["hooks"] },
        { path: "/work/repo/.gyre/settings.json", ignored: ["permissions.allow", "hooks"] },
      ],
    });
    expect(line).toBe(
      "ignored settings of untrusted folder /work/repo: .claude/settings.json (hooks), " +
        ".gyre/settings.json (permissions.allow, hooks); its deny and ask rules still apply. " +
        "To trust it: gyre trust /work/repo",
    );
  });

  it("quotes a folder the shell would split or expand", () => {
    const line = describeIgnoredSettings({
      folder: "/work/it's a $repo",
      files: [{ path: "/work/it's a $repo/.gyre/settings.json", ignored: ["env"] }],
    });
    expect(line).toMatch(/To trust it: gyre trust '\/work\/it'\\''s a \$repo'$/);
  });
});
