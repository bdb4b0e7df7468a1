import { GyreError } from "../errors/index.js";

/**
 * Which provider serves a bare model id (`claude-sonnet-4-5`, as Claude Agent SDK and
 * OpenAI programs write it). A family served by one provider resolves to it; open-weight
 * families served by many are ambiguous and the caller must say which. First match wins,
 * so narrower patterns come first.
 */
const MODEL_FAMILIES: ReadonlyArray<{ pattern: RegExp; providers: readonly string[] }> = [
  { pattern: /^claude-/, providers: ["anthropic"] },
  { pattern: /^gpt-oss-/, providers: ["groq", "together", "fireworks", "openrouter", "ollama"] },
  { pattern: /^(gpt-|chatgpt-|codex-|o\d(-|$))/, providers: ["openai"] },
  { pattern: /^gemini-/, providers: ["google"] },
  { pattern: /^grok-/, providers: ["xai"] },
  { pattern: /^(mistral-|codestral-|magistral-|devstral-|ministral-|pixtral-|open-mistral-)/, providers: ["mistral"] },
  { pattern: /^deepseek-(chat|reasoner)$/, providers: ["deepseek"] },
  {
    pattern: /^(deepseek-|llama|meta-llama|qwen|kimi-|glm-|gemma)/i,
    providers: ["groq", "together", "fireworks", "openrouter", "ollama"],
  },
];

/** The provider of a bare model id, or a `GyreError("invalid_model")` that shows the `provider/` forms. */
export function providerOfBareModelId(modelId: string, knownProviders: readonly string[]): string {
  const family = MODEL_FAMILIES.find(({ pattern }) => pattern.test(modelId));
  if (family?.providers.length === 1 && family.providers[0]) return family.providers[0];
  if (family) {
    const forms = family.providers.map((provider) => `"${provider}/${modelId}"`).join(", ");
    throw new GyreError(
      "invalid_model",
      `Model "${modelId}" is served by several providers; name one: ${forms} (the exact id may differ by provider).`,
    );
  }
  throw new GyreError(
    "invalid_model",
    `Model "${modelId}" is not a model family Gyre knows; write it as "provider/model-id" ` +
      `(e.g. "anthropic/claude-sonnet-4-5", "openai-compatible/${modelId}"). Known providers: ${knownProviders.join(", ")}.`,
  );
}
