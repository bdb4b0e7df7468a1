import type { Context, Hono } from "hono";
import type { AuthVariables } from "./auth.js";
import type { BackgroundRunner, EventListener } from "./background.js";
import { compactConversation } from "./compact.js";
import { RequestError, toErrorResponse } from "./errors.js";
import type { KeyLimiter } from "./limits.js";
import { listInputItems } from "./list-items.js";
import { noteResponseId } from "./middleware.js";
import { jsonBody, parseBody, parseCreateRequest } from "./parse-request.js";
import { type PreparedResponse, prepareResponse } from "./prepare-response.js";
import { CompactRequest } from "./request-schema.js";
import type { StoredResponse } from "./response-store.js";
import type { RunDependencies } from "./run-dependencies.js";
import { runResponse } from "./run-response.js";
import type { ResponseObject } from "./response-object.js";
import { followEvents, nodeResponseOf, replay, SseStream } from "./sse.js";
import type { StreamEventBody } from "./stream-event.js";

/** What the response routes work with. */
export interface ResponseRouteParts {
  deps: RunDependencies;
  runner: BackgroundRunner;
  /** Each key's concurrency slots and request rate. */
  limiter: KeyLimiter;
  /** How long a stream may stay silent before a keep-alive comment. */
  keepAliveMs: number;
}

type RouteContext = Context<{ Variables: AuthVariables }>;

/**
 * The Responses API: `POST /v1/responses` runs a response (to one JSON answer, as a stream, or
 * in the background), `/v1/responses/compact` compacts a conversation, and a stored response
 * can be read, streamed again, cancelled, deleted and its input items listed. Each API key
 * sees only its own responses; another key's is a 404.
 */
export function responseRoutes(app: Hono<{ Variables: AuthVariables }>, parts: ResponseRouteParts): void {
  app.post("/v1/responses", (c) => createResponse(c, parts));
  app.post("/v1/responses/compact", async (c) => {
    const request = parseBody(CompactRequest, await jsonBody(c.req.raw));
    return c.json(await compactConversation(parts.deps, request, c.get("owner"), c.req.raw.signal));
  });
  app.get("/v1/responses/:id", (c) => getResponse(c, c.req.param("id"), parts));
  app.post("/v1/responses/:id/cancel", (c) => cancelResponse(c, c.req.param("id"), parts));
  app.delete("/v1/responses/:id", (c) => deleteResponse(c, c.req.param("id"), parts));
  app.get("/v1/responses/:id/input_items", async (c) => {
    const stored = await owned(parts.deps, c.req.param("id"), c.get("owner"));
    return c.json(listInputItems(stored.inputItems, c.req.query()));
  });
}

/** `POST /v1/responses`: checks and prepares the request, then runs it in the background, as a stream or whole. */
async function createResponse(c: RouteContext, parts: ResponseRouteParts): Promise<Response> {
  const request = parseCreateRequest(await jsonBody(c.req.raw));
  if (request.background && request.store === false)
    throw new RequestError(400, "background responses must be stored (store: true).", "invalid_value", "store");
  // A response holds one of its key's concurrency slots until it ends (a stream: until it closes).
  const release = parts.limiter.acquire(c.get("owner"));
  let prepared: PreparedResponse;
  try {
    prepared = await prepareResponse(parts.deps, request, c.get("owner"));
    noteResponseId(c, prepared.response.id);
    if (request.background) return await startInBackground(c, parts, prepared, release);
  } catch (error) {
    release();
    throw error;
  }
  return request.stream ? answerStream(c, parts, prepared, release) : answerWhole(c, parts, prepared, release);
}

/** Runs a response that is not a background one: through the runner when it runs them (a queue's workers), else here. */
function runHere(
  parts: ResponseRouteParts,
  prepared: PreparedResponse,
  emit: (event: StreamEventBody) => void,
  signal: AbortSignal,
): Promise<ResponseObject> {
  if (parts.runner.run) return parts.runner.run(prepared, emit, signal);
  return runResponse(parts.deps, prepared, emit, signal);
}

