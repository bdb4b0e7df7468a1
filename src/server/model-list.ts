import { type Env, servableModels } from "../model/index.js";
import type { ServerConfig } from "./config.js";

/** One entry of `GET /v1/models`, as OpenAI's model object. */
export interface ListedModel {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
}

/**
 * `GET /v1/models`: what a client may send as `model`. The config's public names when it has
 * `models`; without (or with `onlyListedModels: false`), also every model the configured
 * providers can serve with the keys the server has (the pricing table's, see `servableModels`).
 */
export function modelList(config: ServerConfig, env: Env): { object: "list"; data: ListedModel[] } {
  const named = config.models ?? [];
  const onlyListed = config.onlyListedModels ?? named.length > 0;
  const data: ListedModel[] = named.map((model) => listed(model.name, "gyre"));
  if (!onlyListed) {
    const servable = servableModels({
      env,
      ...(config.providers && { providers: config.providers }),
      ...(config.pricing && { pricing: config.pricing }),
    });
    const seen = new Set(data.map((model) => model.id));
    for (const model of servable) if (!seen.has(model.id)) data.push(listed(model.id, model.provider));
  }
  return { object: "list", data };
}

function listed(id: string, ownedBy: string): ListedModel {
  return { id, object: "model", created: 0, owned_by: ownedBy };
}
