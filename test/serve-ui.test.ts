// `gyre serve`'s /ui (issue 34): the built CLI serving two API keys, responses made with the
// official `openai` client against the mock LLM, then the page's API and the page itself in
// Debian's headless chromium (playwright-core, a compat peer): each key reads its own
// responses' runs, another key's are a 404, and nothing is answered without a key.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemorySessionStore } from "../src/sessions/index.js";
import { mockTurn, startMockLLM, type MockLLMServer } from "../src/testing/index.js";
import { sessionView } from "../src/ui/index.js";
import { killAll, requireBuiltCli, startServe } from "./serve-process.js";
import { UPSTREAMS, withServer } from "./serve-support.js";
import { type Browser, launchChromium } from "./ui-support.js";

const KEY_A = "key-alpha-1234567890";
const KEY_B = "key-bravo-0987654321";

let dir: string;
let mock: MockLLMServer;
let origin: string;
let browser: Browser;
const clients: Record<"a" | "b", OpenAI> = {} as never;
/** The run session of each key's first response (`<response id>-run`). */
const sessions: Record<"a" | "b", string> = { a: "", b: "" };

type Listed = { sessions: { id: string; title: string | null }[] };

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** Signs in at /ui/login as a browser's form post would; the cookie (name=value) it set. */
async function signIn(key: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${origin}/ui/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams({ key }).toString(),
  });
}

beforeAll(async () => {
  requireBuiltCli();
  dir = mkdtempSync(join(tmpdir(), "gyre-serve-ui-"));
  const config = join(dir, "serve.yaml");
  writeFileSync(
    config,
    `models:\n  - name: team-model\n    model: anthropic/claude-sonnet-4-5\napiKeys: [${KEY_A}, ${KEY_B}]\n`,
  );
  mock = await startMockLLM({
    script: {
      // One turn per response, in the order they are made.
      mode: "sequential",
      turns: [
        mockTurn.text("alpha answer"),
        mockTurn.text("bravo answer"),
        mockTurn.text("bravo again"),
        mockTurn.text("alpha again"),
      ],
    },
  });
  const served = await startServe(["--config", config, "--db", join(dir, "serve.db"), "--quiet"], mock.env());
  origin = new URL(served.url).origin;
  clients.a = new OpenAI({ baseURL: served.url, apiKey: KEY_A, maxRetries: 0 });
  clients.b = new OpenAI({ baseURL: served.url, apiKey: KEY_B, maxRetries: 0 });
  const a = await clients.a.responses.create({ model: "team-model", input: "alpha question" });
  const b = await clients.b.responses.create({ model: "team-model", input: "bravo question" });
  expect([a.output_text, b.output_text]).toEqual(["alpha answer", "bravo answer"]);
  sessions.a = `${a.id}-run`;
  sessions.b = `${b.id}-run`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  killAll();
  await mock?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("gyre serve's /ui", () => {
  it("answers nothing without a key: 401 for the API and the event stream, the sign-in form for the page", async () => {
    for (const path of ["/ui/api/sessions", `/ui/api/sessions/${sessions.a}`, "/ui/api/events"])
      expect((await fetch(`${origin}${path}`)).status).toBe(401);
    expect((await fetch(`${origin}/ui/api/sessions`, { headers: bearer("key-unknown-000000") })).status).toBe(401);
    expect((await fetch(`${origin}/ui/api/sessions`, { headers: { cookie: "gyre-serve-ui=forged" } })).status).toBe(
      401,
    );
    const form = await fetch(`${origin}/ui/`);
    expect(form.status).toBe(401);
    expect(await form.text()).toContain('<form method="post" action="login">');
    expect(form.headers.get("content-security-policy")).toContain("default-src 'none'");
    const bare = await fetch(`${origin}/ui`, { redirect: "manual" });
    expect([bare.status, bare.headers.get("location")]).toEqual([301, "/ui/"]);
  });

  it("lists a key's own responses' runs only; another key's run is a 404", async () => {
    const listA = (await (await fetch(`${origin}/ui/api/sessions`, { headers: bearer(KEY_A) })).json()) as Listed;
    expect(listA.sessions.map((s) => s.id)).toEqual([sessions.a]);
    expect(listA.sessions[0]?.title).toContain("alpha question");
    const listB = (await (await fetch(`${origin}/ui/api/sessions`, { headers: bearer(KEY_B) })).json()) as Listed;
    expect(listB.sessions.map((s) => s.id)).toEqual([sessions.b]);

    const own = await fetch(`${origin}/ui/api/sessions/${sessions.a}`, { headers: bearer(KEY_A) });
    expect(own.status).toBe(200);
    expect(JSON.stringify(await own.json())).toContain("alpha answer");
    expect((await fetch(`${origin}/ui/api/sessions/${sessions.b}`, { headers: bearer(KEY_A) })).status).toBe(404);
    expect((await fetch(`${origin}/ui/api/sessions/${sessions.a}`, { headers: bearer(KEY_B) })).status).toBe(404);
    const diff = `${origin}/ui/api/sessions/${sessions.b}/step-diff?from=a&to=b`;
    expect((await fetch(diff, { headers: bearer(KEY_A) })).status).toBe(404);
  });

  it("trades a key for an HttpOnly SameSite=Strict cookie that does not hold it; refuses a wrong key and another site's post", async () => {
    const wrong = await signIn("key-unknown-000000");
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("not an API key of this server");
    expect((await signIn(KEY_A, { origin: "https://attacker.example" })).status).toBe(403);
    expect((await signIn(KEY_A, { "sec-fetch-site": "cross-site" })).status).toBe(403);

    const signed = await signIn(KEY_A, { origin });
    expect([signed.status, signed.headers.get("location")]).toEqual([303, "/ui/"]);
    const setCookie = signed.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^gyre-serve-ui=/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).toMatch(/Path=\/ui/);
    expect(setCookie).not.toContain(KEY_A);
    const cookie = setCookie.split(";")[0] ?? "";
    const listed = (await (await fetch(`${origin}/ui/api/sessions`, { headers: { cookie } })).json()) as Listed;
    expect(listed.sessions.map((s) => s.id)).toEqual([sessions.a]);
    expect((await fetch(`${origin}/ui/api/sessions/${sessions.b}`, { headers: { cookie } })).status).toBe(404);
    // The cookie's signature covers whose it is: naming the other key's owner breaks it.
    const [, owner] = /^gyre-serve-ui=([0-9a-f]+)\./.exec(cookie) ?? [];
    const otherOwner = (owner ?? "").replace(/^./, (ch) => (ch === "0" ? "1" : "0"));
    const forged = cookie.replace(`=${owner}.`, `=${otherOwner}.`);
    expect((await fetch(`${origin}/ui/api/sessions`, { headers: { cookie: forged } })).status).toBe(401);
  });

  it("tells a key's event stream of its own sessions only", async () => {
    const controller = new AbortController();
    const stream = await fetch(`${origin}/ui/api/events`, { headers: bearer(KEY_A), signal: controller.signal });
    expect(stream.status).toBe(200);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("event: ready")) text += (await reader.read()).value ?? "";
    // B's response first, then A's: A's stream hears of A's, and never of B's.
    const b = await clients.b.responses.create({ model: "team-model", input: "bravo second" });
    const a = await clients.a.responses.create({ model: "team-model", input: "alpha second" });
    while (!text.includes(`"id":"${a.id}-run"`)) text += (await reader.read()).value ?? "";
    controller.abort();
    expect(text).not.toContain(b.id);
    expect(text).not.toContain(sessions.b);
  });

  it("in a browser: signs in with key A at /ui and lists A's response, not B's", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const first = await page.goto(`${origin}/ui/`);
    expect(first?.status()).toBe(401);
    await page.locator("#key").fill(KEY_A);
    await page.locator("button[type=submit]").click();
    await page.getByTestId("session-row").first().waitFor();
    expect(page.url()).toBe(`${origin}/ui/`);
    const rows = await page.getByTestId("session-row").allInnerTexts();
    expect(rows.some((row) => row.includes("alpha question"))).toBe(true);
    expect(rows.join("\n")).not.toContain("bravo");
    await context.close();
  });
});

