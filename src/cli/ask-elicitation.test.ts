import { describe, expect, it } from "vitest";
import { elicitationAsker } from "./ask-elicitation.js";

const signal = new AbortController().signal;
const form = {
  serverName: "s",
  message: "Who?",
  mode: "form" as const,
  requestedSchema: {
    type: "object",
    properties: {
      name: { type: "string" },
      age: { type: "integer" },
      tags: { type: "array", items: { enum: ["a", "b"] } },
      color: { type: "string", enum: ["red", "blue"] },
    },
  },
};

function scripted(lines: Array<string | undefined>) {
  const questions: Array<{ question: string; options?: string[] }> = [];
  const ask = async (question: string, options?: string[]) => {
    questions.push({ question, ...(options && { options }) });
    return lines.shift();
  };
  return { ask, questions };
}

describe("the CLI's elicitation asker", () => {
  it("accepts with each field parsed by its type; choices are offered", async () => {
    const { ask, questions } = scripted(["answer", "Ada", "36", "a, b", "blue"]);
    const answer = await elicitationAsker(ask)(form, { signal });
    expect(answer).toEqual({ action: "accept", content: { name: "Ada", age: 36, tags: ["a", "b"], color: "blue" } });
    expect(questions[0]).toEqual({ question: 'MCP server "s" asks: Who?', options: ["answer", "decline", "cancel"] });
    expect(questions.at(-1)?.options).toEqual(["red", "blue"]);
  });

  it("decline and cancel are sent as such; input that ends is a cancel", async () => {
    expect(await elicitationAsker(scripted(["decline"]).ask)(form, { signal })).toEqual({ action: "decline" });
    expect(await elicitationAsker(scripted(["cancel"]).ask)(form, { signal })).toEqual({ action: "cancel" });
    expect(await elicitationAsker(scripted([undefined]).ask)(form, { signal })).toEqual({ action: "cancel" });
    expect(await elicitationAsker(scripted(["answer", "Ada", undefined]).ask)(form, { signal })).toEqual({
      action: "cancel",
    });
  });

  it("URL mode shows the URL; done accepts", async () => {
    const { ask, questions } = scripted(["done"]);
    const request = { serverName: "s", message: "Log in", mode: "url" as const, url: "https://example.com/x" };
    expect(await elicitationAsker(ask)(request, { signal })).toEqual({ action: "accept" });
    expect(questions[0]?.question).toContain("Open https://example.com/x");
  });
});
