import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemorySessionStore } from "../sessions/index.js";
import { createUiApp } from "./app.js";
import { uiGuard } from "./guard.js";
import { SessionChanges } from "./live.js";
import type { SessionView } from "./session-view.js";

const TOKEN = "a".repeat(64);
const HOST = "127.0.0.1:4000";
let page: string;
let store: MemorySessionStore;

beforeAll(() => {
  page = mkdtempSync(join(tmpdir(), "gyre-ui-page-"));
  writeFileSync(join(page, "index.html"), "<!doctype html><title>gyre ui</title>");
  store = new MemorySessionStore();
});
afterAll(() => rmSync(page, { recursive: true, force: true }));

function app() {
  return createUiApp({
    store,
    access: uiGuard({ token: TOKEN, cookie: "gyre-ui-4000" }, () => new Set([HOST, "localhost:4000"])),
    pageFolder: page,
  });
}

const request = (path: string, headers: Record<string, string> = {}) =>
  app().app.request(`http://${HOST}${path}`, { headers: { host: HOST, ...headers } });

describe("gyre ui's guard", () => {
  it("refuses a request without the token (401), or with another Host even with it (403)", async () => {
    expect((await request("/api/sessions")).status).toBe(401);
    expect((await request("/api/sessions", { cookie: "gyre-ui-4000=wrong" })).status).toBe(401);
    expect((await request(`/api/sessions?token=${"b".repeat(64)}`)).status).toBe(401);
    expect((await request("/", { host: "attacker.example:4000", authorization: `Bearer ${TOKEN}` })).status).toBe(403);
    expect((await request("/api/sessions", { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await request("/api/sessions", { cookie: `gyre-ui-4000=${TOKEN}` })).status).toBe(200);
  });

  it("trades the address's token for a cookie and drops it from the address", async () => {
    const response = await request(`/?token=${TOKEN}`);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/");
    expect(response.headers.get("set-cookie")).toBe(`gyre-ui-4000=${TOKEN}; Path=/; HttpOnly; SameSite=Strict`);
  });

  it("serves the page with a policy that runs only its own script, and no file outside its folder", async () => {
    const response = await request("/", { cookie: `gyre-ui-4000=${TOKEN}` });
    expect(await response.text()).toContain("<title>gyre ui</title>");
    expect(response.headers.get("content-security-policy")).toMatch(/script-src 'self';/);
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    const escape = await request("/..%2f..%2fetc%2fpasswd", { cookie: `gyre-ui-4000=${TOKEN}` });
    expect(escape.status).toBe(404);
    expect((await request("/%E0%A4%A", { cookie: `gyre-ui-4000=${TOKEN}` })).status).toBe(404);
  });
});

describe("gyre ui's API", () => {
  it("answers a session's view: its messages, its denials and results placed after the message they followed", async () => {
    const id = "s1";
    await store.createSession({ id, cwd: "/p", title: "one" }, [
      { type: "user", uuid: "u1", session_id: id, parent_tool_use_id: null, message: { role: "user", content: "hi" } },
      {
        type: "system",
        subtype: "permission_denied",
        uuid: "d1",
        session_id: id,
        tool_use_id: "t1",
        tool_name: "Bash",
        tool_input: {},
        message: "denied by the deny rule Bash(rm:*)",
      },
    ]);
    const response = await request(`/api/sessions/${id}`, { authorization: `Bearer ${TOKEN}` });
    const view = (await response.json()) as SessionView;
    expect(view.session.title).toBe("one");
    expect(view.messages.map((m) => m.sdkUuid)).toEqual(["u1"]);
    expect(view.events).toMatchObject([{ after: "u1", message: { subtype: "permission_denied", tool_use_id: "t1" } }]);
    expect((await request("/api/sessions/nope", { authorization: `Bearer ${TOKEN}` })).status).toBe(404);
  });
});

describe("SessionChanges", () => {
  it("tells listeners of sessions that changed after they subscribed, not of those it saw first", async () => {
    const changes = new SessionChanges(store);
    const seen: string[] = [];
    let told: () => void = () => {};
    const next = () => new Promise<void>((resolve) => (told = resolve));
    const stop = changes.subscribe((session) => {
      seen.push(session.id);
      told();
    });
    try {
      const created = next();
      await changes.started();
      await store.createSession({ id: "s2", cwd: "/p" });
      await created;
      expect(seen).toEqual(["s2"]);
    } finally {
      stop();
    }
  });
});
