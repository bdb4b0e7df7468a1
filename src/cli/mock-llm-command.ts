import { parseCommandArgs } from "./parse-command-args.js";
import { GyreError } from "../errors/index.js";
import { loadMockScript, startMockLLM } from "../testing/index.js";

/** `gyre mock-llm --script FILE --port N`: serve a script until interrupted. */
export async function mockLlmCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs({
    args,
    options: {
      script: { type: "string" },
      port: { type: "string", default: "0" },
      host: { type: "string", default: "127.0.0.1" },
    },
  });
  if (!values.script) throw new GyreError("config_error", "gyre mock-llm needs --script FILE (a JSON mock script)");
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new GyreError("config_error", "--port must be 0-65535");
  const script = await loadMockScript(values.script);
  const server = await startMockLLM({ script, port, host: values.host });
  process.stdout.write(
    `mock-llm listening on ${server.url}\n` +
      `  ANTHROPIC_BASE_URL=${server.baseURL} ANTHROPIC_API_KEY=mock gyre run "..." --model anthropic/claude-sonnet-4-5\n` +
      `  OPENAI_BASE_URL=${server.baseURL} OPENAI_API_KEY=mock gyre run "..." --model openai/gpt-5\n` +
      `  GOOGLE_GENERATIVE_AI_BASE_URL=${server.baseURL} GOOGLE_GENERATIVE_AI_API_KEY=mock gyre run "..." --model google/gemini-2.5-flash\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await server.close();
  return 0;
}