/** Runs apart from this request: the client may go away, stream or not. */
async function startInBackground(
  c: RouteContext,
  parts: ResponseRouteParts,
  prepared: PreparedResponse,
  release: () => void,
): Promise<Response> {
  await parts.runner.start(prepared, release);
  if (prepared.request.stream) {
    const follow = (listener: EventListener) => parts.runner.follow(prepared.response.id, -1, listener);
    const sse = await followEvents(follow, parts.keepAliveMs, nodeResponseOf(c));
    if (sse) return sse.response();
  }
  return c.json({ ...prepared.response, status: "queued" });
}

/** The finished response as one JSON answer; the client going away cancels the run. */
async function answerWhole(
  c: RouteContext,
  parts: ResponseRouteParts,
  prepared: PreparedResponse,
  release: () => void,
): Promise<Response> {
  const disconnect = new AbortController();
  c.req.raw.signal.addEventListener("abort", () => disconnect.abort(), { once: true });
  const response = await runHere(parts, prepared, () => {}, disconnect.signal).finally(release);
  // The upstream failed: its status as 502/503 with its message (the failed response stays stored).
  if (response.status === "failed" && prepared.failures.last !== undefined) {
    const { status, body } = toErrorResponse(prepared.failures.last);
    return c.json(body, status as 502);
  }
  return c.json(response);
}

/** The response's events as the run produces them (SSE); the client going away cancels the run. */
function answerStream(
  c: RouteContext,
  parts: ResponseRouteParts,
  prepared: PreparedResponse,
  release: () => void,
): Response {
  const disconnect = new AbortController();
  const sse = new SseStream(() => disconnect.abort(), parts.keepAliveMs, nodeResponseOf(c));
  void runHere(parts, prepared, (event) => sse.send(event), disconnect.signal)
    .catch((error: unknown) => sse.send({ type: "error", error: toErrorResponse(error).body.error }))
    .finally(() => {
      release();
      sse.close();
    });
  return sse.response();
}

/** `GET /v1/responses/:id`: the stored response, or with `stream=true` a background response's events again. */
async function getResponse(c: RouteContext, id: string, parts: ResponseRouteParts): Promise<Response> {
  const stored = await owned(parts.deps, id, c.get("owner"));
  if (c.req.query("stream") !== "true") return c.json(stored.response);
  if (!stored.response.background)
    throw new RequestError(400, "Only background responses can be streamed again.", "invalid_value", "stream");
  const after = Number(c.req.query("starting_after") ?? "-1");
  if (!Number.isInteger(after) || after < -1)
    throw new RequestError(400, "starting_after is a sequence number.", "invalid_value", "starting_after");
  // A response running (or queued) is followed live; one that ended is replayed from its stored events.
  const target = nodeResponseOf(c);
  const follow = (listener: EventListener) => parts.runner.follow(stored.response.id, after, listener);
  const live = await followEvents(follow, parts.keepAliveMs, target);
  if (live) return live.response();
  return replay(await parts.deps.responses.events(stored.response.id, after), target).response();
}

async function cancelResponse(c: RouteContext, id: string, parts: ResponseRouteParts): Promise<Response> {
  const stored = await owned(parts.deps, id, c.get("owner"));
  if (!stored.response.background)
    throw new RequestError(400, "Only background responses can be cancelled.", "invalid_value", "response_id");
  if (await parts.runner.cancel(stored.response.id))
    return c.json((await owned(parts.deps, stored.response.id, c.get("owner"))).response);
  return c.json(stored.response);
}

async function deleteResponse(c: RouteContext, id: string, parts: ResponseRouteParts): Promise<Response> {
  await owned(parts.deps, id, c.get("owner"));
  await parts.runner.cancel(id); // else a running response would store itself again when it ends
  await parts.deps.responses.delete(id);
  return c.json({ id, object: "response", deleted: true });
}

/** The stored response, if it is the owner's: another key's response does not exist for this one. */
async function owned(deps: RunDependencies, id: string, owner: string): Promise<StoredResponse> {
  const stored = await deps.responses.get(id);
  if (!stored || stored.owner !== owner)
    throw new RequestError(404, `No response with id '${id}' found.`, "not_found", "response_id");
  return stored;
}
