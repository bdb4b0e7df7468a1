import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mockFault, mockTurn } from "../src/testing/index.js";
import { folderWithPeer } from "./compat-peers.js";
import { cliEnv, withMock } from "./helpers.js";
import { CLI, exitOf, killAll, requireBuiltCli, track } from "./serve-process.js";
import { testQueue, until } from "./cluster-process.js";

// The CLI's tracing end to end: the built gyre, the real OpenTelemetry SDK and OTLP exporters
// (found in the working folder's project, as a global gyre finds them: a folder whose
// node_modules is the compat install), and an OTLP/HTTP receiver here that decodes what arrives.

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}
interface Received {
  path: string;
  contentType: string;
  body: Buffer;
}

/** An OTLP/HTTP receiver: every POST to /v1/traces and /v1/metrics, answered 200. */
class Receiver {
  readonly received: Received[] = [];
  readonly #server: Server;
  constructor() {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        if (request.method === "POST" && (request.url === "/v1/traces" || request.url === "/v1/metrics"))
          this.received.push({
            path: request.url,
            contentType: request.headers["content-type"] ?? "",
            body: Buffer.concat(chunks),
          });
        response.writeHead(200, { "content-type": request.headers["content-type"] ?? "application/json" });
        response.end(request.headers["content-type"]?.includes("json") ? "{}" : "");
      });
    });
  }
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }
  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
  /** The spans of every http/json export, with their resource's service name. */
  spans(): (OtlpSpan & { service: string })[] {
    return this.traces().flatMap(({ body }) => {
      const request = JSON.parse(body.toString("utf8")) as {
        resourceSpans: {
          resource: { attributes: OtlpSpan["attributes"] };
          scopeSpans: { spans: OtlpSpan[] }[];
        }[];
      };
      return request.resourceSpans.flatMap((resourceSpans) => {
        const service = String(attribute(resourceSpans.resource.attributes, "service.name"));
        return resourceSpans.scopeSpans.flatMap((scope) => scope.spans.map((span) => ({ ...span, service })));
      });
    });
  }

  /** The trace exports. */
  traces(): Received[] {
    return this.received.filter((received) => received.path === "/v1/traces");
  }
  /** The metrics of every http/json export, by name, with their data points. */
  metrics(): {
    name: string;
    unit: string;
    points: { attributes: OtlpSpan["attributes"]; sum?: number; count?: string | number; asDouble?: number }[];
  }[] {
    return this.received
      .filter((received) => received.path === "/v1/metrics")
      .flatMap(({ body }) => {
        const request = JSON.parse(body.toString("utf8")) as {
          resourceMetrics: {
            scopeMetrics: {
              metrics: {
                name: string;
                unit: string;
                histogram?: {
                  dataPoints: { attributes: OtlpSpan["attributes"]; sum?: number; count?: string | number }[];
                };
                sum?: { dataPoints: { attributes: OtlpSpan["attributes"]; asDouble?: number }[] };
              }[];
            }[];
          }[];
        };
        return request.resourceMetrics.flatMap((resource) =>
          resource.scopeMetrics.flatMap((scope) =>
            scope.metrics.map((metric) => ({
              name: metric.name,
              unit: metric.unit,
              points: [...(metric.histogram?.dataPoints ?? []), ...(metric.sum?.dataPoints ?? [])],
            })),
          ),
        );
      });
  }
}

function attribute(attributes: OtlpSpan["attributes"], key: string): unknown {
  const value = attributes.find((entry) => entry.key === key)?.value;
  return value && Object.values(value)[0];
}

/** OTLP/JSON ids are hex (the spec's JSON mapping); some exporters send base64: either way, as hex. */
function hex(id: string | undefined): string | undefined {
  if (id === undefined || /^[0-9a-f]+$/.test(id)) return id;
  return Buffer.from(id, "base64").toString("hex");
}

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

let receiver: Receiver;
let endpoint: string;
let project: string;
beforeAll(async () => {
  requireBuiltCli();
  receiver = new Receiver();
  endpoint = await receiver.listen();
  project = folderWithPeer("otel-sdk", "gyre-otel-project-");
});
afterEach(() => {
  killAll();
  receiver.received.length = 0;
});
afterAll(async () => {
  await receiver.close();
  rmSync(project, { recursive: true, force: true });
});

