import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { QueryOptions } from "../run/index.js";
import { listTrustedFolders } from "../settings/index.js";
import { ProjectTrust } from "./project-trust.js";
import type { TrustAnswer } from "./trust-prompt.js";
import { TuiStore } from "./tui-store.js";

let project: string;
let home: string;

beforeEach(() => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gyre-project-trust-")));
  project = join(root, "project");
  home = join(root, "home");
  mkdirSync(join(project, ".gyre"), { recursive: true });
  mkdirSync(home);
});

const CLI_OPTIONS: QueryOptions = { settingSources: ["user", "project", "local"], requireProjectTrust: true };

/** A ProjectTrust over a real store and a stand-in session; `notices` collects what it says. */
function setUp(options: QueryOptions = CLI_OPTIONS, where = { cwd: project, home }) {
  const store = new TuiStore(where.cwd, {
    model: "m",
    mode: "default",
    costUsd: 0,
    contextPercent: undefined,
    busy: false,
  });
  let sessionOptions = options;
  const session = {
    get options() {
      return sessionOptions;
    },
    trustProjectForSession: vi.fn(() => {
      sessionOptions = { ...sessionOptions, requireProjectTrust: false };
    }),
  };
  const notices: string[] = [];
  const trust = new ProjectTrust({ ...where, options, session, store, notice: (text) => notices.push(text) });
  /** Waits for the question (it comes after the folder's files are read) and answers it. */
  const answer = async (choice: TrustAnswer) => {
    await vi.waitFor(() => expect(store.trust).toBeDefined());
    const question = store.trust!;
    question.answer(choice);
    return question;
  };
  return { store, session, notices, trust, answer };
}

function writeSettings(file: string, settings: unknown): void {
  writeFileSync(join(project, ".gyre", file), JSON.stringify(settings));
}

describe("ProjectTrust at start", () => {
  it("asks nothing when the folder asks for nothing, or the run does not need trust", async () => {
    const plain = setUp();
    await plain.trust.checkAtStart();
    expect(plain.store.trust).toBeUndefined();
    writeSettings("settings.json", { permissions: { allow: ["Read"] } });
    const flagged = setUp({ ...CLI_OPTIONS, requireProjectTrust: false });
    await flagged.trust.checkAtStart();
    expect(flagged.store.trust).toBeUndefined();
    expect([...plain.notices, ...flagged.notices]).toEqual([]);
  });

  it("yes records the folder as gyre trust does", async () => {
    writeSettings("settings.json", { permissions: { allow: ["Read"] } });
    const { trust, answer, notices, store, session } = setUp();
    const checked = trust.checkAtStart();
    const question = await answer("trust");
    await checked;
    expect(question.offer.settings[0]?.allow).toEqual(["Read"]);
    expect(question.saved).toBeUndefined();
    expect((await listTrustedFolders({ home })).map((folder) => folder.path)).toEqual([project]);
    expect(session.trustProjectForSession).not.toHaveBeenCalled();
    expect(store.status.untrusted).toBe(false);
    expect(notices).toEqual([expect.stringContaining(`Trusted ${project} and its subfolders`)]);
  });

  it("this session only lifts the need for trust of the session's queries and records nothing", async () => {
    writeSettings("settings.json", { permissions: { allow: ["Read"] } });
    const { trust, answer, notices, session } = setUp();
    const checked = trust.checkAtStart();
    await answer("session");
    await checked;
    expect(session.trustProjectForSession).toHaveBeenCalledOnce();
    expect(session.options.requireProjectTrust).toBe(false);
    expect(existsSync(join(home, ".gyre", "trusted-folders.json"))).toBe(false);
    expect(notices).toEqual([expect.stringContaining("for this session only")]);
  });

  it("no says what is ignored, marks the status line, and the run's own report of it is not said again", async () => {
    writeSettings("settings.json", { permissions: { allow: ["Read"] }, env: { A: "1" } });
    const { trust, answer, notices, store } = setUp();
    const checked = trust.checkAtStart();
    await answer("no");
    await checked;
    expect(notices).toEqual([
      `${project} is not trusted: Gyre ignores .gyre/settings.json (allow rules, env); the deny and ask rules of its ` +
        `settings still apply. To trust it: gyre trust ${project}, or answer yes when gyre asks at the next start.`,
    ]);
    expect(store.status.untrusted).toBe(true);
    const settings = join(project, ".gyre", "settings.json");
    trust.reportIgnored({ folder: project, files: [{ path: settings, ignored: ["permissions.allow", "env"] }] });
    expect(notices).toHaveLength(1);
    // Something new (a local file written since): said, and only it.
    const local = join(project, ".gyre", "settings.local.json");
    trust.reportIgnored({
      folder: project,
      files: [
        { path: settings, ignored: ["permissions.allow", "env"] },
        { path: local, ignored: ["permissions.allow"] },
      ],
    });
    expect(notices).toHaveLength(2);
    expect(notices[1]).toBe(
      `${project} is not trusted: Gyre ignores .gyre/settings.local.json (permissions.allow); the deny and ask rules of ` +
        `its settings still apply. To trust it: gyre trust ${project}, or answer yes when gyre asks at the next start.`,
    );
    // Declined, the mark stays even when a run has nothing to report.
    trust.reportIgnored(undefined);
    expect(store.status.untrusted).toBe(true);
  });

  it("a folder that holds the home folder cannot be trusted: said, and it stays untrusted", async () => {
    const inside = join(project, "home");
    mkdirSync(inside);
    writeSettings("settings.json", { permissions: { allow: ["Read"] } });
    const { trust, answer, notices, store } = setUp(CLI_OPTIONS, { cwd: project, home: inside });
    const checked = trust.checkAtStart();
    await answer("trust");
    await checked;
    expect(notices[0]).toMatch(/^Not trusted: Will not trust .*it contains your home folder/);
    expect(notices[1]).toContain("is not trusted: Gyre ignores");
    expect(store.status.untrusted).toBe(true);
  });
});

