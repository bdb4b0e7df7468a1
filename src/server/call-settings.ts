import type { CallSettings, Model } from "../model/index.js";
import type { CreateResponseRequest } from "./request-schema.js";

/** The request's sampling, tool choice and `text.format` as settings passed to the upstream model. */
export function callSettings(request: CreateResponseRequest, toolChoice: CallSettings["toolChoice"]): CallSettings {
  const format = request.text?.format;
  return {
    ...(toolChoice && { toolChoice }),
    ...(request.temperature != null && { temperature: request.temperature }),
    ...(request.top_p != null && { topP: request.top_p }),
    ...(format?.type === "json_object" && { responseFormat: { type: "json" } }),
    ...(format?.type === "json_schema" && {
      responseFormat: {
        type: "json",
        schema: format.schema,
        name: format.name,
        ...(format.description != null && { description: format.description }),
      },
    }),
  };
}

/** The last error a model call failed with (the loop keeps only its text in the result). */
export interface ModelFailures {
  last?: unknown;
}

/**
 * The model with `settings` added to every request the loop sends through it; the errors its
 * calls fail with are kept in `failures`, so the server can answer with the upstream's status.
 */
export function withSettings(model: Model, settings: CallSettings, failures: ModelFailures = {}): Model {
  return {
    id: model.id,
    provider: model.provider,
    modelId: model.modelId,
    info: model.info,
    api: model.api,
    ...(model.searchesWeb !== undefined && { searchesWeb: model.searchesWeb }),
    settings: { ...model.settings, ...settings },
    stream: (request) => watch(model.stream({ ...request, settings: { ...request.settings, ...settings } }), failures),
  };
}

async function* watch(stream: ReturnType<Model["stream"]>, failures: ModelFailures): ReturnType<Model["stream"]> {
  try {
    return yield* stream;
  } catch (error) {
    failures.last = error;
    throw error;
  }
}
