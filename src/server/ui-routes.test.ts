import { describe, expect, it } from "vitest";
import { MemorySessionStore } from "../sessions/index.js";
import { ownerOfKey } from "./auth.js";
import { createServer } from "./create-server.js";
import { serveProject } from "./response-store.js";
import { UI_SIGN_IN_SECONDS, UiSignIns } from "./ui-sign-in.js";

const KEY_A = "key-alpha-1234567890";
const KEY_B = "key-bravo-0987654321";
const HOST = "127.0.0.1:8080";

/** A store holding A's run with its subagent's, B's run, local's run and a `gyre run` session. */
async function filledStore(): Promise<MemorySessionStore> {
  const store = new MemorySessionStore();
  const a = serveProject(ownerOfKey(KEY_A));
  await store.createSession({ id: "resp_a-run", cwd: "/srv", project: a });
  await store.createSession({ id: "a-sub", cwd: "/srv", project: a, parentId: "resp_a-run", parentToolUseId: "c1" });
  await store.createSession({ id: "resp_b-run", cwd: "/srv", project: serveProject(ownerOfKey(KEY_B)) });
  await store.createSession({ id: "resp_l-run", cwd: "/srv", project: serveProject("local") });
  await store.createSession({ id: "cli", cwd: "/home/me/app", project: "/home/me/app" });
  return store;
}

function get(app: ReturnType<typeof createServer>, path: string, headers: Record<string, string> = {}) {
  return app.request(`http://${HOST}${path}`, { headers: { host: HOST, ...headers } });
}

const ids = async (response: Response) =>
  ((await response.json()) as { sessions: { id: string }[] }).sessions.map((s) => s.id);

describe("gyre serve's /ui", () => {
  it("reads a key's own sessions and its subagents', never another key's, a keyless owner's or gyre run's", async () => {
    const app = createServer({ sessionStore: await filledStore(), apiKeys: [KEY_A, KEY_B] });
    const a = { authorization: `Bearer ${KEY_A}` };
    expect(await ids(await get(app, "/ui/api/sessions", a))).toEqual(["resp_a-run"]);
    const view = (await (await get(app, "/ui/api/sessions/resp_a-run", a)).json()) as { subagents: { id: string }[] };
    expect(view.subagents.map((s) => s.id)).toEqual(["a-sub"]);
    expect((await get(app, "/ui/api/sessions/a-sub", a)).status).toBe(200);
    for (const id of ["resp_b-run", "resp_l-run", "cli", "nope"])
      expect((await get(app, `/ui/api/sessions/${id}`, a)).status).toBe(404);
    expect((await get(app, "/ui/api/sessions/a-sub", { authorization: `Bearer ${KEY_B}` })).status).toBe(404);
  });

  it("without keys answers loopback clients naming this machine, with the keyless responses only", async () => {
    let loopback = true;
    const app = createServer({ sessionStore: await filledStore(), isLoopback: () => loopback });
    expect(await ids(await get(app, "/ui/api/sessions"))).toEqual(["resp_l-run"]);
    expect((await get(app, "/ui/api/sessions/cli")).status).toBe(404);
    // A site whose name was rebound to 127.0.0.1, or a page of another site.
    expect((await get(app, "/ui/api/sessions", { host: "evil.example:8080" })).status).toBe(401);
    expect((await get(app, "/ui/api/sessions", { origin: "https://evil.example" })).status).toBe(401);
    loopback = false;
    expect((await get(app, "/ui/api/sessions")).status).toBe(401);
  });

  it("is not there with ui: false", async () => {
    const app = createServer({ sessionStore: await filledStore(), apiKeys: [KEY_A], ui: false });
    for (const path of ["/ui/", "/ui/api/sessions"])
      expect((await get(app, path, { authorization: `Bearer ${KEY_A}` })).status).toBe(404);
  });
});

describe("UiSignIns", () => {
  it("accepts its own cookie until it expires, and none that was altered or whose key is gone", () => {
    let now = 1_700_000_000_000;
    const signIns = new UiSignIns([KEY_A, KEY_B], () => now);
    const owner = ownerOfKey(KEY_A);
    const cookie = signIns.issue(owner)!;
    expect(cookie).not.toContain(KEY_A);
    expect(signIns.ownerOf(cookie)).toBe(owner);
    expect(signIns.issue("0".repeat(24))).toBeUndefined();
    const [, expires, mac] = cookie.split(".");
    expect(signIns.ownerOf(`${owner}.${Number(expires) + 3600}.${mac}`)).toBeUndefined();
    expect(signIns.ownerOf(`${ownerOfKey(KEY_B)}.${expires}.${mac}`)).toBeUndefined();
    expect(signIns.ownerOf(`${cookie}.x`)).toBeUndefined();
    expect(signIns.ownerOf(undefined)).toBeUndefined();
    expect(new UiSignIns([KEY_B], () => now).ownerOf(cookie)).toBeUndefined();
    now += UI_SIGN_IN_SECONDS * 1000;
    expect(signIns.ownerOf(cookie)).toBeUndefined();
  });
});
