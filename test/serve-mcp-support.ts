import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { connect } from "node:net";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const EVERYTHING = resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
// server-everything listens on every interface; the preload keeps it on 127.0.0.1.
const LOOPBACK_ONLY = pathToFileURL(resolve("test/fixtures/listen-loopback.mjs")).href;

/** `@modelcontextprotocol/server-everything` over streamable HTTP on 127.0.0.1. */
export interface Everything {
  /** Its MCP endpoint. */
  url: string;
  close(): void;
}

export async function startEverything(): Promise<Everything> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ["--import", LOOPBACK_ONLY, EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: "ignore",
  });
  const deadline = Date.now() + 15_000;
  while (!(await listening(port))) {
    if (Date.now() > deadline) {
      child.kill();
      throw new Error("server-everything did not start listening");
    }
    await new Promise((done) => setTimeout(done, 20));
  }
  return { url: `http://127.0.0.1:${port}/mcp`, close: () => child.kill() };
}

/** A port nobody listens on at 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
  const address = probe.address();
  await new Promise((done) => probe.close(done));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

function listening(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      done(true);
    });
    socket.once("error", () => done(false));
  });
}

/** The tool names an upstream request offered, in either wire format. */
export function offeredTools(body: Record<string, unknown>): string[] {
  const tools = (body.tools ?? []) as Array<{ name?: string; function?: { name: string } }>;
  return tools.map((tool) => tool.name ?? tool.function?.name ?? "");
}
