import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { resolveModel } from "../model/index.js";
import { MemorySessionStore } from "../sessions/index.js";
import { type AuthVariables, authMiddleware, socketIsLoopback } from "./auth.js";
import { apiKeysOf, checkServerTools, type ServerConfig } from "./config.js";
import { RequestError, toErrorResponse } from "./errors.js";
import { listInputItems } from "./list-items.js";
import { parseCreateRequest } from "./parse-request.js";
import { prepareResponse, type RunDependencies, runResponse } from "./run-response.js";
import { SessionResponseStore } from "./response-store.js";
import { SseStream } from "./sse.js";

const DEFAULT_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * The Open Responses server as a Hono app: `POST /v1/responses` runs Gyre's loop, responses are
 * kept in the session store, `GET /v1/models` and `GET /healthz` tell what is served. Mount it
 * in your own Hono or Node server, or serve it with `gyre serve`. Nothing starts until a
 * request comes.
 */
export function createServer(config: ServerConfig = {}): Hono<{ Variables: AuthVariables }> {
  checkServerTools(config);
  const env = config.env ?? process.env;
  const sessions = config.sessionStore ?? new MemorySessionStore();
  const models = config.models ?? [];
  const onlyListed = config.onlyListedModels ?? models.length > 0;
  const resolve =
    config.resolveModel ??
    ((spec: string) =>
      resolveModel(spec, {
        env,
        ...(config.providers && { providers: config.providers }),
        ...(config.pricing && { pricing: config.pricing }),
      }));
  const deps: RunDependencies = {
    sessions,
    responses: new SessionResponseStore(sessions),
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
    ...(config.mcpAllowedHosts && { mcpAllowedHosts: config.mcpAllowedHosts }),
    ...(config.tools?.length && {
      builtin: {
        tools: config.tools,
        allow: config.permissions?.allow ?? [],
        deny: config.permissions?.deny ?? [],
        ...(config.sandbox && { sandbox: config.sandbox }),
      },
    }),
  };
  const keepAliveMs = (config.keepAliveSeconds ?? 15) * 1000;
  const isLoopback = config.isLoopback
    ? (c: { req: { raw: Request } }) => config.isLoopback!(c.req.raw)
    : socketIsLoopback;

  const app = new Hono<{ Variables: AuthVariables }>();
  app.onError((error, c) => {
    const { status, body } = toErrorResponse(error);
    return c.json(body, status as 400);
  });
  app.notFound((c) =>
    c.json(toErrorResponse(new RequestError(404, `No route ${c.req.method} ${c.req.path}.`, "not_found")).body, 404),
  );
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.use("/v1/*", authMiddleware(apiKeysOf(config, env), isLoopback));
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
    let body: unknown;
    try {
      body = await c.req.json();
    } catch (error) {
      if (error instanceof RequestError) throw error;
      throw new RequestError(400, "The request body is not valid JSON.", "invalid_json", null, error);
    }
    const request = parseCreateRequest(body);
    if (request.background)
      throw new RequestError(400, "background responses are not supported yet.", "unsupported_parameter", "background");
    const prepared = await prepareResponse(deps, request, c.get("owner"));
    const disconnect = new AbortController();
    if (!request.stream) {
      c.req.raw.signal.addEventListener("abort", () => disconnect.abort(), { once: true });
      const response = await runResponse(deps, prepared, () => {}, disconnect.signal);
      // The upstream failed: its status as 502/503 with its message (the failed response stays stored).
      if (response.status === "failed" && prepared.failures.last !== undefined) {
        const { status, body } = toErrorResponse(prepared.failures.last);
        return c.json(body, status as 502);
      }
      return c.json(response);
    }
    const sse = new SseStream(() => disconnect.abort(), keepAliveMs);
    void runResponse(deps, prepared, (event) => sse.send(event), disconnect.signal)
      .catch((error: unknown) => sse.send({ type: "error", error: toErrorResponse(error).body.error }))
      .finally(() => sse.close());
    return new Response(sse.body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        connection: "keep-alive",
      },
    });
  });

  app.get("/v1/responses/:id", async (c) => c.json((await owned(deps, c.req.param("id"), c.get("owner"))).response));

  app.delete("/v1/responses/:id", async (c) => {
    const id = c.req.param("id");
    await owned(deps, id, c.get("owner"));
    await deps.responses.delete(id);
    return c.json({ id, object: "response", deleted: true });
  });

  app.get("/v1/responses/:id/input_items", async (c) => {
    const stored = await owned(deps, c.req.param("id"), c.get("owner"));
    return c.json(listInputItems(stored.inputItems, c.req.query()));
  });

  return app;
}

/** The stored response, if it is the owner's: another key's response does not exist for this one. */
async function owned(deps: RunDependencies, id: string, owner: string) {
  const stored = await deps.responses.get(id);
  if (!stored || stored.owner !== owner)
    throw new RequestError(404, `No response with id '${id}' found.`, "not_found", "response_id");
  return stored;
}
