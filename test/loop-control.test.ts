import { describe, expect, it } from "vitest";
import { mockTurn } from "../src/testing/index.js";
import { calculator, FORMATS, resultOf, runQuery, withMock } from "./helpers.js";

const [anthropic, responses] = FORMATS;

describe.each([anthropic, responses])("loop-control tools over $name", (format) => {
  it("ends the run with the result given to task_completion", async () => {
    const script = {
      turns: [
        mockTurn.toolUse("calculator", { a: 6, b: 7, op: "*" }),
        mockTurn.toolUse("task_completion", { result: "6*7 = 42" }),
        mockTurn.text("never asked"),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", { tools: [calculator], loopControlTools: true });
      expect(resultOf(messages)).toMatchObject({
        subtype: "success",
        terminal_reason: "completed",
        result: "6*7 = 42",
      });
      expect(server.requests).toHaveLength(2);
    });
  });

  it("ends with the question from ask_question in the result", async () => {
    const script = {
      turns: [mockTurn.toolUse("ask_question", { question: "Which branch?", options: ["main", "dev"] })],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "deploy", { tools: [], loopControlTools: true });
      expect(resultOf(messages)).toMatchObject({
        terminal_reason: "question",
        result: "Which branch?",
        question: { question: "Which branch?", options: ["main", "dev"] },
      });
    });
  });

  it("offers only the listed tools, and no reminder, when given a list", async () => {
    const script = { turns: [mockTurn.text("Just text.")] };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "hi", { tools: [], loopControlTools: ["ask_question"] });
      const offered = JSON.stringify(server.requests[0]?.body);
      expect(offered).toContain("ask_question");
      expect(offered).not.toContain("task_completion");
      expect(offered).not.toContain('"converse"');
      expect(server.requests).toHaveLength(1);
      expect(resultOf(messages)).toMatchObject({ terminal_reason: "completed", result: "Just text." });
    });
  });

  it("reminds a model that answers without a tool call, a bounded number of times", async () => {
    const script = {
      turns: [mockTurn.text("I think I'm done."), mockTurn.toolUse("converse", { message: "Hello!" })],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "hi", { tools: [], loopControlTools: true });
      expect(JSON.stringify(server.requests[1]?.body)).toContain("You answered without calling a tool");
      expect(resultOf(messages)).toMatchObject({ terminal_reason: "completed", result: "Hello!" });
    });
    const stubborn = {
      turns: [mockTurn.text("a"), mockTurn.text("b"), mockTurn.text("c"), mockTurn.text("d")],
    };
    await withMock(stubborn, async (server) => {
      const messages = await runQuery(server, format, "hi", {
        tools: [],
        loopControlTools: true,
        maxToolReminders: 2,
      });
      expect(server.requests).toHaveLength(3);
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "c" });
    });
  });

  it("ends the run after a tool named in stopAtTools, with its output as the result", async () => {
    const script = {
      turns: [mockTurn.toolUse("calculator", { a: 2, b: 3, op: "+" }), mockTurn.text("never")],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "go", {
        tools: [calculator],
        stopAtTools: ["calculator"],
      });
      expect(resultOf(messages)).toMatchObject({
        terminal_reason: "tool_stopped",
        result: "5",
        subtype: "success",
      });
      expect(server.requests).toHaveLength(1);
    });
  });
});
