import { context as otelContext } from "@opentelemetry/api";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { matchedRoutes } from "hono/route";
import { asRequestError, RequestError, toErrorResponse, UnavailableError } from "./errors.js";
import { RateLimitError } from "./limits.js";
import type { ServerMetrics } from "./metrics.js";
import { nodeResponseOf } from "./sse.js";
import { contextFromTraceparent } from "../telemetry/index.js";

const DEFAULT_BODY_LIMIT = 16 * 1024 * 1024;

/** The server's one error handler: any error as the spec's error object and status (a 429 says when to retry). */
export function answerError(thrown: Error, c: Context): Response {
  const error = asRequestError(thrown);
  const { status, body } = toErrorResponse(error);
  if (error instanceof RateLimitError || error instanceof UnavailableError)
    c.header("retry-after", String(error.retryAfterSeconds));
  return c.json(body, status as 400);
}

/** An unknown route as the spec's 404. */
export function answerNotFound(c: Context): Response {
  return c.json(
    toErrorResponse(new RequestError(404, `No route ${c.req.method} ${c.req.path}.`, "not_found")).body,
    404,
  );
}

/** Counts every request by its route pattern (ids stay out of labels) and times it to its headers. */
export function countRequests(metrics: ServerMetrics): MiddlewareHandler {
  return async function count(c: Context, next) {
    const started = performance.now();
    await next();
    const route = matchedRoutes(c).findLast((route) => route.method !== "ALL")?.path ?? "unmatched";
    metrics.request(route, c.req.method, c.res.status, (performance.now() - started) / 1000);
  };
}

/**
 * Continues a client's W3C trace context: a request with `traceparent` (and `tracestate`) is
 * handled in that span's context, so the response's run is its child where a tracer provider and
 * context manager are registered (`gyre serve` registers them when the OTEL_* environment turns
 * tracing on).
 */
export function continueTrace(): MiddlewareHandler {
  return async (c, next) => {
    const traceparent = c.req.header("traceparent");
    if (traceparent === undefined) return next();
    const parent = contextFromTraceparent(traceparent, c.req.header("tracestate"), otelContext.active());
    return otelContext.with(parent, next);
  };
}

/**
 * Refuses a body larger than `maxBytes` (16 MiB by default) as a 413. A body of a stated length
 * (`content-length`, no `transfer-encoding`) is judged by its header, as Hono's bodyLimit does, but
 * without asking for `c.req.raw.body` first: on `@hono/node-server` that builds a full web Request
 * around the socket (0.15 ms a request in the serve bench), where the route's `json()` reads the
 * body straight from it. A chunked body goes through Hono's bodyLimit, which counts as it reads.
 */
export function limitBody(maxBytes: number | undefined): MiddlewareHandler {
  const maxSize = maxBytes ?? DEFAULT_BODY_LIMIT;
  const tooLarge = () => new RequestError(413, "The request body is too large.", "request_too_large");
  const counted = bodyLimit({
    maxSize,
    onError: () => {
      throw tooLarge();
    },
  });
  return async function limitBody(c, next) {
    if (c.req.method === "GET" || c.req.method === "HEAD") return next(); // no body
    const length = c.req.header("content-length");
    if (length === undefined || c.req.header("transfer-encoding") !== undefined) return counted(c, next);
    if (Number.parseInt(length, 10) > maxSize) throw tooLarge();
    return next();
  };
}

/** What the server reports of one request once its response has been sent (`ServerConfig.logRequest`). */
export interface RequestLogEntry {
  method: string;
  /** The path, without the query. */
  path: string;
  status: number;
  /** From the request's arrival to its response's end (a stream's last event), in milliseconds. */
  durationMs: number;
  /** The response a `POST /v1/responses` created, when it got that far. */
  responseId?: string;
}

const RESPONSE_ID = "gyre.responseId";

/** Names the response a request created, for its log entry. */
export function noteResponseId(c: Context, id: string): void {
  c.set(RESPONSE_ID, id);
}

/**
 * Reports every request to `log` once its response has been sent: over Node, when the
 * response ends (a stream runs to its end); elsewhere (`app.request()`), when it is returned.
 */
export function logRequests(log: (entry: RequestLogEntry) => void): MiddlewareHandler {
  return async function logRequest(c: Context, next) {
    const started = performance.now();
    await next();
    const report = () =>
      log({
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        durationMs: performance.now() - started,
        ...(typeof c.get(RESPONSE_ID) === "string" && { responseId: c.get(RESPONSE_ID) as string }),
      });
    const outgoing = nodeResponseOf(c);
    if (!outgoing || outgoing.closed) report();
    else outgoing.once("close", report);
  };
}
