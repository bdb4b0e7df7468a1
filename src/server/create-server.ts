import { Hono } from "hono";
import type { Context } from "hono";
import { type AuthVariables, authMiddleware, socketIsLoopback } from "./auth.js";
import { InProcessRunner } from "./background.js";
import { QueueRunner } from "./cluster/index.js";
import { apiKeysOf, checkServerTools, type ServerConfig } from "./config.js";
import { conversationRoutes } from "./conversation-routes.js";
import { newId } from "./ids.js";
import { KeyLimiter } from "./limits.js";
import { answerError, answerNotFound, continueTrace, countRequests, limitBody, logRequests } from "./middleware.js";
import { modelList } from "./model-list.js";
import { jsonBody } from "./parse-request.js";
import { responseRoutes } from "./response-routes.js";
import { runDependencies } from "./run-dependencies.js";
import { keepServerParts } from "./server-parts.js";
import { mountUi } from "./ui-routes.js";

/**
 * The Open Responses server as a Hono app: `POST /v1/responses` runs Gyre's loop, responses and
 * conversations (`/v1/conversations`) are kept in the session store, `GET /v1/models` and
 * `GET /healthz` tell what is served, and `/ui` shows each API key its own responses' runs
 * (`gyre ui`'s page; `ui: false` leaves it out). Mount it in your own Hono or Node server, or serve it with
 * `gyre serve`. Nothing starts until a request comes.
 */
export function createServer(config: ServerConfig = {}): Hono<{ Variables: AuthVariables }> {
  checkServerTools(config);
  const env = config.env ?? process.env;
  const deps = runDependencies(config, env);
  const runner = config.queue ? new QueueRunner(deps, config.queue) : new InProcessRunner(deps);
  if (config.queue) deps.metrics.watchQueue(() => config.queue!.depth());
  const apiKeys = apiKeysOf(config, env);
  const app = new Hono<{ Variables: AuthVariables }>();
  app.onError(answerError);
  if (config.logRequest) app.use(logRequests(config.logRequest));
  app.use(countRequests(deps.metrics));
  app.use(continueTrace());
  app.notFound(answerNotFound);
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  const auth = authMiddleware(apiKeys, loopbackCheck(config));
  app.use("/v1/*", auth);
  // Same access as the API: a key when keys are configured, else loopback only.
  app.get("/metrics", auth, async (c) =>
    c.body(await deps.metrics.render(), 200, { "content-type": deps.metrics.contentType }),
  );
  app.use("/v1/*", limitBody(config.maxBodyBytes));
  const models = modelList(config, env);
  app.get("/v1/models", (c) => c.json(models));
  responseRoutes(app, {
    deps,
    runner,
    limiter: new KeyLimiter(config.limits ?? {}, config.now),
    keepAliveMs: (config.keepAliveSeconds ?? 15) * 1000,
  });
  conversationRoutes(app, deps.conversations, jsonBody, newId);
  const ui =
    config.ui === false
      ? undefined
      : mountUi(app, {
          store: deps.sessions,
          apiKeys,
          isLoopback: loopbackCheck(config),
          ...(config.now && { now: config.now }),
        });
  keepServerParts(app, { deps, runner, apiKeys, maxBodyBytes: config.maxBodyBytes, ui });
  return app;
}

/** Whether a request without a key comes from this machine: the config's test, else the socket's address. */
function loopbackCheck(config: ServerConfig): (c: Context) => boolean {
  const isLoopback = config.isLoopback;
  return isLoopback ? (c) => isLoopback(c.req.raw) : socketIsLoopback;
}
