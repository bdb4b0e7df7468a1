import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from "node:fs";
import { execSync, spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OsSandbox, resolvePolicy } from "../src/sandbox/index.js";
import { defaultTools, GyreError, type QueryOptions, SDKMessage, type SDKMessage as Message } from "../src/index.js";
import { type MockScript, mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

// Issue 15: Bash inside the OS sandbox, through the loop, with bypassPermissions so that
// what holds is the sandbox, not a permission rule.

const [anthropic] = FORMATS;
const made: string[] = [];

/** A workspace under /tmp, and a folder outside it under /var/tmp (writable on the host, not in the sandbox). */
function folders(): { cwd: string; outside: string } {
  const cwd = mkdtempSync(join(tmpdir(), "gyre-sandbox-ws-"));
  const outside = mkdtempSync("/var/tmp/gyre-sandbox-out-");
  made.push(cwd, outside);
  return { cwd, outside };
}
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const bash = (...inputs: Array<Record<string, unknown>>): MockScript => ({
  mode: "sequential",
  turns: [...inputs.map((input) => mockTurn.toolUse("Bash", input)), mockTurn.text("done")],
});

async function sandboxed(script: MockScript, cwd: string, options: QueryOptions = {}): Promise<Message[]> {
  return withMock(script, (server) =>
    runQuery(server, anthropic, "go", {
      cwd,
      permissionMode: "bypassPermissions",
      sandbox: { enabled: true, ...options.sandbox },
      ...Object.fromEntries(Object.entries(options).filter(([key]) => key !== "sandbox")),
    }),
  );
}

const texts = (messages: Message[]) => toolResults(messages).map((result) => String(result.content));
const violations = (messages: Message[]) =>
  messages.flatMap((m) => (m.type === "system" && m.subtype === "sandbox_violation" ? [m] : []));

describe("sandboxed Bash: files", () => {
  it("writes inside the workspace and its temp, not outside; the model and the caller are told", async () => {
    const { cwd, outside } = folders();
    const messages = await sandboxed(
      bash({
        command: `echo in > inside.txt && echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t"; echo out > ${outside}/escape.txt; echo x > /tmp/lost.txt; echo end`,
      }),
      cwd,
    );
    expect(readFileSync(join(cwd, "inside.txt"), "utf8")).toBe("in\n");
    expect(existsSync(join(outside, "escape.txt"))).toBe(false);
    const [text] = texts(messages);
    expect(text).toContain("tmp\n");
    expect(text).toContain(`write to ${outside}/escape.txt denied by the sandbox; writable: ${cwd}`);
    expect(text).toContain("write to /tmp/lost.txt denied by the sandbox");
    expect(text).toContain("dangerouslyDisableSandbox: true");
    const [violation] = violations(messages);
    expect(SDKMessage.safeParse(violation).success).toBe(true);
    expect(violation?.tool_use_id).toBe(toolResults(messages)[0]?.tool_use_id);
    expect(violation?.violations.map((v) => [v.kind, v.target])).toEqual([
      ["write", `${outside}/escape.txt`],
      ["write", "/tmp/lost.txt"],
    ]);
    expect(resultOf(messages).subtype).toBe("success");
  });

  it("cannot read denied paths: filesystem.denyRead, Read(...) deny rules, and cannot write denyWrite or protected files", async () => {
    const { cwd, outside } = folders();
    writeFileSync(join(outside, "token"), "SECRET-FILE");
    mkdirSync(join(outside, "keys"));
    writeFileSync(join(outside, "keys", "id"), "SECRET-DIR");
    mkdirSync(join(cwd, "secrets"));
    writeFileSync(join(cwd, "secrets", "key.txt"), "SECRET-RULE");
    writeFileSync(join(cwd, "locked.txt"), "original");
    mkdirSync(join(cwd, ".claude"));
    const messages = await sandboxed(
      bash({
        command:
          `cat ${outside}/token; ls ${outside}/keys; cat ${outside}/keys/id; cat secrets/key.txt; ` +
          `echo changed > locked.txt; echo '{"sandbox":{"enabled":false}}' > .claude/settings.json; echo end`,
      }),
      cwd,
      {
        sandbox: { filesystem: { denyRead: [`${outside}/token`, `${outside}/keys`], denyWrite: ["./locked.txt"] } },
        disallowedTools: ["Read(./secrets/**)"],
      },
    );
    const [text] = texts(messages);
    expect(text).toContain("end");
    for (const secret of ["SECRET-FILE", "SECRET-DIR", "SECRET-RULE"]) expect(text).not.toContain(secret);
    expect(readFileSync(join(cwd, "locked.txt"), "utf8")).toBe("original");
    expect(existsSync(join(cwd, ".claude", "settings.json"))).toBe(false);
    expect(text).toContain(`read of ${outside}/keys/id denied by the sandbox`);
    // The host still sees its files: the sandbox hid them only from the command.
    expect(readFileSync(join(outside, "token"), "utf8")).toBe("SECRET-FILE");
  });

  it("cannot move .git, .gyre or .claude aside to put others in their place", async () => {
    const { cwd } = folders();
    for (const dir of [".git/hooks", ".claude"]) mkdirSync(join(cwd, dir), { recursive: true });
    writeFileSync(join(cwd, ".git", "config"), "[core]\n");
    const messages = await sandboxed(
      bash({
        command:
          "mv .git .git-old; mv .claude .claude-old; mv .gyre .gyre-old; " +
          "mkdir -p .git/hooks && echo 'touch /tmp/pwned' > .git/hooks/pre-commit; " +
          "echo ../elsewhere > .git/commondir; echo end",
      }),
      cwd,
    );
    expect(texts(messages)[0]).toContain("end");
    for (const moved of [".git-old", ".claude-old", ".gyre-old"]) expect(existsSync(join(cwd, moved))).toBe(false);
    expect(existsSync(join(cwd, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(existsSync(join(cwd, ".git", "commondir"))).toBe(false);
    expect(readFileSync(join(cwd, ".git", "config"), "utf8")).toBe("[core]\n");
  });

  it("in .git: commits work, but nothing that names a program for the host's git can be written", async () => {
    const { cwd } = folders();
    const git = (args: string) =>
      execSync(`git -c user.name=t -c user.email=t@t ${args}`, { cwd, stdio: "pipe", encoding: "utf8" });
    git("init -q");
    writeFileSync(join(cwd, "a.txt"), "a");
    git("add a.txt");
    git("commit -qm first");
    mkdirSync(join(cwd, ".git", "worktrees", "other"), { recursive: true });
    writeFileSync(join(cwd, ".git", "worktrees", "other", "commondir"), "../..\n");
    const messages = await sandboxed(
      bash({
        command:
          "echo b > b.txt && git add b.txt && git -c user.name=t -c user.email=t@t commit -qm second && echo COMMITTED; " +
          "echo '*.txt filter=x' > .git/info/attributes && echo ATTRIBUTES; " +
          "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' > .git/config.worktree; " +
          "mkdir -p .git/modules/sub/hooks; echo 'touch /tmp/pwned' > .git/modules/sub/hooks/post-checkout; " +
          "echo /elsewhere > .git/worktrees/other/commondir; echo end",
      }),
      cwd,
    );
    const [text] = texts(messages);
    expect(text).toContain("COMMITTED");
    expect(text).toContain("ATTRIBUTES");
    expect(text).toContain("end");
    expect(git("log --format=%s")).toBe("second\nfirst\n");
    expect(existsSync(join(cwd, ".git", "config.worktree"))).toBe(false);
    expect(existsSync(join(cwd, ".git", "modules", "sub"))).toBe(false);
    expect(readFileSync(join(cwd, ".git", "worktrees", "other", "commondir"), "utf8")).toBe("../..\n");
    expect(text).toContain(`creating ${join(cwd, ".git", "config.worktree")} denied by the sandbox`);
  });

  it("protects the .git of repositories nested in the workspace the same way, and a .git file", async () => {
    const { cwd } = folders();
    const lib = join(cwd, "vendor", "lib");
    mkdirSync(lib, { recursive: true });
    const git = (args: string) =>
      execSync(`git -c user.name=t -c user.email=t@t ${args}`, { cwd: lib, stdio: "pipe", encoding: "utf8" });
    git("init -q");
    writeFileSync(join(lib, "a.txt"), "a");
    git("add a.txt");
    git("commit -qm first");
    const config = readFileSync(join(lib, ".git", "config"), "utf8");
    // A submodule's checkout: its .git is a file naming the folder git takes hooks and config from.
    mkdirSync(join(cwd, "packages", "sub"), { recursive: true });
    writeFileSync(join(cwd, "packages", "sub", ".git"), "gitdir: ../../.git/modules/sub\n");
    // A repository inside a denied folder: hidden with it, and commands still run.
    mkdirSync(join(cwd, "secrets", "repo", ".git"), { recursive: true });
    const messages = await sandboxed(
      bash({
        command:
          "cd vendor/lib && echo b > b.txt && git add b.txt && git -c user.name=t -c user.email=t@t commit -qm second && echo COMMITTED; " +
          "echo 'touch /tmp/pwned' > .git/hooks/post-checkout; printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config; " +
          "echo x > .git/config.worktree; mv .git .git-old; cd ../..; " +
          "mv vendor/lib vendor/lib-old; mv vendor vendor-old; echo 'gitdir: /elsewhere' > packages/sub/.git; ls secrets/repo; echo end",
      }),
      cwd,
      { disallowedTools: ["Read(./secrets/**)"] },
    );
    const [text] = texts(messages);
    expect(text).toContain("COMMITTED");
    expect(text).toContain("end");
    expect(git("log --format=%s")).toBe("second\nfirst\n");
    expect(existsSync(join(lib, ".git", "hooks", "post-checkout"))).toBe(false);
    expect(readFileSync(join(lib, ".git", "config"), "utf8")).toBe(config);
    expect(existsSync(join(lib, ".git", "config.worktree"))).toBe(false);
    expect(existsSync(join(lib, ".git-old"))).toBe(false);
    expect(existsSync(join(cwd, "vendor", "lib-old"))).toBe(false);
    expect(existsSync(join(cwd, "vendor-old"))).toBe(false);
    expect(readFileSync(join(cwd, "packages", "sub", ".git"), "utf8")).toBe("gitdir: ../../.git/modules/sub\n");
  });

  it("cannot create the files and folders that configure the next run", async () => {
    const { cwd } = folders();
    const messages = await sandboxed(
      bash({
        command:
          `mkdir -p .gyre; echo '{"sandbox":{"enabled":false}}' > .gyre/settings.json; ` +
          `echo '{"mcpServers":{"x":{"command":"evil"}}}' > .mcp.json; echo end`,
      }),
      cwd,
    );
    expect(existsSync(join(cwd, ".gyre", "settings.json"))).toBe(false);
    expect(existsSync(join(cwd, ".mcp.json"))).toBe(false);
    const [text] = texts(messages);
    expect(text).toContain(`creating ${join(cwd, ".mcp.json")} denied by the sandbox`);
    expect(text).toContain(`write to ${join(cwd, ".gyre", "settings.json")} denied by the sandbox`);
  });
});

describe("sandboxed Bash: denied paths that appear during the run", () => {
  it("hides a denied folder and file created on the host after the sandbox started", async () => {
    const { cwd, outside } = folders();
    const policy = resolvePolicy({
      settings: { enabled: true, filesystem: { denyRead: [`${outside}/later`, `${outside}/later-file`] } },
      workspace: [cwd],
      rules: { allow: [], deny: [{ rule: "Read(./secret-later)" }] },
      cwd,
      home: homedir(),
    });
    expect(policy.denyReadMissing).toEqual(
      expect.arrayContaining([`${outside}/later`, `${outside}/later-file`, join(cwd, "secret-later")]),
    );
    const sandbox = await OsSandbox.start({ policy });
    try {
      // As `ssh-keygen` would make ~/.ssh while the run goes on.
      mkdirSync(join(outside, "later"));
      writeFileSync(join(outside, "later", "id"), "SECRET-DIR");
      writeFileSync(join(outside, "later-file"), "SECRET-FILE");
      writeFileSync(join(cwd, "secret-later"), "SECRET-RULE");
      const messages = await withMock(
        bash({ command: `cat ${outside}/later/id; cat ${outside}/later-file; cat secret-later; echo end` }),
        (server) =>
          runQuery(server, anthropic, "go", {
            cwd,
            permissionMode: "bypassPermissions",
            tools: defaultTools({ cwd, bash: { sandbox } }),
          }),
      );
      const [text] = texts(messages);
      expect(text).toContain("end");
      for (const secret of ["SECRET-DIR", "SECRET-FILE", "SECRET-RULE"]) expect(text).not.toContain(secret);
      expect(text).toContain(`read of ${outside}/later/id denied by the sandbox`);
    } finally {
      await sandbox.close();
    }
  });
});

describe("sandboxed Bash: .env files outside the workspace", () => {
  /** A home folder, and a workspace two folders below a parent that holds `.env` files. */
  function envFolders() {
    const { outside } = folders();
    const home = join(outside, "home");
    const parent = join(outside, "code");
    const cwd = join(parent, "project");
    mkdirSync(home);
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(home, ".env"), "SECRET-HOME");
    writeFileSync(join(parent, ".env"), "SECRET-PARENT");
    writeFileSync(join(parent, ".env.production"), "SECRET-PRODUCTION");
    writeFileSync(join(outside, ".envrc"), "SECRET-ABOVE");
    writeFileSync(join(cwd, ".env"), "WORKSPACE-ENV");
    return { outside, home, parent, cwd };
  }

  it("cannot read them in the home folder and the folders above the workspace; the workspace's own .env stays readable", async () => {
    const { outside, home, parent, cwd } = envFolders();
    const command =
      `cat .env; echo; cat ${home}/.env; cat ../.env; cat ${parent}/.env.production; cat ${outside}/.envrc; ` +
      `ls -a ${parent}; echo end`;
    const savedHome = process.env.HOME;
    process.env.HOME = home;
    let messages: Message[];
    try {
      messages = await sandboxed(bash({ command }), cwd);
    } finally {
      process.env.HOME = savedHome;
    }
    const [text] = texts(messages);
    expect(text).toContain("WORKSPACE-ENV");
    expect(text).toContain("end");
    for (const secret of ["SECRET-HOME", "SECRET-PARENT", "SECRET-PRODUCTION", "SECRET-ABOVE"])
      expect(text).not.toContain(secret);
    // Hidden, not removed: the names still list, and the host still reads them.
    expect(text).toContain(".env.production");
    expect(text).toContain(`read of ${home}/.env denied by the sandbox`);
    expect(readFileSync(join(parent, ".env"), "utf8")).toBe("SECRET-PARENT");
    // The home folder denied as a whole: its .env needs no mount of its own (one would fail the command).
    const [whole] = texts(
      await sandboxed(bash({ command: `cat ${home}/.env; echo end` }), cwd, {
        sandbox: { filesystem: { denyRead: [home] } },
      }),
    );
    expect(whole).toContain("end");
    expect(whole).not.toContain("SECRET-HOME");
  });

  it("hides one created on the host during the run from the next command on, and one removed stops mattering", async () => {
    const { home, parent, cwd } = envFolders();
    const policy = resolvePolicy({
      settings: { enabled: true },
      workspace: [cwd],
      rules: { allow: [], deny: [] },
      cwd,
      home,
    });
    const sandbox = await OsSandbox.start({ policy });
    try {
      writeFileSync(join(parent, ".env.local"), "SECRET-LATER");
      writeFileSync(join(home, ".env.test"), "SECRET-LATER-HOME");
      rmSync(join(parent, ".env"));
      const messages = await withMock(
        bash({ command: `cat ../.env.local; cat ${home}/.env.test; cat ../.env; echo end` }),
        (server) =>
          runQuery(server, anthropic, "go", {
            cwd,
            permissionMode: "bypassPermissions",
            tools: defaultTools({ cwd, bash: { sandbox } }),
          }),
      );
      const [text] = texts(messages);
      expect(text).toContain("end");
      expect(text).not.toContain("SECRET-LATER");
      expect(text).toMatch(/\.\.\/\.env: No such file/);
    } finally {
      await sandbox.close();
    }
  });
});

describe("sandboxed Bash: a denied folder around the workspace", () => {
  it("hides the rest of it while the workspace inside stays usable, and Gyre's state is unreadable", async () => {
    const { outside } = folders();
    const cwd = join(outside, "project");
    mkdirSync(cwd);
    writeFileSync(join(outside, "sibling.txt"), "SECRET-SIBLING");
    const gyreHome = process.env.GYRE_HOME;
    expect(gyreHome).toBeTruthy();
    writeFileSync(join(gyreHome!, "probe.txt"), "SECRET-STATE");
    const messages = await sandboxed(
      bash({ command: `echo ok > in.txt && cat in.txt; cat ../sibling.txt; cat ${gyreHome}/probe.txt; echo end` }),
      cwd,
      { sandbox: { filesystem: { denyRead: [outside] } } },
    );
    const [text] = texts(messages);
    expect(text).toContain("ok\n");
    expect(text).toContain("end");
    expect(text).not.toContain("SECRET-SIBLING");
    expect(text).not.toContain("SECRET-STATE");
    expect(readFileSync(join(cwd, "in.txt"), "utf8")).toBe("ok\n");
  });
});

describe("sandboxed Bash: network", () => {
  let allowed: Server;
  let other: Server;
  const port = (server: Server) => (server.address() as AddressInfo).port;
  beforeAll(async () => {
    const serve = (body: string) =>
      new Promise<Server>((resolve) => {
        const server = createServer((_req, res) => res.end(body)).listen(0, "127.0.0.1", () => resolve(server));
      });
    allowed = await serve("hello from the allowed host");
    other = await serve("hello from elsewhere");
  });
  afterAll(() => {
    allowed.close();
    other.close();
  });

  it("reaches an allowed host only through the proxy; other hosts and direct connections fail", async () => {
    const { cwd } = folders();
    const a = port(allowed);
    const b = port(other);
    const messages = await sandboxed(
      bash(
        { command: `curl -sS http://127.0.0.1:${a}/` },
        { command: `curl -sS -o /dev/null -w '%{http_code}' http://127.0.0.1:${b}/` },
        { command: `curl -sS --noproxy '*' http://127.0.0.1:${a}/` },
      ),
      cwd,
      { sandbox: { network: { allowedDomains: [`127.0.0.1:${a}`] } } },
    );
    const [through, blocked, direct] = texts(messages);
    expect(through).toContain("hello from the allowed host");
    expect(blocked).toContain("403");
    expect(blocked).not.toContain("hello from elsewhere");
    expect(blocked).toContain(
      `connection to 127.0.0.1:${b} denied by the sandbox; allowed hosts (through the proxy): 127.0.0.1:${a}`,
    );
    expect(direct).not.toContain("hello");
    expect(direct).toContain("direct network access denied by the sandbox");
    expect(violations(messages).flatMap((m) => m.violations.map((v) => v.target))).toContain(`127.0.0.1:${b}`);
  });

  it("relays the same way without nsenter (a relay per command) and the run's relay namespace is not the host's", async () => {
    const { cwd } = folders();
    const a = port(allowed);
    const programs = mkdtempSync(join(tmpdir(), "gyre-no-nsenter-"));
    made.push(programs);
    for (const name of ["bwrap", "socat"]) symlinkSync(`/usr/bin/${name}`, join(programs, name));
    for (const searchPath of [programs, process.env.PATH]) {
      const policy = resolvePolicy({
        settings: { enabled: true, network: { allowedDomains: [`127.0.0.1:${a}`] } },
        workspace: [cwd],
        rules: { allow: [], deny: [] },
        cwd,
        home: homedir(),
      });
      const sandbox = await OsSandbox.start({ policy, searchPath });
      try {
        const { file, args } = sandbox.wrap("/bin/true", [], cwd);
        expect([file, ...args].some((arg) => arg.endsWith("/nsenter"))).toBe(searchPath !== programs);
        const messages = await withMock(
          bash(
            { command: `curl -sS http://127.0.0.1:${a}/` },
            // Joining the host's namespace again, from inside: no capabilities for it.
            { command: `nsenter --net=/proc/1/ns/net curl -sS --noproxy '*' http://127.0.0.1:${a}/; echo end` },
          ),
          (server) =>
            runQuery(server, anthropic, "go", {
              cwd,
              permissionMode: "bypassPermissions",
              tools: defaultTools({ cwd, bash: { sandbox } }),
            }),
        );
        const [through, escape] = texts(messages);
        expect(through).toContain("hello from the allowed host");
        expect(escape).toContain("end");
        expect(escape).not.toContain("hello");
      } finally {
        await sandbox.close();
      }
    }
  });

  it("cannot connect to a host unix socket outside /run and /tmp, unless network.allowUnixSockets names it", async () => {
    const { cwd, outside } = folders();
    const socket = join(outside, "agent.sock");
    const server = createServer((_req, res) => res.end("hello from the socket"));
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const command = `curl -sS --unix-socket ${socket} http://local/; echo; echo end`;
      const [blocked] = texts(await sandboxed(bash({ command }), cwd));
      expect(blocked).toContain("end");
      expect(blocked).not.toContain("hello from the socket");
      const [allowed] = texts(
        await sandboxed(bash({ command }), cwd, { sandbox: { network: { allowUnixSockets: [socket] } } }),
      );
      expect(allowed).toContain("hello from the socket");
    } finally {
      server.close();
    }
  });

  it("has no network at all when no domain is allowed", async () => {
    const { cwd } = folders();
    const messages = await sandboxed(bash({ command: `curl -sS http://127.0.0.1:${port(allowed)}/` }), cwd);
    const [text] = texts(messages);
    expect(text).not.toContain("hello");
    expect(text).toMatch(/Exit code [1-9]/);
  });

  /** A node program that listens on `port`, connects to itself and prints what it got. */
  const listener = (listenPort: number) =>
    `node -e "const net=require('net');const s=net.createServer(c=>c.end('hello from inside'))` +
    `.listen(${listenPort},'127.0.0.1',()=>net.connect(${listenPort},'127.0.0.1').on('data',d=>{console.log(String(d));s.close()}))` +
    `.on('error',e=>console.log('listen failed',e.code))"`;

  it("cannot listen without network.allowLocalBinding; with it a server listens in the sandbox's own namespace", async () => {
    const { cwd } = folders();
    const a = port(allowed);
    const command = `${listener(a)}; echo end`;
    for (const network of [{}, { allowedDomains: [`127.0.0.1:${a}`] }]) {
      const [denied] = texts(await sandboxed(bash({ command }), cwd, { sandbox: { network } }));
      expect(denied).toContain("listen failed EPERM");
      const bound = { network: { ...network, allowLocalBinding: true } };
      const [listened] = texts(await sandboxed(bash({ command }), cwd, { sandbox: bound }));
      // The same port as the host's server: the sandbox's loopback is its own.
      expect(listened).toContain("hello from inside");
    }
    expect(await (await fetch(`http://127.0.0.1:${a}/`)).text()).toBe("hello from the allowed host");
  });

  it("with allowLocalBinding and allowed domains, a server one command leaves running serves the run's later commands", async () => {
    const { cwd } = folders();
    // Answers once, then closes; writes its port where the next command looks for it.
    const serve =
      `node -e "const s=require('http').createServer((q,r)=>{r.end('hello from the background');s.close()})` +
      `.listen(0,'127.0.0.1',()=>require('fs').writeFileSync('port',String(s.address().port)))"`;
    const messages = await sandboxed(
      {
        mode: "sequential",
        turns: [
          mockTurn.toolUse("Bash", { command: serve, run_in_background: true }),
          mockTurn.toolUse("Bash", {
            command: `for i in $(seq 400); do [ -s port ] && break; sleep 0.05; done; curl -sS --noproxy '*' http://127.0.0.1:$(cat port)/`,
          }),
          mockTurn.text("done"),
        ],
      },
      cwd,
      { sandbox: { network: { allowedDomains: [`127.0.0.1:${port(allowed)}`], allowLocalBinding: true } } },
    );
    expect(texts(messages)[1]).toContain("hello from the background");
  });

  it("a server listening in the sandbox cannot be reached from the host", async () => {
    const { cwd } = folders();
    const free = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port: chosen } = probe.address() as AddressInfo;
        probe.close(() => resolve(chosen));
      });
    });
    const policy = resolvePolicy({
      settings: { enabled: true, network: { allowedDomains: [`127.0.0.1:${port(allowed)}`], allowLocalBinding: true } },
      workspace: [cwd],
      rules: { allow: [], deny: [] },
      cwd,
      home: homedir(),
    });
    const sandbox = await OsSandbox.start({ policy });
    try {
      // Listens until its stdin ends; says so once it does.
      const program = `require('net').createServer(c=>c.end('inside')).listen(${free},'127.0.0.1',()=>console.log('listening'));process.stdin.resume();process.stdin.on('end',()=>process.exit(0))`;
      const { file, args } = sandbox.wrapServer(process.execPath, ["-e", program], cwd);
      const child = spawn(file, args, { cwd, stdio: ["pipe", "pipe", "inherit"] });
      const exited = new Promise((resolve) => child.once("exit", resolve));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("listening") && resolve());
        child.once("exit", () => reject(new Error("the sandboxed server exited before it listened")));
      });
      const reached = await new Promise<string>((resolve) => {
        const socket = connect(free, "127.0.0.1");
        socket.once("data", (data) => resolve(`reached: ${String(data)}`));
        socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
      });
      expect(reached).toBe("ECONNREFUSED");
      child.stdin.end();
      await exited;
    } finally {
      await sandbox.close();
    }
  });
});