describe("ProjectTrust after 'always allow'", () => {
  const local = () => join(project, ".gyre", "settings.local.json");

  it("offers to trust an untrusted folder; no keeps the rule to this session and says so", async () => {
    writeSettings("settings.local.json", { permissions: { allow: ["Bash(ls)"] } });
    const { trust, answer, notices } = setUp();
    const offered = trust.afterAllowAlways(["Bash(ls)"], local());
    const question = await answer("no");
    await offered;
    expect(question.saved).toEqual({ rules: ["Bash(ls)"], file: ".gyre/settings.local.json" });
    expect(notices).toEqual([
      `Bash(ls) is allowed for this session only: ${project} is not trusted, so the next session ignores ` +
        `.gyre/settings.local.json. To keep it: gyre trust ${project}`,
    ]);
    // The run reporting that rule's file later does not say it again.
    trust.reportIgnored({ folder: project, files: [{ path: local(), ignored: ["permissions.allow"] }] });
    expect(notices).toHaveLength(1);
  });

  it("yes records the folder", async () => {
    writeSettings("settings.local.json", { permissions: { allow: ["Bash(ls)"] } });
    const { trust, answer, notices } = setUp();
    const offered = trust.afterAllowAlways(["Bash(ls)"], local());
    await answer("trust");
    await offered;
    expect((await listTrustedFolders({ home })).map((folder) => folder.path)).toEqual([project]);
    expect(notices).toEqual([expect.stringContaining("Bash(ls) sticks")]);
  });

  it("asks nothing in a trusted folder, without the need for trust, or when local settings are not read", async () => {
    writeSettings("settings.local.json", { permissions: { allow: ["Bash(ls)"] } });
    for (const options of [
      { ...CLI_OPTIONS, requireProjectTrust: false },
      { ...CLI_OPTIONS, settingSources: ["user", "project"] as QueryOptions["settingSources"] },
    ]) {
      const { trust, store } = setUp(options);
      await trust.afterAllowAlways(["Bash(ls)"], local());
      expect(store.trust).toBeUndefined();
    }
    const first = setUp();
    const offered = first.trust.afterAllowAlways(["Bash(ls)"], local());
    await first.answer("trust");
    await offered;
    const { trust, store, notices } = setUp();
    await trust.afterAllowAlways(["Bash(ls)"], local());
    expect(store.trust).toBeUndefined();
    expect(notices).toEqual([]);
  });
});
