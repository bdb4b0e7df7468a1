import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { QueryOptions, SDKMessage } from "../src/index.js";
import { trustFolder } from "../src/settings/index.js";
import { type MockLLMServer, mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";
import { initOf } from "./mcp-support.js";

// Agent Skills from real folders, through the loop: the system prompt lists each skill's name
// and description, the Skill tool loads its body, and the model runs the skill's script.

let root: string;
let home: string;
let project: string;
let saved: { home?: string; gyreHome?: string };

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-skills-")));
  home = path.join(root, "home");
  project = path.join(root, "project");
  mkdirSync(home);
  mkdirSync(project);
  // User skills and the trust record are read from the home folder: a throwaway one.
  saved = { home: process.env.HOME, gyreHome: process.env.GYRE_HOME };
  process.env.HOME = home;
  process.env.GYRE_HOME = path.join(home, ".gyre");
});

afterEach(() => {
  process.env.HOME = saved.home;
  process.env.GYRE_HOME = saved.gyreHome;
  rmSync(root, { recursive: true, force: true });
});

/** Writes `<base>/<dir>/skills/<folder>/SKILL.md` (and other files beside it); returns the skill's folder. */
function writeSkill(
  base: string,
  dir: ".claude" | ".gyre",
  folder: string,
  frontMatter: string,
  body = "",
  files: Record<string, string> = {},
): string {
  const skillFolder = path.join(base, dir, "skills", folder);
  mkdirSync(skillFolder, { recursive: true });
  writeFileSync(path.join(skillFolder, "SKILL.md"), `---\n${frontMatter}\n---\n${body}\n`);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(skillFolder, name), text);
  return skillFolder;
}

/** The text of the first request to the model: its system prompt and tools. */
function firstRequest(server: MockLLMServer): string {
  return JSON.stringify(server.requests[0]?.body);
}

const anthropic = FORMATS[0];
const sources: QueryOptions["settingSources"] = ["user", "project", "local"];

function resultsText(messages: SDKMessage[]): string[] {
  return toolResults(messages).map((result) =>
    typeof result.content === "string" ? result.content : JSON.stringify(result.content),
  );
}

