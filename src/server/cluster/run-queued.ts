import { context as otelContext } from "@opentelemetry/api";
import { contextFromTraceparent } from "../../telemetry/index.js";
import { errorMessage, GyreError, isGyreError } from "../../errors/index.js";
import type { SDKMessage } from "../../protocol/index.js";
import { toErrorResponse } from "../errors.js";
import { earlierItems, planResponse, type PreparedResponse } from "../prepare-response.js";
import type { QueuedRun, ResponseQueue } from "../queue/index.js";
import { initialResponse, type ResponseObject } from "../response-object.js";
import type { RunDependencies } from "../run-dependencies.js";
import { hasEnded, isTerminalEvent, terminalEvent } from "../response-status.js";
import { runResponse } from "../run-response.js";
import type { Takeover } from "../takeover.js";
import { EventSink } from "./event-sink.js";
import { parseResponseJob, type ResponseJob } from "./response-job.js";

/**
 * Runs one queued response on this worker, from its job: planned again from the job and the
 * store, its events numbered after those already on its stream, its run going on from its
 * session when a lost worker left it (`continueRun`). However it ends, its stream ends with
 * one terminal event (or an `error` when there is no response to end) and is closed.
 */
export async function runQueuedResponse(deps: RunDependencies, queue: ResponseQueue, run: QueuedRun): Promise<void> {
  const before = await queue.events.read(run.responseId);
  // Its stream ended: a worker finished it and died before the queue heard.
  if (before.ended) return;
  const sink = new EventSink(queue.events, run.responseId, before.events);
  try {
    await runJob(deps, queue, run, sink);
  } finally {
    await sink.end();
  }
}

async function runJob(deps: RunDependencies, queue: ResponseQueue, run: QueuedRun, sink: EventSink): Promise<void> {
  const id = run.responseId;
  let job: ResponseJob;
  try {
    job = parseResponseJob(run.data);
  } catch (error) {
    return failStored(deps, id, error, sink);
  }
  const stored = job.request.store === false ? undefined : await deps.responses.get(id);
  if (job.request.store !== false) {
    // Deleted before it ran (a delete cancels it too): nothing to run, nobody to answer.
    if (!stored) return void sink.emit(errorEvent(`The response ${id} is no longer stored.`));
    // Its run ended and was stored; only its stream was left open.
    if (hasEnded(stored.response)) return endStream(deps, stored.response, sink);
  }
  deps.metrics.queueStarted(run.waitedMs, run.startsBefore > 0);
  const response = initialResponse(id, job.request, job.createdAt);
  if (run.startsBefore > 0 && job.request.store === false)
    return fail(
      deps,
      response,
      "The response's worker was lost, and a response with store: false is not kept: it cannot be taken over.",
      sink,
    );
  let prepared: PreparedResponse;
  try {
    prepared = await plan(deps, job, response);
  } catch (error) {
    return fail(deps, response, errorMessage(error), sink, error);
  }
  // A run the queue thought lost (its worker out of reach of Redis a while) may still be going:
  // its session stays locked until it ends, and this start waits for that.
  if (run.startsBefore > 0 && (await untilSessionFree(deps, id, run.signal)) === "ended") {
    const ended = await deps.responses.get(id);
    if (ended) await keepEvents(deps, ended.response, sink);
    return;
  }
  const takeover = run.startsBefore > 0 ? await takeoverOf(deps, prepared, sink) : undefined;
  if (takeover?.continueRun) deps.metrics.queueTakeover();
  const signal = (await queue.wasCancelled(id)) ? AbortSignal.abort() : run.signal;
  // The run continues the trace of the request that queued it (its client's span).
  const parent = contextFromTraceparent(job.trace?.traceparent, job.trace?.tracestate, otelContext.active());
  const ended = await otelContext.with(parent, () =>
    runResponse(deps, prepared, (event) => sink.emit(event), signal, {
      stored: response.store,
      ...(takeover && { takeover }),
    }),
  );
  if (ended.status === "failed" && prepared.failures.last !== undefined)
    await queue.events.keepFailure(id, toErrorResponse(prepared.failures.last));
  await keepEvents(deps, ended, sink);
}

/**
 * A response the queue gave up on (its workers kept dying with it, or its run threw): failed
 * with why, unless it ended meanwhile, and its stream ended with that.
 */
export async function giveUpResponse(
  deps: RunDependencies,
  queue: ResponseQueue,
  responseId: string,
  reason: string,
): Promise<void> {
  const stored = await deps.responses.get(responseId);
  if (stored && hasEnded(stored.response)) return;
  const before = await queue.events.read(responseId);
  if (before.ended) return;
  const sink = new EventSink(queue.events, responseId, before.events);
  try {
    if (!stored) return void sink.emit(errorEvent(reason));
    await fail(
      deps,
      stored.response,
      `The response was given up: ${reason}`,
      sink,
      new GyreError("invalid_job", reason),
    );
  } finally {
    await sink.end();
  }
}