/** Starts `gyre ARGS` in the project with the SDK, and waits for a line of its stdout that matches. */
async function gyreUntil(
  args: string[],
  env: Record<string, string>,
  line: RegExp,
): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = track(
    spawn(process.execPath, [CLI, ...args], { cwd: project, env: cliEnv(env), stdio: ["ignore", "pipe", "inherit"] }),
  );
  for await (const text of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
    const match = line.exec(text);
    if (match) return { child, match };
  }
  throw new Error(`gyre ${args[0]} exited before it printed ${line}`);
}

function gyreRun(cwd: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = track(
    spawn(process.execPath, [CLI, "run", "hi", "--model", "anthropic/claude-sonnet-4-5", "--no-session-persistence"], {
      cwd,
      env: cliEnv(env),
      stdio: ["ignore", "ignore", "pipe"],
    }),
  );
  let stderr = "";
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  return exitOf(child).then((code) => ({ code, stderr }));
}

describe("gyre run with the OTEL_* environment", () => {
  it("sends its trace and GenAI metrics over OTLP http/json before it exits, a child of TRACEPARENT, as OTEL_SERVICE_NAME", async () => {
    await withMock(
      { turns: [mockTurn.text("hello", { usage: { input_tokens: 17, output_tokens: 4 } })] },
      async (server) => {
        const { code, stderr } = await gyreRun(project, {
          ...server.env(),
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_SERVICE_NAME: "ci-agent",
          OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test",
          TRACEPARENT,
        });
        expect(stderr).toBe("");
        expect(code).toBe(0);
        const spans = receiver.spans();
        const agent = spans.find((span) => span.name === "invoke_agent gyre");
        const chat = spans.find((span) => span.name === "chat claude-sonnet-4-5");
        expect(agent && hex(agent.traceId)).toBe(TRACE_ID);
        expect(agent && hex(agent.parentSpanId)).toBe(PARENT_ID);
        expect(agent?.service).toBe("ci-agent");
        expect(chat && hex(chat.parentSpanId)).toBe(agent && hex(agent.spanId));
        expect(chat && attribute(chat.attributes, "gen_ai.usage.input_tokens")).toBe(17);
        expect(chat && attribute(chat.attributes, "gen_ai.usage.output_tokens")).toBe(4);
        const metrics = receiver.metrics();
        const tokens = metrics.find((metric) => metric.name === "gen_ai.client.token.usage");
        const input = tokens?.points.find((point) => attribute(point.attributes, "gen_ai.token.type") === "input");
        expect(input?.sum).toBe(17);
        expect(Number(input?.count)).toBe(1);
        expect(metrics.find((metric) => metric.name === "gen_ai.client.operation.duration")?.unit).toBe("s");
        const cost = metrics.find((metric) => metric.name === "gyre.client.cost");
        expect(cost?.points[0]?.asDouble).toBeGreaterThan(0);
      },
    );
  });

  it("sends over OTLP http/protobuf, the default protocol", async () => {
    await withMock({ turns: [mockTurn.text("hello")] }, async (server) => {
      const { code } = await gyreRun(project, {
        ...server.env(),
        OTEL_TRACES_EXPORTER: "otlp",
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      });
      expect(code).toBe(0);
      expect(receiver.traces().length).toBeGreaterThan(0);
      expect(receiver.traces()[0]?.contentType).toBe("application/x-protobuf");
      // Protobuf carries strings as their UTF-8 bytes: the span names are in the body.
      const bodies = Buffer.concat(receiver.traces().map(({ body }) => body)).toString("latin1");
      expect(bodies).toContain("invoke_agent gyre");
      expect(bodies).toContain("chat claude-sonnet-4-5");
    });
  });

  it("fails at start, naming what to install, when tracing is on and the SDK is not installed", async () => {
    const bare = mkdtempSync(join(tmpdir(), "gyre-otel-bare-"));
    try {
      const { code, stderr } = await gyreRun(bare, { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
      expect(code).toBe(1);
      expect(stderr).toContain("gyre: missing_dependency:");
      expect(stderr).toContain("npm install @opentelemetry/sdk-trace @opentelemetry/resources");
      expect(stderr).toContain("@opentelemetry/exporter-trace-otlp-proto");
      expect(receiver.received).toEqual([]);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it("sends nothing and loads no SDK when no OTEL_* variable turns tracing on", async () => {
    const bare = mkdtempSync(join(tmpdir(), "gyre-otel-off-"));
    try {
      await withMock({ turns: [mockTurn.text("hello")] }, async (server) => {
        // The SDK is not installed here: had it been asked for, the run would fail.
        const { code, stderr } = await gyreRun(bare, { ...server.env() });
        expect(stderr).toBe("");
        expect(code).toBe(0);
      });
      expect(receiver.received).toEqual([]);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });
});

describe("MCP calls with the OTEL_* environment", () => {
  it("carry the trace context: gyre mcp serve's agent run is a child of the calling run's execute_tool span", async () => {
    const gyreHome = process.env.GYRE_HOME ?? "";
    await withMock({ turns: [mockTurn.text("inner answer")] }, async (inner) => {
      const outerScript = {
        turns: [mockTurn.toolUse("mcp__gyre__agent", { prompt: "say something" }), mockTurn.text("outer done")],
      };
      await withMock(outerScript, async (outer) => {
        const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" };
        const config = join(project, "mcp-traced.json");
        writeFileSync(
          config,
          JSON.stringify({
            mcpServers: {
              gyre: {
                command: process.execPath,
                args: [CLI, "mcp", "serve", "--model", "anthropic/claude-sonnet-4-5", "--no-session-persistence"],
                cwd: project,
                env: {
                  PATH: process.env.PATH ?? "",
                  HOME: process.env.HOME ?? "",
                  GYRE_HOME: gyreHome,
                  ...inner.env(),
                  ...otel,
                  OTEL_SERVICE_NAME: "gyre-mcp",
                },
              },
            },
          }),
        );
        const child = track(
          spawn(
            process.execPath,
            [
              CLI,
              "run",
              "ask the other agent",
              "--model",
              "anthropic/claude-sonnet-4-5",
              "--no-session-persistence",
              "--mcp-config",
              config,
              "--allowed-tools",
              "mcp__gyre__agent",
            ],
            {
              cwd: project,
              env: cliEnv({ ...outer.env(), ...otel, TRACEPARENT }),
              stdio: ["ignore", "ignore", "inherit"],
            },
          ),
        );
        expect(await exitOf(child)).toBe(0);
        expect(outer.requests).toHaveLength(2);
        expect(inner.requests).toHaveLength(1);
        const spans = () => receiver.spans();
        // The MCP server flushes its spans as it exits, which may be after the caller did.
        const agentCall = spans().find((span) => span.name === "execute_tool mcp__gyre__agent");
        await until(() => spans().some((span) => span.service === "gyre-mcp"), "gyre mcp serve's spans");
        const served = spans().find((span) => span.service === "gyre-mcp" && span.name === "invoke_agent gyre");
        expect(agentCall && hex(agentCall.traceId)).toBe(TRACE_ID);
        expect(served && hex(served.traceId)).toBe(TRACE_ID);
        expect(served && hex(served.parentSpanId)).toBe(agentCall && hex(agentCall.spanId));
      });
    });
  });
});

describe("gyre serve with the OTEL_* environment", () => {
  it("continues a client's traceparent: the response's run is a child of the client's span, its chat span has the request's sampling", async () => {
    await withMock({ turns: [mockTurn.text("served")] }, async (server) => {
      const child: ChildProcess = track(
        spawn(process.execPath, [CLI, "serve", "--port", "0"], {
          cwd: project,
          env: cliEnv({
            ...server.env(),
            OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
            OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          }),
          stdio: ["ignore", "pipe", "inherit"],
        }),
      );
      let url = "";
      for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
        const match = /listening on (http:\/\/\S+)/.exec(line);
        if (match?.[1]) {
          url = match[1];
          break;
        }
      }
      const response = await fetch(`${url}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", traceparent: TRACEPARENT },
        body: JSON.stringify({
          model: "anthropic/claude-sonnet-4-5",
          input: "hi",
          store: false,
          temperature: 0.25,
          top_p: 0.5,
        }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { status: string }).status).toBe("completed");
      child.kill("SIGTERM");
      expect(await exitOf(child)).toBe(0);
      const agent = receiver.spans().find((span) => span.name === "invoke_agent gyre");
      expect(agent && hex(agent.traceId)).toBe(TRACE_ID);
      expect(agent && hex(agent.parentSpanId)).toBe(PARENT_ID);
      expect(agent?.service).toBe("gyre");
      const chat = receiver.spans().find((span) => span.name === "chat claude-sonnet-4-5");
      expect(chat && attribute(chat.attributes, "gen_ai.request.temperature")).toBe(0.25);
      expect(chat && attribute(chat.attributes, "gen_ai.request.top_p")).toBe(0.5);
    });
  });

  it("a cluster's worker continues the traceparent of a request another instance queued", async () => {
    const queue = testQueue();
    const storeDir = mkdtempSync(join(tmpdir(), "gyre-otel-cluster-"));
    const store = `sqlite:${join(storeDir, "gyre.db")}`;
    try {
      await withMock({ turns: [mockTurn.text("queued and run")] }, async (server) => {
        const env = {
          ...server.env(),
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        };
        const serve = await gyreUntil(
          ["serve", "--port", "0", "--store", store, "--queue", queue.url, "--concurrency", "0"],
          env,
          /listening on (http:\/\/\S+)/,
        );
        const worker = await gyreUntil(["worker", "--store", store, "--queue", queue.url], env, /^gyre worker running/);
        const response = await fetch(`${serve.match[1]}/responses`, {
          method: "POST",
          headers: { "content-type": "application/json", traceparent: TRACEPARENT },
          body: JSON.stringify({ model: "anthropic/claude-sonnet-4-5", input: "hi" }),
        });
        expect(((await response.json()) as { status: string }).status).toBe("completed");
        worker.child.kill("SIGTERM");
        serve.child.kill("SIGTERM");
        expect(await exitOf(worker.child)).toBe(0);
        expect(await exitOf(serve.child)).toBe(0);
        const agent = receiver.spans().find((span) => span.name === "invoke_agent gyre");
        expect(agent && hex(agent.traceId)).toBe(TRACE_ID);
        expect(agent && hex(agent.parentSpanId)).toBe(PARENT_ID);
      });
    } finally {
      await queue.clean();
      rmSync(storeDir, { recursive: true, force: true });
    }
  });

  it("a worker that hands a run back on SIGTERM sends what it traced before it exits", async () => {
    const queue = testQueue();
    const storeDir = mkdtempSync(join(tmpdir(), "gyre-otel-handback-"));
    const store = `sqlite:${join(storeDir, "gyre.db")}`;
    // The first attempt fails (its chat span ends), the retry hangs: the run is in flight at SIGTERM.
    const script = { turns: [{ ...mockTurn.text("never"), faults: [mockFault.overloaded(), mockFault.stall()] }] };
    try {
      await withMock(script, async (server) => {
        const env = {
          ...server.env(),
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        };
        const serve = await gyreUntil(
          ["serve", "--port", "0", "--store", store, "--queue", queue.url, "--concurrency", "0"],
          env,
          /listening on (http:\/\/\S+)/,
        );
        const worker = await gyreUntil(
          ["worker", "--store", store, "--queue", queue.url, "--shutdown-grace", "0"],
          env,
          /^gyre worker running/,
        );
        await fetch(`${serve.match[1]}/responses`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "anthropic/claude-sonnet-4-5", input: "hi", background: true }),
        });
        await until(() => server.requests.length === 2 || undefined, "the retried model request");
        worker.child.kill("SIGTERM");
        expect(await exitOf(worker.child)).toBe(0);
        const failed = receiver.spans().find((span) => span.name === "chat claude-sonnet-4-5");
        expect(failed && attribute(failed.attributes, "error.type")).toEqual(expect.any(String));
      });
    } finally {
      await queue.clean();
      rmSync(storeDir, { recursive: true, force: true });
    }
  });
});
