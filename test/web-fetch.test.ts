import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SDKMessage } from "../src/index.js";
import { mockTurn } from "../src/testing/index.js";
import { cliEnv, FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

const anthropic = FORMATS[0];
const SMALL_MODEL_SYSTEM = "You answer a question about one web page from its content.";

const PAGE = `<!doctype html><html><head><title>Tides</title><style>body { color: red }</style>
<script>window.secret = "not for the model";</script></head>
<body><h1>Tide tables</h1><p>High water at <b>06:12</b>, see <a href="/more">more</a>.</p>
<ul><li>Low water 12:30</li></ul></body></html>`;

/**
 * A web server on 127.0.0.1 with the pages each test needs, counting the requests of each URL
 * (path and query: each test asks with a query of its own, as the page cache is the process's).
 */
class PageServer {
  readonly hits = new Map<string, number>();
  readonly #held: ServerResponse[] = [];
  #server: Server | undefined;
  port = 0;

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.#server = createServer((req, res) => this.#handle(req, res));
    await new Promise<void>((resolve) => this.#server!.listen(0, "127.0.0.1", resolve));
    this.port = (this.#server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    for (const res of this.#held) res.destroy();
    this.#server?.closeAllConnections();
    await new Promise((resolve) => this.#server?.close(resolve));
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? "/", this.origin).pathname;
    this.hits.set(req.url ?? "/", (this.hits.get(req.url ?? "/") ?? 0) + 1);
    switch (path) {
      case "/page":
      case "/cached":
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
        return;
      case "/moved":
        res.writeHead(301, { location: "/page?moved" }).end();
        return;
      case "/elsewhere":
        res.writeHead(302, { location: `http://localhost:${this.port}/page?elsewhere` }).end();
        return;
      case "/big":
        res.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(5000));
        return;
      case "/slow":
        // Headers and never a body: only WebFetch's timeout ends the wait.
        res.writeHead(200, { "content-type": "text/html" });
        res.write("<html>");
        this.#held.push(res);
        return;
      default:
        res.writeHead(404).end("not here");
    }
  }
}

let web: PageServer;
beforeAll(async () => {
  web = new PageServer();
  await web.start();
});
afterAll(() => web.close());

/** The loopback server is reached only because the test's settings name it, as a user would. */
const local = () => ({ allowedLocalHosts: [`127.0.0.1:${web.port}`] });

function fetchCall(url: string, prompt = "When is high water?") {
  return { type: "tool_use" as const, name: "WebFetch", input: { url, prompt } };
}

function resultText(messages: SDKMessage[], index = 0): string {
  const content = toolResults(messages)[index]?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

describe("WebFetch through the loop", () => {
  it("turns an HTML page into Markdown and answers the prompt with the provider's small model", async () => {
    const script = {
      turns: [mockTurn.of([fetchCall(`${web.origin}/page?small`)]), mockTurn.text("High water is at 06:12.")],
      routes: [
        {
          system: SMALL_MODEL_SYSTEM,
          turns: [
            {
              ...mockTurn.text("The page says high water is at 06:12."),
              usage: { input_tokens: 1200, output_tokens: 30 },
            },
          ],
        },
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "tides?", {
        tools: ["WebFetch"],
        permissionMode: "bypassPermissions",
        webFetch: local(),
      });
      expect(resultText(messages)).toBe("The page says high water is at 06:12.");
      expect(toolResults(messages)[0]?.is_error).toBeUndefined();
      const small = server.requests.find((request) => JSON.stringify(request.body).includes(SMALL_MODEL_SYSTEM));
      expect((small?.body as { model?: string }).model).toBe("claude-haiku-5-5");
      const asked = JSON.stringify(small?.body);
      expect(asked).toContain("# Tide tables");
      expect(asked).toContain("**06:12**");
      expect(asked).toContain("[more](/more)");
      expect(asked).toContain("When is high water?");
      expect(asked).not.toContain("not for the model");
      const use = messages.find((m) => m.type === "user" && m.tool_use_result !== undefined);
      const outputs = use?.type === "user" ? Object.values(use.tool_use_result as Record<string, unknown>) : [];
      expect(outputs[0]).toMatchObject({
        code: 200,
        codeText: "OK",
        url: `${web.origin}/page?small`,
        result: "The page says high water is at 06:12.",
        bytes: Buffer.byteLength(PAGE),
      });
      expect(resultOf(messages).subtype).toBe("success");
      // The small model's tokens and cost count in the run's, under its own model.
      const result = resultOf(messages);
      const smallUsage = result.modelUsage["anthropic/claude-haiku-5-5"];
      expect(smallUsage).toMatchObject({ inputTokens: 1200, outputTokens: 30 });
      expect(smallUsage?.costUSD).toBeGreaterThan(0);
      const costs = Object.values(result.modelUsage).map((usage) => usage.costUSD);
      expect(costs).toHaveLength(2);
      expect(result.total_cost_usd).toBeCloseTo(
        costs.reduce((a, b) => a + b, 0),
        9,
      );
    });
  });

  it("returns the page itself when no small model is set, and follows a redirect on the same host", async () => {
    const script = { turns: [mockTurn.of([fetchCall(`${web.origin}/moved`)]), mockTurn.text("done")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "tides?", {
        tools: ["WebFetch"],
        permissionMode: "bypassPermissions",
        webFetch: { ...local(), smallModel: false },
      });
      const text = resultText(messages);
      expect(text).toContain("# Tide tables");
      expect(text).toContain("* Low water 12:30");
      expect(server.requests).toHaveLength(2);
      expect(web.hits.get("/moved")).toBe(1);
      expect(web.hits.get("/page?moved")).toBe(1);
    });
  });

  it("reports a redirect to another host instead of following it", async () => {
    const script = { turns: [mockTurn.of([fetchCall(`${web.origin}/elsewhere`)]), mockTurn.text("done")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "tides?", {
        tools: ["WebFetch"],
        permissionMode: "bypassPermissions",
        webFetch: { ...local(), smallModel: false },
      });
      const text = resultText(messages);
      expect(text).toContain("REDIRECT DETECTED");
      expect(text).toContain(`Redirect URL: http://localhost:${web.port}/page?elsewhere`);
      expect(text).toContain('prompt: "When is high water?"');
      expect(web.hits.get("/page?elsewhere")).toBeUndefined();
    });
  });

  it("refuses a response over the size limit and a server that does not answer in time", async () => {
    const script = {
      turns: [mockTurn.of([fetchCall(`${web.origin}/big`), fetchCall(`${web.origin}/slow`)]), mockTurn.text("done")],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "fetch", {
        tools: ["WebFetch"],
        permissionMode: "bypassPermissions",
        webFetch: { ...local(), smallModel: false, maxBytes: 1000, timeoutMs: 500 },
      });
      const [big, slow] = toolResults(messages);
      expect(big?.is_error).toBe(true);
      expect(resultText(messages, 0)).toContain("larger than 1000 bytes");
      expect(slow?.is_error).toBe(true);
      expect(resultText(messages, 1)).toContain("took longer than 0.5 s");
    });
  });

  it("refuses loopback and private addresses unless the settings allow them, by address and by name", async () => {
    const script = {
      turns: [
        mockTurn.of([fetchCall(`${web.origin}/page?private`), fetchCall(`http://localhost:${web.port}/page?private`)]),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "fetch", {
        tools: ["WebFetch"],
        permissionMode: "bypassPermissions",
        webFetch: { smallModel: false },
      });
      const results = toolResults(messages);
      expect(results.map((r) => r.is_error)).toEqual([true, true]);
      expect(resultText(messages, 0)).toContain("internal network");
      // localhost is a name: refused when its address was looked up, before any connection.
      expect(resultText(messages, 1)).toContain("internal network");
      expect(web.hits.get("/page?private")).toBeUndefined();
    });
  });

  it("refuses loopback however a hostile model spells it: decimal, short, IPv4-mapped IPv6, 0.0.0.0", async () => {
    const spellings = [
      `http://2130706433:${web.port}/page?spelled`,
      `http://127.1:${web.port}/page?spelled`,
      `http://[::ffff:127.0.0.1]:${web.port}/page?spelled`,
      `http://[::1]:${web.port}/page?spelled`,
      `http://0.0.0.0:${web.port}/page?spelled`,
    ];
    const script = { turns: [mockTurn.of(spellings.map((url) => fetchCall(url))), mockTurn.text("done")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "fetch", {
        tools: ["WebFetch"],
        permissionMode: "bypassPermissions",
        webFetch: { smallModel: false },
      });
      expect(toolResults(messages).map((r) => r.is_error)).toEqual(spellings.map(() => true));
      expect(web.hits.get("/page?spelled")).toBeUndefined();
    });
  });

  it("honours WebFetch(domain:…) rules: a deny rule stops the fetch, an allow rule lets it run without asking", async () => {
    const denied = { turns: [mockTurn.of([fetchCall(`${web.origin}/page?rules`)]), mockTurn.text("done")] };
    await withMock(denied, async (server) => {
      const messages = await runQuery(server, anthropic, "fetch", {
        tools: ["WebFetch"],
        permissionMode: "bypassPermissions",
        disallowedTools: ["WebFetch(domain:127.0.0.1)"],
        webFetch: { ...local(), smallModel: false },
      });
      expect(toolResults(messages)[0]?.is_error).toBe(true);
      expect(resultText(messages)).toContain("WebFetch(domain:127.0.0.1)");
    });
    expect(web.hits.get("/page?rules")).toBeUndefined();
    const allowed = {
      turns: [
        mockTurn.of([fetchCall(`${web.origin}/page?rules`), fetchCall(`http://localhost:${web.port}/page?rules`)]),
        mockTurn.text("done"),
      ],
    };
    const asked: string[] = [];
    await withMock(allowed, async (server) => {
      const messages = await runQuery(server, anthropic, "fetch", {
        tools: ["WebFetch"],
        allowedTools: ["WebFetch(domain:127.0.0.1)"],
        canUseTool: async (_name, input, { suggestions }) => {
          asked.push(String(input.url), JSON.stringify(suggestions));
          return { behavior: "deny", message: "not that one" };
        },
        webFetch: { ...local(), smallModel: false },
      });
      expect(resultText(messages, 0)).toContain("# Tide tables");
      expect(toolResults(messages)[1]?.is_error).toBe(true);
    });
    // Only the host without a rule was asked about, with a rule for its domain offered.
    expect(asked[0]).toBe(`http://localhost:${web.port}/page?rules`);
    expect(asked[1]).toContain('"ruleContent":"domain:localhost"');
    expect(web.hits.get("/page?rules")).toBe(1);
  });

  it("answers a second fetch of a URL from its 15-minute cache, without a request", async () => {
    const script = {
      turns: [
        mockTurn.of([fetchCall(`${web.origin}/cached`)]),
        mockTurn.of([fetchCall(`${web.origin}/cached`, "What about low water?")]),
        mockTurn.text("done"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, anthropic, "fetch twice", {
        tools: ["WebFetch"],
        permissionMode: "bypassPermissions",
        webFetch: { ...local(), smallModel: false },
      });
      expect(resultText(messages, 0)).toContain("Low water 12:30");
      expect(resultText(messages, 1)).toBe(resultText(messages, 0));
      expect(web.hits.get("/cached")).toBe(1);
    });
  });

  it("works in the bundled CLI, configured by a project's settings file", async () => {
    const cli = resolve("dist/bin/gyre.js");
    if (!existsSync(cli)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
    const project = mkdtempSync(join(tmpdir(), "gyre-webfetch-cli-"));
    mkdirSync(join(project, ".gyre"));
    writeFileSync(
      join(project, ".gyre", "settings.json"),
      JSON.stringify({
        webFetch: { ...local(), smallModel: false },
        permissions: { allow: ["WebFetch(domain:127.0.0.1)"] },
      }),
    );
    const script = { turns: [mockTurn.of([fetchCall(`${web.origin}/page?cli`)]), mockTurn.text("done")] };
    await withMock(script, async (server) => {
      const args = [cli, "run", "--output-format", "stream-json", "--verbose", "--trust-project", "fetch it"];
      const { stdout } = await promisify(execFile)(process.execPath, args, {
        cwd: project,
        env: cliEnv({ ...server.env(), GYRE_MODEL: anthropic.model }),
      });
      const messages = stdout
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as SDKMessage);
      // The HTML converter is loaded lazily from its own chunk of the bundle.
      expect(resultText(messages)).toContain("# Tide tables");
      expect(web.hits.get("/page?cli")).toBe(1);
    });
  });
});