/** The run of a job, planned as the instance that took the request planned it. */
async function plan(deps: RunDependencies, job: ResponseJob, response: ResponseObject): Promise<PreparedResponse> {
  const known = job.known ? new Set(job.known) : undefined;
  const { earlier, inConversation } = await earlierItems(deps, job.request, job.owner, known);
  return planResponse(deps, {
    owner: job.owner,
    request: job.request,
    response,
    inputItems: job.inputItems,
    earlier,
    inConversation,
  });
}

/**
 * Where a lost worker left the run: its session goes on when it holds a turn past the seeded
 * conversation (the run's prompt at least), or ends the response with the run's result when
 * one follows its last turn (the worker died before storing the response); one the worker
 * seeded and never added a turn to is seeded again, from nothing.
 */
async function takeoverOf(deps: RunDependencies, prepared: PreparedResponse, sink: EventSink): Promise<Takeover> {
  const sessionId = `${prepared.response.id}-run`;
  const events = [...sink.events];
  if (!(await deps.sessions.getSession(sessionId))) return { events, continueRun: false, committed: [] };
  const messages = await deps.sessions.getSessionMessages(sessionId);
  const isTurn = (message: SDKMessage) =>
    (message.type === "user" || message.type === "assistant") && message.parent_tool_use_id === null;
  const turns = messages.filter(isTurn);
  const seeded = prepared.conversation.seed.length;
  if (turns.length > seeded) {
    const committed = messages.slice(messages.indexOf(turns[seeded]!));
    const last = committed.findLast((message) => message.type === "result" || isTurn(message));
    return { events, continueRun: true, committed, ...(last?.type === "result" && { ended: last }) };
  }
  await deps.sessions.deleteSession(sessionId);
  return { events, continueRun: false, committed: [] };
}

/** How often a takeover looks again whether the run it takes over still holds its session. */
const BUSY_POLL_MS = 500;

/**
 * Waits until no process runs the response's session (its lock is free: `free`), or the
 * response has ended meanwhile (`ended`: the run the queue thought lost finished it).
 */
async function untilSessionFree(deps: RunDependencies, id: string, signal: AbortSignal): Promise<"free" | "ended"> {
  const sessionId = `${id}-run`;
  for (;;) {
    if (!(await deps.sessions.getSession(sessionId))) return "free";
    try {
      await (await deps.sessions.acquireLock(sessionId, "a takeover's check")).release();
      return "free";
    } catch (error) {
      if (!isGyreError(error) || error.code !== "session_busy") throw error;
    }
    const stored = await deps.responses.get(id);
    if (stored && hasEnded(stored.response)) return "ended";
    if (signal.aborted) return "free";
    await new Promise((resolve) => setTimeout(resolve, BUSY_POLL_MS));
  }
}

/**
 * The stream of a response stored as ended, which its worker left open: it gets the last event
 * it lacks (the worker died between storing the response and sending it), and is kept.
 */
async function endStream(deps: RunDependencies, response: ResponseObject, sink: EventSink): Promise<void> {
  if (!sink.events.some((event) => isTerminalEvent(event.type)))
    sink.emit({ type: terminalEvent(response), response: structuredClone(response) });
  await keepEvents(deps, response, sink);
}

/** A background response's events stay with it in the store, for a late reader to replay. */
async function keepEvents(deps: RunDependencies, response: ResponseObject, sink: EventSink): Promise<void> {
  if (!response.store || !response.background) return;
  if ((await deps.responses.events(response.id, -1)).length > 0) return;
  await deps.responses.appendEvents(response.id, sink.events);
}

/** A response that could not run (its job, its model, its tools): failed, with why, stored and streamed. */
async function fail(
  deps: RunDependencies,
  response: ResponseObject,
  message: string,
  sink: EventSink,
  error?: unknown,
): Promise<void> {
  response.status = "failed";
  response.completed_at = Math.floor(Date.now() / 1000);
  const code = error === undefined ? "server_error" : (toErrorResponse(error).body.error.code ?? "server_error");
  response.error = { code, message };
  if (sink.events.length === 0) sink.emit({ type: "response.created", response: structuredClone(response) });
  if (response.store) {
    const stored = await deps.responses.get(response.id);
    if (stored) await deps.responses.save({ ...stored, response });
  }
  sink.emit({ type: "response.failed", response: structuredClone(response) });
  await keepEvents(deps, response, sink);
}

/** A job that does not parse: its stored response (when there is one) failed, and its stream told why. */
async function failStored(deps: RunDependencies, id: string, error: unknown, sink: EventSink): Promise<void> {
  const stored = await deps.responses.get(id);
  if (!stored) return void sink.emit(errorEvent(errorMessage(error)));
  await fail(deps, stored.response, errorMessage(error), sink, error);
}

function errorEvent(message: string) {
  return { type: "error", error: { type: "server_error", code: "server_error", message, param: null } };
}
