/** Phrases providers use when the request does not fit the model's context window. */
const TOO_LONG = [
  /prompt is too long/i, // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
  /context_length_exceeded/i, // OpenAI error code
  /maximum context length/i, // OpenAI: "This model's maximum context length is ..."
  /exceeds the context window/i, // OpenAI Responses
  /input is too long/i, // Bedrock / Vertex wording
  /too many (input )?tokens/i,
  /input token count .*exceeds the maximum/i, // Gemini: "The input token count (X) exceeds the maximum number of tokens allowed (Y)."
];

/** Whether any of `texts` is a provider's "the prompt does not fit the context window". */
export function saysPromptTooLong(...texts: unknown[]): boolean {
  return texts.some((text) => typeof text === "string" && TOO_LONG.some((pattern) => pattern.test(text)));
}