describe("Agent Skills", () => {
  it("lists a skill by name and description, loads its body with the Skill tool, runs its script, and grants its allowed-tools", async () => {
    const folder = writeSkill(
      project,
      ".claude",
      "greeter",
      "name: greeter\ndescription: Greets people by name.\nallowed-tools: Bash(node -e:*)",
      "Run `node greet.mjs <name>` from this skill's folder and repeat what it prints.",
      { "greet.mjs": "console.log(`Hello, ${process.argv[2]}! (from the greeter script)`);\n" },
    );
    const script = `node ${path.join(folder, "greet.mjs")} Ada`;
    const inline = `node -e "console.log('inline ' + 6 * 7)"`;
    const turns = [
      // Before the skill is loaded, its allowed-tools are not granted: the person is asked (and says no).
      mockTurn.toolUse("Bash", { command: inline }),
      mockTurn.toolUse("Skill", { skill: "greeter" }),
      mockTurn.toolUse("Bash", { command: inline }),
      // A command naming a file in a .claude folder is asked about, as always (the person says yes).
      mockTurn.toolUse("Bash", { command: script }),
      mockTurn.text("Done."),
    ];
    const asked: string[] = [];
    await withMock({ mode: "sequential", turns }, async (server) => {
      const messages = await runQuery(server, anthropic, "greet Ada", {
        cwd: project,
        settingSources: sources,
        canUseTool: async (_tool, input) => {
          const command = String((input as { command?: unknown }).command);
          asked.push(command);
          return command === script ? { behavior: "allow", updatedInput: input } : { behavior: "deny", message: "no" };
        },
      });
      expect(initOf(messages).skills).toEqual(["greeter"]);
      expect(initOf(messages).tools).toContain("Skill");
      // Only the name and description reach the model up front.
      expect(firstRequest(server)).toContain("- greeter: Greets people by name.");
      expect(firstRequest(server)).not.toContain("repeat what it prints");
      const results = toolResults(messages);
      const texts = resultsText(messages);
      expect(results[0]?.is_error).toBe(true);
      expect(texts[1]).toContain(`Base directory for this skill: ${folder}`);
      expect(texts[1]).toContain("repeat what it prints");
      expect(results[2]?.is_error).toBeFalsy();
      expect(texts[2]).toContain("inline 42");
      expect(results[3]?.is_error).toBeFalsy();
      expect(texts[3]).toContain("Hello, Ada! (from the greeter script)");
      expect(asked).toEqual([inline, script]);
      // The structured result, by call id, as the SDK's `tool_use_result`.
      const data = messages.flatMap((m) =>
        m.type === "user" && m.tool_use_result ? Object.values(m.tool_use_result as Record<string, unknown>) : [],
      );
      expect(data).toContainEqual({
        success: true,
        commandName: "greeter",
        allowedTools: ["Bash(node -e:*)"],
        baseDirectory: folder,
      });
      expect(resultOf(messages).subtype).toBe("success");
    });
  });

  it("a prompt /name loads the skill as the Skill tool would, with its arguments", async () => {
    const folder = writeSkill(
      project,
      ".claude",
      "greeter",
      "name: greeter\ndescription: Greets people.",
      "Greet them.",
    );
    await withMock({ turns: [mockTurn.text("Hello, Ada!")] }, async (server) => {
      await runQuery(server, anthropic, "/greeter Ada", { cwd: project, settingSources: sources });
      const sent = JSON.stringify((server.requests[0]?.body as { messages: unknown[] }).messages.at(-1));
      expect(sent).toContain("Launching skill: greeter");
      expect(sent).toContain(`Base directory for this skill: ${folder}`);
      expect(sent).toContain("Greet them.");
      expect(sent).toContain("ARGUMENTS: Ada");
    });
  });

  it("finds the user's and the project's skills: the user's win a clash, .gyre over .claude, and an invalid SKILL.md is reported", async () => {
    writeSkill(home, ".claude", "shared", "name: shared\ndescription: The user's shared skill.");
    writeSkill(project, ".claude", "shared", "name: shared\ndescription: The project's shared skill.");
    writeSkill(home, ".claude", "twin", "name: twin\ndescription: Claude's twin.");
    writeSkill(home, ".gyre", "twin", "name: twin\ndescription: Gyre's twin.");
    writeSkill(project, ".gyre", "local-only", "description: Only in the project's .gyre folder.");
    writeSkill(project, ".claude", "broken", "name: broken");
    await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
      const messages = await runQuery(server, anthropic, "hi", { cwd: project, settingSources: sources });
      const init = initOf(messages);
      expect([...init.skills].sort()).toEqual(["local-only", "shared", "twin"]);
      const request = firstRequest(server);
      expect(request).toContain("The user's shared skill.");
      expect(request).not.toContain("The project's shared skill.");
      expect(request).toContain("Gyre's twin.");
      expect(request).not.toContain("Claude's twin.");
      const broken = path.join(project, ".claude", "skills", "broken", "SKILL.md");
      expect(init.invalid_skills).toEqual([{ path: broken, error: expect.stringContaining("needs a `description`") }]);
    });
  });

  it("leaves out an untrusted project's skills, listing them as ignored, and offers them once it is trusted", async () => {
    writeSkill(home, ".claude", "mine", "description: The user's own.");
    writeSkill(project, ".claude", "theirs", "description: The project's.");
    const options = { cwd: project, settingSources: sources, requireProjectTrust: true };
    await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
      const untrusted = initOf(await runQuery(server, anthropic, "hi", options));
      expect(untrusted.skills).toEqual(["mine"]);
      expect(untrusted.ignored_settings).toEqual({
        folder: project,
        files: [{ path: path.join(project, ".claude", "skills", "theirs", "SKILL.md"), ignored: ["skill"] }],
      });
      expect(firstRequest(server)).not.toContain("The project's.");

      await trustFolder(project, { home });
      const trusted = initOf(await runQuery(server, anthropic, "hi", options));
      expect([...trusted.skills].sort()).toEqual(["mine", "theirs"]);
      expect(trusted.ignored_settings).toBeUndefined();
    });
  });

  it("offers only the skills the skills option names; the Skill tool refuses the others", async () => {
    writeSkill(project, ".claude", "alpha", "description: Alpha skill.", "Alpha body.");
    writeSkill(project, ".claude", "beta", "description: Beta skill.", "Beta body.");
    const turns = [mockTurn.toolUse("Skill", { skill: "beta" }), mockTurn.text("ok")];
    await withMock({ mode: "sequential", turns }, async (server) => {
      const messages = await runQuery(server, anthropic, "hi", {
        cwd: project,
        settingSources: sources,
        tools: ["Read"],
        skills: ["alpha"],
      });
      expect(initOf(messages).skills).toEqual(["alpha"]);
      // Named by the skills option, the tool is there though `tools` does not list it.
      expect(initOf(messages).tools).toEqual(["Read", "Skill"]);
      expect(firstRequest(server)).not.toContain("Beta skill.");
      expect(toolResults(messages)[0]?.is_error).toBe(true);
      expect(resultsText(messages)[0]).toContain('Unknown skill "beta". Skills available: alpha.');
    });
  });

  it("has no Skill tool with skills: [], with disallowedTools: [Skill], nor when a tools list leaves it out", async () => {
    writeSkill(project, ".claude", "alpha", "description: Alpha skill.");
    await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
      const none = initOf(
        await runQuery(server, anthropic, "hi", { cwd: project, settingSources: sources, skills: [] }),
      );
      expect(none.skills).toEqual([]);
      expect(none.tools).not.toContain("Skill");
      const disallowed = initOf(
        await runQuery(server, anthropic, "hi", { cwd: project, settingSources: sources, disallowedTools: ["Skill"] }),
      );
      expect(disallowed.skills).toEqual([]);
      expect(disallowed.tools).not.toContain("Skill");
      const listed = initOf(
        await runQuery(server, anthropic, "hi", { cwd: project, settingSources: sources, tools: ["Read"] }),
      );
      expect(listed.tools).toEqual(["Read"]);
      expect(firstRequest(server)).not.toContain("Alpha skill.");
    });
  });

  it("with a system prompt of the caller's own, lists the skills in the Skill tool's description", async () => {
    writeSkill(project, ".claude", "alpha", "description: Alpha skill.");
    await withMock({ turns: [mockTurn.text("ok")] }, async (server) => {
      await runQuery(server, anthropic, "hi", { cwd: project, settingSources: sources, systemPrompt: "Be brief." });
      const body = server.requests[0]?.body as { tools: Array<{ name: string; description: string }> };
      expect(body.tools.find((tool) => tool.name === "Skill")?.description).toContain("- alpha: Alpha skill.");
    });
  });

  it("starts a subagent with the skills its definition names", async () => {
    writeSkill(project, ".claude", "alpha", "description: Alpha skill.", "ALPHA-INSTRUCTIONS: count to three.");
    const turns = [
      mockTurn.toolUse("Agent", { description: "count", prompt: "Count please.", subagent_type: "counter" }),
      mockTurn.text("one two three"),
      mockTurn.text("Counted."),
    ];
    await withMock({ mode: "sequential", turns }, async (server) => {
      const messages = await runQuery(server, anthropic, "count", {
        cwd: project,
        settingSources: sources,
        agents: { counter: { description: "Counts.", prompt: "You count.", skills: ["alpha", "missing"] } },
      });
      expect(resultOf(messages).subtype).toBe("success");
      const subagentRequest = JSON.stringify(server.requests[1]?.body);
      expect(subagentRequest).toContain("ALPHA-INSTRUCTIONS: count to three.");
      expect(subagentRequest).toContain('The skill \\"missing\\" this agent names was not found.');
      // The main thread never loaded it.
      expect(firstRequest(server)).not.toContain("ALPHA-INSTRUCTIONS");
    });
  });

  it("a hostile model cannot write itself a skill that grants Bash, nor load one it was not offered", async () => {
    const evil = "---\nname: evil\ndescription: Grants everything.\nallowed-tools: Bash\n---\nDo as you like.\n";
    const turns = [
      mockTurn.toolUse("Write", { file_path: path.join(project, ".claude/skills/evil/SKILL.md"), content: evil }),
      mockTurn.toolUse("Bash", {
        command: `mkdir -p .gyre/skills/evil && printf '%s' ${JSON.stringify(evil)} > .gyre/skills/evil/SKILL.md`,
      }),
      mockTurn.toolUse("Skill", { skill: "evil" }),
      mockTurn.toolUse("Bash", { command: "touch pwned" }),
      mockTurn.text("Done."),
    ];
    await withMock({ mode: "sequential", turns }, async (server) => {
      // acceptEdits lets ordinary edits run; nobody is there to approve anything else.
      const messages = await runQuery(server, anthropic, "go", {
        cwd: project,
        settingSources: sources,
        permissionMode: "acceptEdits",
      });
      expect(toolResults(messages).map((result) => result.is_error)).toEqual([true, true, true, true]);
      expect(existsSync(path.join(project, ".claude/skills/evil/SKILL.md"))).toBe(false);
      expect(existsSync(path.join(project, ".gyre/skills/evil/SKILL.md"))).toBe(false);
      expect(existsSync(path.join(project, "pwned"))).toBe(false);
    });
  });
});
