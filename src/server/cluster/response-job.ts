import { context as otelContext } from "@opentelemetry/api";
import { traceparentOf } from "../../telemetry/index.js";
import { z } from "zod";
import { GyreError } from "../../errors/index.js";
import type { PreparedResponse } from "../prepare-response.js";
import { CreateResponseRequest } from "../request-schema.js";
import type { StoredInputItem } from "../response-object.js";

/**
 * What a queued response's job carries: enough for any worker to plan its run again without
 * the instance that took the request (its ids were given there: the response's, its input
 * items'). A `store: false` response is in no store, so the job is all there is of it.
 */
export interface ResponseJob {
  owner: string;
  request: CreateResponseRequest;
  inputItems: StoredInputItem[];
  /** When the response was created (ms since the epoch). */
  createdAt: number;
  /** Its conversation's items when it was created: later ones belong to later responses. */
  known?: string[];
  /** The W3C trace context the request came in (its client's span): the worker's run continues it. */
  trace?: { traceparent: string; tracestate?: string };
}

const ResponseJobSchema = z.object({
  owner: z.string(),
  request: z.unknown(),
  inputItems: z.array(z.looseObject({ id: z.string(), type: z.string() })),
  createdAt: z.number(),
  known: z.array(z.string()).optional(),
  trace: z.object({ traceparent: z.string(), tracestate: z.string().optional() }).optional(),
});

/** The job of a prepared response, made in its request's trace context (see `continueTrace`). */
export function responseJob(prepared: PreparedResponse): ResponseJob {
  const trace = traceparentOf(otelContext.active());
  return {
    owner: prepared.owner,
    request: prepared.request,
    inputItems: prepared.inputItems,
    createdAt: prepared.response.created_at * 1000,
    ...(prepared.inConversation && { known: [...prepared.inConversation.known] }),
    ...(trace && { trace }),
  };
}

/** A job's data checked (`invalid_job` saying what is wrong: another version of Gyre may have queued it). */
export function parseResponseJob(data: unknown): ResponseJob {
  const job = ResponseJobSchema.safeParse(data);
  if (!job.success)
    throw new GyreError("invalid_job", `The queued job does not parse: ${job.error.issues[0]?.message}`);
  const request = CreateResponseRequest.safeParse(job.data.request);
  if (!request.success)
    throw new GyreError("invalid_job", `The queued job's request does not parse: ${request.error.issues[0]?.message}`);
  const { trace, ...rest } = job.data;
  return {
    ...rest,
    request: request.data,
    inputItems: job.data.inputItems as StoredInputItem[],
    ...(trace && {
      trace: {
        traceparent: trace.traceparent,
        ...(trace.tracestate !== undefined && { tracestate: trace.tracestate }),
      },
    }),
  };
}
