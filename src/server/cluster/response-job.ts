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
}

const ResponseJobSchema = z.object({
  owner: z.string(),
  request: z.unknown(),
  inputItems: z.array(z.looseObject({ id: z.string(), type: z.string() })),
  createdAt: z.number(),
  known: z.array(z.string()).optional(),
});

/** The job of a prepared response. */
export function responseJob(prepared: PreparedResponse): ResponseJob {
  return {
    owner: prepared.owner,
    request: prepared.request,
    inputItems: prepared.inputItems,
    createdAt: prepared.response.created_at * 1000,
    ...(prepared.inConversation && { known: [...prepared.inConversation.known] }),
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
  return { ...job.data, request: request.data, inputItems: job.data.inputItems as StoredInputItem[] };
}
