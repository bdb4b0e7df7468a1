import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { AsyncLocalStorage } from "node:async_hooks";
import {
  type Context,
  context,
  type ContextManager,
  propagation,
  ROOT_CONTEXT,
  type TextMapPropagator,
  trace,
} from "@opentelemetry/api";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { traceFields, tracedFetch } from "./trace-propagation.js";

// A propagator that writes the active span's ids as `traceparent` (the SDK's W3C one does the same).
const propagator: TextMapPropagator = {
  inject(ctx, carrier, setter) {
    const span = trace.getSpanContext(ctx);
    if (span) setter.set(carrier, "traceparent", `00-${span.traceId}-${span.spanId}-01`);
  },
  extract: (ctx) => ctx,
  fields: () => ["traceparent"],
};
const SPAN = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 };
const inSpan = <T>(fn: () => T): T => context.with(trace.setSpanContext(context.active(), SPAN), fn);

// A context manager over AsyncLocalStorage, as the SDK's context-async-hooks package has.
const storage = new AsyncLocalStorage<Context>();
const manager: ContextManager = {
  active: () => storage.getStore() ?? ROOT_CONTEXT,
  with: (ctx, fn, thisArg, ...args) => storage.run(ctx, () => fn.apply(thisArg, args)),
  bind: (_ctx, target) => target,
  enable: () => manager,
  disable: () => manager,
};
beforeAll(() => context.setGlobalContextManager(manager));
afterAll(() => context.disable());
afterEach(() => propagation.disable());

describe("MCP trace propagation", () => {
  it("adds nothing without a propagator or an active span", () => {
    expect(inSpan(traceFields)).toBeUndefined();
    propagation.setGlobalPropagator(propagator);
    expect(traceFields()).toBeUndefined();
  });

  it("gives the active span's fields for _meta, and sends them as headers of a remote server's requests", async () => {
    propagation.setGlobalPropagator(propagator);
    const traceparent = `00-${SPAN.traceId}-${SPAN.spanId}-01`;
    expect(inSpan(traceFields)).toEqual({ traceparent });
    const seen: (string | undefined)[] = [];
    const server = createServer((request, response) => {
      seen.push(request.headers.traceparent as string | undefined);
      response.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      const send = tracedFetch();
      await (await inSpan(() => send(url, { method: "POST", headers: { "x-kept": "1" }, body: "{}" }))).text();
      await (await send(url)).text();
      expect(seen).toEqual([traceparent, undefined]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