describe("sandboxed Bash: processes", () => {
  /** Live processes whose command line contains `needle`. */
  function processesWith(needle: string): number[] {
    return readdirSync("/proc").flatMap((entry) => {
      if (!/^\d+$/.test(entry)) return [];
      try {
        const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
        return cmdline.includes(needle) ? [Number(entry)] : [];
      } catch {
        return [];
      }
    });
  }

  it("a child that leaves the session and drops its environment still dies with the command", async () => {
    const { cwd } = folders();
    // `env -i` removes Gyre's marker and `setsid` the process group: only the PID namespace catches it.
    const seconds = `${1000 + Math.floor(Math.random() * 1000)}.25`;
    const messages = await sandboxed(
      bash({ command: `setsid env -i /bin/sleep ${seconds} >/dev/null 2>&1 < /dev/null & echo started` }),
      cwd,
    );
    expect(texts(messages)[0]).toContain("started");
    expect(processesWith(`sleep ${seconds}`)).toEqual([]);
  });

  it("holds when Gyre runs as root: no capabilities, kernel knobs read-only, hidden paths stay hidden", async () => {
    const { cwd, outside } = folders();
    mkdirSync(join(outside, "keys"));
    writeFileSync(join(outside, "keys", "id"), "SECRET");
    const messages = await sandboxed(
      bash({
        command:
          "grep CapEff /proc/self/status; [ -w /proc/sys/kernel/core_pattern ] && echo KNOB-WRITABLE; " +
          `umount ${outside}/keys 2>/dev/null; cat ${outside}/keys/id; echo end`,
      }),
      cwd,
      { sandbox: { filesystem: { denyRead: [`${outside}/keys`] } } },
    );
    const [text] = texts(messages);
    expect(text).toContain("CapEff:\t0000000000000000");
    expect(text).not.toContain("KNOB-WRITABLE");
    expect(text).not.toContain("SECRET");
    expect(text).toContain("end");
  });

  it("keeps a background command sandboxed", async () => {
    const { cwd, outside } = folders();
    const script: MockScript = {
      mode: "sequential",
      turns: [
        mockTurn.toolUse("Bash", {
          command: `{ echo bg > ${outside}/bg.txt; } 2> err.txt; cat err.txt; echo bg-inside > inside.txt; touch finished`,
          run_in_background: true,
        }),
        // Waits on the background command's own signal that it is done.
        mockTurn.toolUse("Bash", { command: "until [ -e finished ]; do sleep 0.05; done; cat err.txt" }),
        mockTurn.toolUse("BashOutput", { bash_id: "bash_1" }),
        mockTurn.text("done"),
      ],
    };
    const messages = await sandboxed(script, cwd);
    expect(readFileSync(join(cwd, "inside.txt"), "utf8")).toBe("bg-inside\n");
    expect(existsSync(join(outside, "bg.txt"))).toBe(false);
    expect(texts(messages)[1]).toContain("Read-only file system");
    // Its output did not go through the foreground report: BashOutput reports what was blocked.
    expect(texts(messages)[2]).toContain(`write to ${outside}/bg.txt denied by the sandbox`);
    expect(
      violations(messages)
        .at(-1)
        ?.violations.map((v) => v.target),
    ).toEqual([`${outside}/bg.txt`]);
  });
});

