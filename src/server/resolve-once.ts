import { type Env, type Model, resolveModel } from "../model/index.js";
import type { ServerConfig } from "./config.js";

/**
 * Resolves each model spec once: a model is stateless, and building its provider (and
 * looking up its pricing) on every request is CPU a busy server spends on every response.
 * A spec that fails (a missing key) is not kept, so the next request tries again. Without a
 * config a client may name any model, so only the most recently used few are kept.
 */
const KEPT_MODELS = 64;

export function resolveOnce(
  env: Env,
  config: Pick<ServerConfig, "providers" | "pricing" | "fetch">,
): (spec: string) => Promise<Model> {
  const resolved = new Map<string, Promise<Model>>();
  return (spec) => {
    let model = resolved.get(spec);
    if (model) {
      resolved.delete(spec); // most recently used last
      resolved.set(spec, model);
    } else {
      model = resolveModel(spec, {
        env,
        ...(config.providers && { providers: config.providers }),
        ...(config.pricing && { pricing: config.pricing }),
        ...(config.fetch && { fetch: config.fetch }),
      });
      resolved.set(spec, model);
      if (resolved.size > KEPT_MODELS) resolved.delete(resolved.keys().next().value as string);
      const kept = model;
      model.catch(() => {
        if (resolved.get(spec) === kept) resolved.delete(spec);
      });
    }
    return model;
  };
}
