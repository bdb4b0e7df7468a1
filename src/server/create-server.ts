import { ServerResponse } from "node:http";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { MemorySessionStore } from "../sessions/index.js";
import { type AuthVariables, authMiddleware, socketIsLoopback } from "./auth.js";
import { apiKeysOf, checkServerTools, type ServerConfig } from "./config.js";
import { RequestError, toErrorResponse } from "./errors.js";
import { type BackgroundRunner, InProcessRunner } from "./background.js";
import { compactConversation } from "./compact.js";
import { resolveOnce } from "./resolve-once.js";
import { conversationRoutes } from "./conversation-routes.js";
import { SessionConversationStore } from "./conversations.js";
import type { EventLog } from "./event-log.js";
import type { NumberedEvent } from "./stream-event.js";
import { KeyLimiter, RateLimitError } from "./limits.js";
import { listInputItems } from "./list-items.js";
import { ServerMetrics } from "./metrics.js";
import { parseBody, parseCreateRequest } from "./parse-request.js";
import { CompactRequest } from "./request-schema.js";
import { newId, prepareResponse, type RunDependencies, runResponse } from "./run-response.js";
import { SessionResponseStore } from "./response-store.js";
import { followLog, SseStream } from "./sse.js";

/** What a server's routes share with its WebSocket endpoint (see `attachWebSocket`). */
export interface ServerParts {
  deps: RunDependencies;
  runner: BackgroundRunner;
  apiKeys: string[];
  maxBodyBytes: number | undefined;
}

const PARTS = new WeakMap<object, ServerParts>();

/** The parts of an app made by {@link createServer}, or undefined for any other app. */
export function serverParts(app: object): ServerParts | undefined {
  return PARTS.get(app);
}

const DEFAULT_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * The Open Responses server as a Hono app: `POST /v1/responses` runs Gyre's loop, responses and
 * conversations (`/v1/conversations`) are kept in the session store, `GET /v1/models` and
 * `GET /healthz` tell what is served. Mount it in your own Hono or Node server, or serve it with
 * `gyre serve`. Nothing starts until a request comes.
 */