describe("what a key's /ui leaves out", () => {
  it("the content a Write replaced: kept as a checkpoint before the call's own checks, it may be a file the run never read", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "gyre-serve-ui-ws-"));
    const secret = join(workspace, "secret.txt");
    writeFileSync(secret, "the launch code is 0000\n");
    const store = new MemorySessionStore();
    try {
      await withServer(
        { turns: [mockTurn.toolUse("Write", { file_path: secret, content: "overwritten\n" }), mockTurn.text("tried")] },
        async ({ server, client }) => {
          const response = await client(KEY_A).responses.create({ model: UPSTREAMS[0]!.model, input: "write it" });
          const id = `${response.id}-run`;
          // The store has the file's content (the Write failed: the file was not read first) …
          const whole = await sessionView(store, id);
          expect(JSON.stringify(whole?.writes)).toContain("launch code");
          expect(JSON.stringify(whole?.messages)).not.toContain("launch code");
          // … and the key's page does not show it.
          const shown = await fetch(`${server.url}/ui/api/sessions/${id}`, { headers: bearer(KEY_A) });
          const text = await shown.text();
          expect(text).toContain("overwritten");
          expect(text).not.toContain("launch code");
        },
        { apiKeys: [KEY_A], tools: ["Write"], workspace, permissions: { allow: ["Write"] }, sessionStore: store },
      );
    } finally {
      await store.close();
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
