import type { z } from "zod";
import { GyreError } from "../errors/index.js";
import { BUILTIN_PROVIDERS, CostTracker, type Model, resolveModel, type ResolveModelOptions } from "../model/index.js";
import type { LoadedSettings } from "../settings/index.js";
import {
  type PageAnswerer,
  searchBackend,
  WebFetchSettings,
  type WebFetchToolOptions,
  WebSearchSettings,
  type WebSearchToolOptions,
} from "../tools/builtin/index.js";
import type { QueryOptions } from "./options.js";
import { providerSearchBackend } from "./provider-search.js";

/**
 * WebFetch's options for a run: the `webFetch` option over the settings files' `webFetch`
 * key, and the small model that answers about a page (resolved at the first fetch), whose
 * tokens and cost count in the run's `costs` as any model call of the run does.
 */
export function webFetchOptions(
  options: QueryOptions,
  settings: LoadedSettings,
  model: Model,
  resolveOptions: ResolveModelOptions,
  costs: CostTracker,
): WebFetchToolOptions {
  const merged = webFetchSettings(options, settings);
  const spec = smallModelSpec(merged, model, options);
  if (spec === undefined) return { settings: merged };
  let small: Promise<Model> | undefined;
  const answer: PageAnswerer = async ({ url, prompt, content, signal }) => {
    small ??= resolveModel(spec, resolveOptions);
    return answerAbout(await small, costs, { url, prompt, content, signal });
  };
  return { settings: merged, answer };
}

/** WebFetch's settings: the `webFetch` option over the settings files' `webFetch` key. */
export function webFetchSettings(options: Pick<QueryOptions, "webFetch">, settings: LoadedSettings): WebFetchSettings {
  return { ...parseSettings(settings.merged.webFetch, "the webFetch key of the settings files"), ...options.webFetch };
}

/**
 * WebSearch's options for a run: the search API of the `webSearch` option, else of the settings
 * files' `webSearch` key. Without one (or with `backend: "provider"`), the provider's own search:
 * it stands in for the tool where the run lets it unasked (the loop decides each turn), and a call
 * that was asked about searches through a request of its own to the model's provider. A model
 * whose provider has no search fails such a call saying how to configure a backend.
 */
export function webSearchOptions(
  options: Pick<QueryOptions, "webSearch" | "env">,
  settings: LoadedSettings,
  model?: Model,
  costs?: CostTracker,
): WebSearchToolOptions {
  const chosen =
    options.webSearch ??
    (settings.merged.webSearch === undefined
      ? undefined
      : parseWith(WebSearchSettings, settings.merged.webSearch, "the webSearch key of the settings files"));
  if (chosen && chosen.backend !== "provider") {
    const http = { ...chosen, backend: chosen.backend };
    return { backend: searchBackend(http, (name) => options.env?.[name] ?? settings.env[name] ?? process.env[name]) };
  }
  const serverSearch = {
    ...(chosen?.allowedDomains && { allowedDomains: chosen.allowedDomains }),
    ...(chosen?.blockedDomains && { blockedDomains: chosen.blockedDomains }),
    ...(chosen?.maxUses !== undefined && { maxUses: chosen.maxUses }),
  };
  // Gemini's Google Search takes no domain filter: settings that restrict domains need a backend.
  const unfiltered = model?.api === "google" && (serverSearch.allowedDomains ?? serverSearch.blockedDomains);
  if (model?.searchesWeb && !unfiltered) {
    return { serverSearch, backend: providerSearchBackend(model, serverSearch, costs ?? new CostTracker()) };
  }
  if (unfiltered) {
    return {
      unavailable:
        "WebSearch is not available: the webSearch settings restrict domains, and Gemini's Google Search " +
        "cannot. Remove allowedDomains / blockedDomains, or set a search backend: " +
        'webSearch: { backend: "brave" | "tavily" | "searxng", ... }.',
    };
  }
  const why = chosen
    ? 'webSearch.backend is "provider"'
    : `no search backend is configured${model ? ` for this run (model ${model.id})` : ""}`;
  return {
    serverSearch,
    unavailable:
      `WebSearch is not available: ${why}, and ` +
      (model ? "this model's provider has no search of its own" : "no model's own search is at hand here") +
      " (Anthropic's web search tool, OpenAI Responses' web_search and Gemini's Google Search are used where they are). Set " +
      'webSearch: { backend: "brave" | "tavily" | "searxng", ... } in the options or a settings file ' +
      "(Brave and Tavily take an API key from BRAVE_API_KEY / TAVILY_API_KEY, SearXNG a url).",
  };
}

function parseSettings(value: unknown, where: string): WebFetchSettings {
  if (value === undefined) return {};
  return parseWith(WebFetchSettings, value, where);
}

function parseWith<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new GyreError("config_error", `${where} is not valid: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
}

/** `smallModel` as given (a bare id is of the run's provider), else the run's provider's own. */
function smallModelSpec(settings: WebFetchSettings, model: Model, options: QueryOptions): string | undefined {
  if (settings.smallModel === false) return undefined;
  if (settings.smallModel !== undefined) {
    return settings.smallModel.includes("/") ? settings.smallModel : `${model.provider}/${settings.smallModel}`;
  }
  const provider = options.providers?.[model.provider] ?? BUILTIN_PROVIDERS[model.provider];
  return provider?.smallModel === undefined ? undefined : `${model.provider}/${provider.smallModel}`;
}

/** The small model's instructions when it answers about a page. */
export const SMALL_MODEL_SYSTEM = "You answer a question about one web page from its content.";

async function answerAbout(
  model: Model,
  costs: CostTracker,
  request: { url: string; prompt: string; content: string; signal: AbortSignal },
): Promise<string> {
  const text =
    `Web page content (${request.url}):\n---\n${request.content}\n---\n\n${request.prompt}\n\n` +
    "Answer from the content above only, briefly. Quote exactly only what must be exact (code, " +
    "commands, figures), in short quotes; say so when the page does not answer.";
  const stream = model.stream({
    system: SMALL_MODEL_SYSTEM,
    history: [{ role: "user", content: text }],
    tools: [],
    signal: request.signal,
  });
  let step = await stream.next();
  while (!step.done) step = await stream.next();
  costs.add(model.id, step.value.message.usage, model.info);
  const answer = step.value.message.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("")
    .trim();
  return answer === "" ? "The small model gave no answer about the page." : answer;
}
