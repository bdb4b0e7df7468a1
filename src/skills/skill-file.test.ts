import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseSkillFile, skillBody } from "./skill-file.js";
import { selectSkills } from "./select.js";

const FILE = "/skills/pdf-tools/SKILL.md";
const read = (text: string) => parseSkillFile(text, FILE, "project", parse);

describe("parseSkillFile", () => {
  it("reads the fields of the Agent Skills format, the rest as metadata", () => {
    const skill = read(
      [
        "---",
        "name: pdf",
        "description: Fill PDF forms.",
        "allowed-tools: Bash(python3 scripts/fill.py:*), Read Grep",
        "license: MIT",
        "metadata: { version: '1.2' }",
        "---",
        "# Body",
      ].join("\n"),
    );
    expect(skill).toEqual({
      name: "pdf",
      description: "Fill PDF forms.",
      folder: "/skills/pdf-tools",
      file: FILE,
      source: "project",
      allowedTools: ["Bash(python3 scripts/fill.py:*)", "Read", "Grep"],
      license: "MIT",
      metadata: { metadata: { version: "1.2" } },
    });
  });

  it("takes the folder's name when the front matter has none, and allowed-tools as a list", () => {
    expect(read("---\ndescription: d\nallowed-tools: [Read, 'Bash(ls:*)']\n---\n")).toMatchObject({
      name: "pdf-tools",
      allowedTools: ["Read", "Bash(ls:*)"],
    });
  });

  it.each([
    ["no front matter", "# just text", "has no front matter"],
    ["invalid YAML", "---\nname: [unclosed\n---\n", "not valid YAML"],
    ["a bad name", "---\nname: My Skill\ndescription: d\n---\n", "has a `name`"],
    ["no description", "---\nname: pdf\n---\n", "needs a `description`"],
    ["a long description", `---\nname: pdf\ndescription: ${"x".repeat(1025)}\n---\n`, "longer than 1024"],
    ["bad allowed-tools", "---\nname: pdf\ndescription: d\nallowed-tools: 3\n---\n", "`allowed-tools`"],
  ])("says why a file with %s is not a skill", (_what, text, why) => {
    const invalid = read(text);
    expect(invalid).toMatchObject({ path: FILE });
    expect((invalid as { error: string }).error).toContain(FILE);
    expect((invalid as { error: string }).error).toContain(why);
  });

  it("gives the body without its front matter", () => {
    expect(skillBody("---\nname: a\n---\n\nStep one.\n")).toBe("Step one.");
  });
});

describe("selectSkills", () => {
  const skill = (name: string, folder: string) => ({
    name,
    description: "d",
    folder,
    file: `${folder}/SKILL.md`,
    source: "user" as const,
  });
  const all = [skill("pdf", "/s/pdf"), skill("docs", "/s/docs-folder"), skill("kit:lint", "/p/skills/lint")];

  it("offers every skill for all or nothing, none for an empty list", () => {
    expect(selectSkills(all, undefined)).toHaveLength(3);
    expect(selectSkills(all, "all")).toHaveLength(3);
    expect(selectSkills(all, [])).toEqual([]);
  });

  it("matches names, folder names, plugin names and the part after a plugin's colon", () => {
    const names = (list: string[]) => selectSkills(all, list).map((s) => s.name);
    expect(names(["pdf"])).toEqual(["pdf"]);
    expect(names(["docs-folder"])).toEqual(["docs"]);
    expect(names(["kit:lint"])).toEqual(["kit:lint"]);
    expect(names(["lint"])).toEqual(["kit:lint"]);
    expect(names(["nope"])).toEqual([]);
  });
});