describe("sandboxed Bash under a pseudo-terminal", () => {
  it("runs pty commands in the same sandbox", async () => {
    const { cwd, outside } = folders();
    const policy = resolvePolicy({
      settings: { enabled: true },
      workspace: [cwd],
      rules: { allow: [], deny: [] },
      cwd,
      home: homedir(),
    });
    const sandbox = await OsSandbox.start({ policy });
    try {
      const messages = await withMock(
        bash({ command: `tty >/dev/null && echo on-a-tty; echo in > inside.txt; echo out > ${outside}/f` }),
        (server) =>
          runQuery(server, anthropic, "go", {
            cwd,
            permissionMode: "bypassPermissions",
            tools: defaultTools({ cwd, bash: { pty: true, sandbox } }),
          }),
      );
      const [text] = texts(messages);
      expect(text).toContain("on-a-tty");
      expect(existsSync(join(cwd, "inside.txt"))).toBe(true);
      expect(existsSync(join(outside, "f"))).toBe(false);
      expect(text).toContain(`write to ${outside}/f denied by the sandbox`);
    } finally {
      await sandbox.close();
    }
  });
});

describe("sandbox settings and permissions", () => {
  it("fails before any tool runs when bubblewrap is missing, saying what to install", async () => {
    const { cwd } = folders();
    const empty = mkdtempSync(join(tmpdir(), "gyre-no-bwrap-"));
    made.push(empty);
    let error: unknown;
    let requests = 0;
    await withMock(bash({ command: `touch ran` }), async (server) => {
      try {
        await runQuery(server, anthropic, "go", {
          cwd,
          permissionMode: "bypassPermissions",
          sandbox: { enabled: true },
          env: { ...server.env(), PATH: empty },
        });
      } catch (caught) {
        error = caught;
      }
      requests = server.requests.length;
    });
    expect(error).toBeInstanceOf(GyreError);
    expect((error as GyreError).code).toBe("sandbox_unavailable");
    expect((error as GyreError).message).toContain("apt-get install bubblewrap");
    expect(requests).toBe(0);
    expect(existsSync(join(cwd, "ran"))).toBe(false);
  });

  it("runs sandboxed commands without asking, asks for dangerouslyDisableSandbox, and deny rules still hold", async () => {
    const { cwd } = folders();
    const asked: string[] = [];
    const messages = await withMock(
      bash(
        { command: "echo sandboxed" },
        { command: "echo unsandboxed > plain.txt", dangerouslyDisableSandbox: true },
        { command: "rm -f nothing" },
      ),
      (server) =>
        runQuery(server, anthropic, "go", {
          cwd,
          sandbox: { enabled: true },
          disallowedTools: ["Bash(rm:*)"],
          canUseTool: async (_name, input) => {
            asked.push(String(input.command));
            return { behavior: "allow" };
          },
        }),
    );
    const [first, second, third] = texts(messages);
    expect(first).toContain("sandboxed");
    expect(asked).toEqual(["echo unsandboxed > plain.txt"]);
    expect(second).not.toContain("denied");
    expect(existsSync(join(cwd, "plain.txt"))).toBe(true);
    expect(third).toContain("denied");
  });

  it("ignores dangerouslyDisableSandbox when unsandboxed commands are not allowed, and says so", async () => {
    const { cwd, outside } = folders();
    const messages = await sandboxed(bash({ command: `echo x > ${outside}/f`, dangerouslyDisableSandbox: true }), cwd, {
      sandbox: { allowUnsandboxedCommands: false },
    });
    const [text] = texts(messages);
    expect(existsSync(join(outside, "f"))).toBe(false);
    expect(text).toContain("dangerouslyDisableSandbox was ignored");
    expect(text).toContain("Unsandboxed commands are not allowed here");
  });

  it("reads the sandbox block of settings files, and an invalid one is a config_error", async () => {
    const { cwd, outside } = folders();
    mkdirSync(join(cwd, ".gyre"));
    writeFileSync(join(cwd, ".gyre", "settings.json"), JSON.stringify({ sandbox: { enabled: true } }));
    const messages = await withMock(bash({ command: `echo x > ${outside}/f` }), (server) =>
      runQuery(server, anthropic, "go", { cwd, permissionMode: "bypassPermissions", settingSources: ["project"] }),
    );
    expect(existsSync(join(outside, "f"))).toBe(false);
    expect(texts(messages)[0]).toContain("denied by the sandbox");
    writeFileSync(join(cwd, ".gyre", "settings.json"), JSON.stringify({ sandbox: { enabled: "yes" } }));
    const failure = withMock(bash({ command: "true" }), (server) =>
      runQuery(server, anthropic, "go", { cwd, permissionMode: "bypassPermissions", settingSources: ["project"] }),
    );
    await expect(failure).rejects.toMatchObject({ code: "config_error" });
  });
});
