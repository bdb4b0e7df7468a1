import { z } from "zod";
import { LATEST_HAIKU } from "./pricing.js";

/**
 * How to reach a provider. `openai-compatible` covers Ollama, vLLM, llama.cpp's server,
 * LM Studio, the hosted services of the presets below and any other endpoint that speaks
 * Chat Completions. `google` is the Gemini API; `azure` is Azure OpenAI, whose model ids
 * are deployment names.
 */
export const ProviderConfig = z.object({
  type: z.enum(["anthropic", "openai", "openai-compatible", "google", "azure"]),
  /** For `openai` and `azure`: the Responses API (default) or Chat Completions. */
  api: z.enum(["responses", "chat"]).optional(),
  baseURL: z.string().optional(),
  /** Environment variable that holds the base URL (used when `baseURL` is not set). */
  baseURLEnv: z.string().optional(),
  /** Default base URL when neither `baseURL` nor its env var is set. */
  defaultBaseURL: z.string().optional(),
  apiKey: z.string().optional(),
  /** Environment variable that holds the API key. */
  apiKeyEnv: z.string().optional(),
  /** Whether a request without an API key is an error (local servers need none). */
  requiresApiKey: z.boolean().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  /**
   * How the model calls tools: `native` (default) uses the provider's tool calling; `text`
   * is for models without it — tools are described in the system prompt and calls are read
   * from `<tool>` blocks in the answer (see `wrapTextProtocol`).
   */
  toolProtocol: z.enum(["native", "text"]).optional(),
  /**
   * With `toolProtocol: "text"`, Forge's stricter rules (each off by default): `strict` — every
   * `<tool>` block names its `server_name` (`"local"` for the run's own tools), else it is not
   * run; `oneCallPerTurn` — the model makes one call per answer, a second is not run. The model
   * is told the rules, and told why when it breaks one.
   */
  textProtocol: z.strictObject({ strict: z.boolean().optional(), oneCallPerTurn: z.boolean().optional() }).optional(),
  /**
   * The provider's small, fast model (a model id of this provider), for work beside the run's
   * own model: WebFetch answers its prompt about a page with it. None: WebFetch returns the page.
   */
  smallModel: z.string().min(1).optional(),
});
export type ProviderConfig = z.infer<typeof ProviderConfig>;

/**
 * Hosted services that speak Chat Completions, configured by hand until now: base URL and
 * key variable are all they need. `<NAME>_BASE_URL` overrides the address (a proxy, a test).
 */
const HOSTED_OPENAI_COMPATIBLE: Record<string, { baseURL: string; keyEnv: string }> = {
  openrouter: { baseURL: "https://openrouter.ai/api/v1", keyEnv: "OPENROUTER_API_KEY" },
  groq: { baseURL: "https://api.groq.com/openai/v1", keyEnv: "GROQ_API_KEY" },
  deepseek: { baseURL: "https://api.deepseek.com/v1", keyEnv: "DEEPSEEK_API_KEY" },
  xai: { baseURL: "https://api.x.ai/v1", keyEnv: "XAI_API_KEY" },
  mistral: { baseURL: "https://api.mistral.ai/v1", keyEnv: "MISTRAL_API_KEY" },
  together: { baseURL: "https://api.together.xyz/v1", keyEnv: "TOGETHER_API_KEY" },
  fireworks: { baseURL: "https://api.fireworks.ai/inference/v1", keyEnv: "FIREWORKS_API_KEY" },
};

function hostedPresets(): Record<string, ProviderConfig> {
  return Object.fromEntries(
    Object.entries(HOSTED_OPENAI_COMPATIBLE).map(([name, { baseURL, keyEnv }]) => [
      name,
      {
        type: "openai-compatible",
        apiKeyEnv: keyEnv,
        baseURLEnv: `${name.toUpperCase()}_BASE_URL`,
        defaultBaseURL: baseURL,
        requiresApiKey: true,
      } satisfies ProviderConfig,
    ]),
  );
}

/** The providers every install knows; users add or override entries with `providers`. */
export const BUILTIN_PROVIDERS: Record<string, ProviderConfig> = {
  anthropic: {
    type: "anthropic",
    apiKeyEnv: "ANTHROPIC_API_KEY",
    baseURLEnv: "ANTHROPIC_BASE_URL",
    requiresApiKey: true,
    smallModel: LATEST_HAIKU,
  },
  openai: {
    type: "openai",
    api: "responses",
    apiKeyEnv: "OPENAI_API_KEY",
    baseURLEnv: "OPENAI_BASE_URL",
    requiresApiKey: true,
    smallModel: "gpt-5-mini",
  },
  "openai-chat": {
    type: "openai",
    api: "chat",
    apiKeyEnv: "OPENAI_API_KEY",
    baseURLEnv: "OPENAI_BASE_URL",
    requiresApiKey: true,
    smallModel: "gpt-5-mini",
  },
  google: {
    type: "google",
    apiKeyEnv: "GOOGLE_GENERATIVE_AI_API_KEY",
    baseURLEnv: "GOOGLE_GENERATIVE_AI_BASE_URL",
    requiresApiKey: true,
    smallModel: "gemini-2.5-flash-lite",
  },
  azure: {
    type: "azure",
    api: "responses",
    apiKeyEnv: "AZURE_API_KEY",
    // The endpoint, e.g. https://NAME.openai.azure.com/openai/v1; else AZURE_RESOURCE_NAME names it.
    baseURLEnv: "AZURE_BASE_URL",
    requiresApiKey: true,
  },
  ...hostedPresets(),
  "openai-compatible": {
    type: "openai-compatible",
    apiKeyEnv: "OPENAI_COMPATIBLE_API_KEY",
    baseURLEnv: "OPENAI_COMPATIBLE_BASE_URL",
    requiresApiKey: false,
  },
  ollama: {
    type: "openai-compatible",
    baseURLEnv: "OLLAMA_BASE_URL",
    defaultBaseURL: "http://127.0.0.1:11434/v1",
    requiresApiKey: false,
  },
  lmstudio: {
    type: "openai-compatible",
    baseURLEnv: "LMSTUDIO_BASE_URL",
    defaultBaseURL: "http://127.0.0.1:1234/v1",
    requiresApiKey: false,
  },
  llamacpp: {
    type: "openai-compatible",
    baseURLEnv: "LLAMACPP_BASE_URL",
    defaultBaseURL: "http://127.0.0.1:8080/v1",
    requiresApiKey: false,
  },
  vllm: {
    type: "openai-compatible",
    apiKeyEnv: "VLLM_API_KEY",
    baseURLEnv: "VLLM_BASE_URL",
    defaultBaseURL: "http://127.0.0.1:8000/v1",
    requiresApiKey: false,
  },
};
