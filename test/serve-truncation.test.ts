// `truncation` in gyre serve, with the official client against the real server and the mock
// LLM upstream, whose `contextWindow` refuses requests over it as each provider does.
import { APIError } from "openai";
import { describe, expect, it } from "vitest";
import { DROPPED_NOTE } from "../src/server/truncation.js";
import { mockTurn } from "../src/testing/index.js";
import { UPSTREAMS, upstreamBody, withServer } from "./serve-support.js";

const filler = (word: string) => `${word} ${"lorem ipsum ".repeat(170)}`; // about 500 tokens
/** Two long exchanges, then a short question: about 1,050 tokens in all. */
const history = [
  { role: "user" as const, content: filler("first") },
  { role: "assistant" as const, content: "ok one" },
  { role: "user" as const, content: filler("second") },
  { role: "assistant" as const, content: "ok two" },
  { role: "user" as const, content: "third question" },
];
// Gyre knows this model's window from the config's pricing; the mock upstream has the same one.
const tiny = { input: 1, output: 1, contextWindow: 900 };
const pricing = { "openai/tiny": tiny, "anthropic/tiny": tiny };

async function rejection(promise: Promise<unknown>): Promise<APIError> {
  return promise.then(
    () => expect.unreachable("the request should fail"),
    (error: unknown) => {
      expect(error).toBeInstanceOf(APIError);
      return error as APIError;
    },
  );
}

describe.each(UPSTREAMS)("truncation with the $name upstream", ({ name }) => {
  const model = `${name === "anthropic" ? "anthropic" : "openai"}/tiny`;

  it("auto drops the oldest turns to fit the model's context window", async () => {
    const script = { mode: "sequential" as const, turns: [mockTurn.text("Answered.")], contextWindow: 900 };
    await withServer(
      script,
      async ({ client, mock }) => {
        const response = await client().responses.create({ model, input: history, truncation: "auto" });
        expect(response.output_text).toBe("Answered.");
        expect(response.truncation).toBe("auto");
        const sent = JSON.stringify(upstreamBody(mock, 0));
        expect(sent).not.toContain("first lorem");
        expect(sent).toContain("second lorem");
        expect(sent).toContain("third question");
        expect(sent).toContain(DROPPED_NOTE);
        expect(mock.requests.every((request) => request.overContextWindow === undefined)).toBe(true);
        // The stored input is the client's, whole.
        const items = await client().responses.inputItems.list(response.id);
        expect(JSON.stringify(items.data)).toContain("first lorem");
      },
      { pricing },
    );
  });

  it("disabled (the default) refuses an input over the window with context_length_exceeded, asking nothing upstream", async () => {
    await withServer(
      { turns: [mockTurn.text("never")] },
      async ({ client, mock }) => {
        const error = await rejection(client().responses.create({ model, input: history }));
        expect(error.status).toBe(400);
        expect(error.error).toMatchObject({ code: "context_length_exceeded", param: "input" });
        expect(mock.requests).toHaveLength(0);
      },
      { pricing },
    );
  });

  it("refuses max_output_tokens that leave no room for input in the window, naming max_output_tokens", async () => {
    await withServer(
      { turns: [mockTurn.text("never")] },
      async ({ client, mock }) => {
        for (const truncation of ["auto", "disabled"] as const) {
          const error = await rejection(
            client().responses.create({ model, input: "hi", max_output_tokens: 5000, truncation }),
          );
          expect(error.status).toBe(400);
          expect(error.error).toMatchObject({ code: "invalid_value", param: "max_output_tokens" });
          expect(error.message).toContain("900");
        }
        expect(mock.requests).toHaveLength(0);
      },
      { pricing },
    );
  });

  it("disabled answers the upstream's own refusal as context_length_exceeded, whole and streamed", async () => {
    // A model Gyre knows no window of: only the upstream can tell.
    const unknown = `${name === "anthropic" ? "anthropic" : "openai"}/mock-model`;
    await withServer({ turns: [mockTurn.text("never")], contextWindow: 900 }, async ({ client, mock }) => {
      const error = await rejection(client().responses.create({ model: unknown, input: history }));
      expect(error.status).toBe(400);
      expect(error.error).toMatchObject({ code: "context_length_exceeded", param: "input" });
      expect(mock.requests).toHaveLength(1);
      expect(mock.requests[0]?.overContextWindow).toBeGreaterThan(900);

      const events: { type: string; response?: { status: string; error: unknown } }[] = [];
      const stream = await client().responses.create({ model: unknown, input: history, stream: true });
      for await (const event of stream) events.push(event as never);
      const last = events.at(-1);
      expect(last?.type).toBe("response.failed");
      expect(last?.response).toMatchObject({ status: "failed", error: { code: "context_length_exceeded" } });
      // Refused once each, not compacted and sent again.
      expect(mock.requests).toHaveLength(2);
    });
  });
});