export function createServer(config: ServerConfig = {}): Hono<{ Variables: AuthVariables }> {
  checkServerTools(config);
  const env = config.env ?? process.env;
  const sessions = config.sessionStore ?? new MemorySessionStore();
  const models = config.models ?? [];
  const onlyListed = config.onlyListedModels ?? models.length > 0;
  const resolve = config.resolveModel ?? resolveOnce(env, config);
  const deps: RunDependencies = {
    sessions,
    responses: new SessionResponseStore(sessions),
    conversations: new SessionConversationStore(sessions),
    resolveModel: async (name) => {
      const served = models.find((model) => model.name === name);
      if (!served && onlyListed)
        throw new RequestError(
          400,
          `The model ${name} is not served here; GET /v1/models lists those that are.`,
          "model_not_found",
          "model",
        );
      return resolve(served?.model ?? name);
    },
    maxTurns: config.maxTurns ?? 10,
    cwd: config.workspace ?? config.cwd ?? process.cwd(),
    metrics: new ServerMetrics(),
    ...(config.mcpAllowedHosts && { mcpAllowedHosts: config.mcpAllowedHosts }),
    ...(config.mcpLookup && { mcpLookup: config.mcpLookup }),
    ...(config.tools?.length && {
      builtin: {
        tools: config.tools,
        allow: config.permissions?.allow ?? [],
        deny: config.permissions?.deny ?? [],
        ...(config.sandbox && { sandbox: config.sandbox }),
      },
    }),
  };
  const runner = new InProcessRunner(deps);
  const limiter = new KeyLimiter(config.limits ?? {}, config.now);
  const keepAliveMs = (config.keepAliveSeconds ?? 15) * 1000;
  const isLoopback = config.isLoopback
    ? (c: { req: { raw: Request } }) => config.isLoopback!(c.req.raw)
    : socketIsLoopback;

  const app = new Hono<{ Variables: AuthVariables }>();
  PARTS.set(app, { deps, runner, apiKeys: apiKeysOf(config, env), maxBodyBytes: config.maxBodyBytes });
  app.onError((error, c) => {
    const { status, body } = toErrorResponse(error);
    if (error instanceof RateLimitError) c.header("retry-after", String(error.retryAfterSeconds));
    return c.json(body, status as 400);
  });
  app.use(countRequests(deps.metrics));
  app.notFound((c) =>
    c.json(toErrorResponse(new RequestError(404, `No route ${c.req.method} ${c.req.path}.`, "not_found")).body, 404),
  );
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  const auth = authMiddleware(apiKeysOf(config, env), isLoopback);
  app.use("/v1/*", auth);
  // Same access as the API: a key when keys are configured, else loopback only.
  app.get("/metrics", auth, async (c) =>
    c.body(await deps.metrics.render(), 200, { "content-type": deps.metrics.contentType }),
  );
  app.use(
    "/v1/*",
    bodyLimit({
      maxSize: config.maxBodyBytes ?? DEFAULT_BODY_LIMIT,
      onError: () => {
        throw new RequestError(413, "The request body is too large.", "request_too_large");
      },
    }),
  );

  app.get("/v1/models", (c) =>
    c.json({
      object: "list",
      data: models.map((model) => ({ id: model.name, object: "model", created: 0, owned_by: "gyre" })),
    }),
  );

  app.post("/v1/responses", async (c) => {
    const body = await jsonBody(c.req.raw);
    const request = parseCreateRequest(body);
    if (request.background && request.store === false)
      throw new RequestError(400, "background responses must be stored (store: true).", "invalid_value", "store");
    // A response holds one of its key's concurrency slots until it ends (a stream: until it closes).
    const release = limiter.acquire(c.get("owner"));
    let prepared;
    try {
      prepared = await prepareResponse(deps, request, c.get("owner"));
      if (request.background) {
        // Runs apart from this request: the client may go away, stream or not.
        await runner.start(prepared, release);
        const log = runner.events(prepared.response.id);
        if (request.stream && log) return followLog(log, -1, keepAliveMs, nodeResponseOf(c)).response();
        return c.json({ ...prepared.response, status: "queued" });
      }
    } catch (error) {
      release();
      throw error;
    }
    const disconnect = new AbortController();
    if (!request.stream) {
      c.req.raw.signal.addEventListener("abort", () => disconnect.abort(), { once: true });
      const response = await runResponse(deps, prepared, () => {}, disconnect.signal).finally(release);
      // The upstream failed: its status as 502/503 with its message (the failed response stays stored).
      if (response.status === "failed" && prepared.failures.last !== undefined) {
        const { status, body } = toErrorResponse(prepared.failures.last);
        return c.json(body, status as 502);
      }
      return c.json(response);
    }
    const sse = new SseStream(() => disconnect.abort(), keepAliveMs, nodeResponseOf(c));
    void runResponse(deps, prepared, (event) => sse.send(event), disconnect.signal)
      .catch((error: unknown) => sse.send({ type: "error", error: toErrorResponse(error).body.error }))
      .finally(() => {
        release();
        sse.close();
      });
    return sse.response();
  });

  app.post("/v1/responses/compact", async (c) => {
    const request = parseBody(CompactRequest, await jsonBody(c.req.raw));
    return c.json(await compactConversation(deps, request, c.get("owner"), c.req.raw.signal));
  });

  app.get("/v1/responses/:id", async (c) => {
    const stored = await owned(deps, c.req.param("id"), c.get("owner"));
    if (c.req.query("stream") !== "true") return c.json(stored.response);
    if (!stored.response.background)
      throw new RequestError(400, "Only background responses can be streamed again.", "invalid_value", "stream");
    const after = Number(c.req.query("starting_after") ?? "-1");
    if (!Number.isInteger(after) || after < -1)
      throw new RequestError(400, "starting_after is a sequence number.", "invalid_value", "starting_after");
    const log: EventLog | undefined = runner.events(stored.response.id);
    const target = nodeResponseOf(c);
    return (log ? followLog(log, after, keepAliveMs, target) : replay(stored.events ?? [], after, target)).response();
  });

  app.post("/v1/responses/:id/cancel", async (c) => {
    const stored = await owned(deps, c.req.param("id"), c.get("owner"));
    if (!stored.response.background)
      throw new RequestError(400, "Only background responses can be cancelled.", "invalid_value", "response_id");
    if (await runner.cancel(stored.response.id))
      return c.json((await owned(deps, stored.response.id, c.get("owner"))).response);
    return c.json(stored.response);
  });

  app.delete("/v1/responses/:id", async (c) => {
    const id = c.req.param("id");
    await owned(deps, id, c.get("owner"));
    await runner.cancel(id); // else a running response would store itself again when it ends
    await deps.responses.delete(id);
    return c.json({ id, object: "response", deleted: true });
  });

  app.get("/v1/responses/:id/input_items", async (c) => {
    const stored = await owned(deps, c.req.param("id"), c.get("owner"));
    return c.json(listInputItems(stored.inputItems, c.req.query()));
  });

  conversationRoutes(app, deps.conversations, jsonBody, newId);

  return app;
}

async function jsonBody(request: Request): Promise<unknown> {
  try {
    return await request.json();
  } catch (error) {
    if (error instanceof RequestError) throw error;
    throw new RequestError(400, "The request body is not valid JSON.", "invalid_json", null, error);
  }
}

/** Stored events after `after`, as a finished stream. */
function replay(events: readonly NumberedEvent[], after: number, target?: ServerResponse): SseStream {
  const sse = new SseStream(() => {}, undefined, target);
  for (const event of events.slice(after + 1)) sse.send(event);
  sse.close();
  return sse;
}

/** The Node response behind a request, when the app runs on `@hono/node-server` (HTTP/1). */
function nodeResponseOf(c: Context): ServerResponse | undefined {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
  return outgoing instanceof ServerResponse ? outgoing : undefined;
}

/** Counts every request by its route pattern (ids stay out of labels) and times it to its headers. */
function countRequests(metrics: ServerMetrics): MiddlewareHandler {
  return async function count(c: Context, next) {
    const started = performance.now();
    await next();
    const route = matchedRoutes(c).findLast((route) => route.method !== "ALL")?.path ?? "unmatched";
    metrics.request(route, c.req.method, c.res.status, (performance.now() - started) / 1000);
  };
}

/** The stored response, if it is the owner's: another key's response does not exist for this one. */
async function owned(deps: RunDependencies, id: string, owner: string) {
  const stored = await deps.responses.get(id);
  if (!stored || stored.owner !== owner)
    throw new RequestError(404, `No response with id '${id}' found.`, "not_found", "response_id");
  return stored;
}
