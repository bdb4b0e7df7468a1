import { describe, expect, it } from "vitest";
import type { Compactor, SystemPromptContext } from "../src/index.js";
import { openSqliteSessionStore } from "../src/sessions/index.js";
import { mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, withMock } from "./helpers.js";

const [anthropic] = FORMATS;

const plan = (first: string, second: string) => ({
  todos: [
    { content: "Write the parser", status: first, activeForm: "Writing the parser" },
    { content: "Test the parser", status: second, activeForm: "Testing the parser" },
  ],
});

/** The system prompt each request carried, as text. */
function systems(requests: ReadonlyArray<{ body: Record<string, unknown> }>): string[] {
  return requests.map(({ body }) =>
    typeof body.system === "string"
      ? body.system
      : ((body.system as Array<{ text: string }> | undefined)?.map((block) => block.text).join("") ?? ""),
  );
}

const planScript = {
  mode: "sequential" as const,
  turns: [
    mockTurn.toolUse("TodoWrite", plan("in_progress", "pending")),
    mockTurn.toolUse("TodoWrite", plan("completed", "in_progress")),
    mockTurn.text("Done."),
  ],
};

describe("every model call's system prompt follows the run (issue 32, row 2)", () => {
  it("carries the current plan, not the first one", async () => {
    await withMock(planScript, async (server) => {
      const messages = await runQuery(server, anthropic, "Write a parser", { tools: ["TodoWrite"] });
      expect(resultOf(messages).result).toBe("Done.");
      const [first, second, third] = systems(server.requests);
      expect(first).toContain("You are Gyre");
      expect(first).not.toContain("<todos>");
      expect(second).toContain("[~] Write the parser\n[ ] Test the parser");
      expect(third).toContain("[x] Write the parser\n[~] Test the parser");
      expect(third).not.toContain("[~] Write the parser");
    });
  });

  it("a resumed session's first call carries the plan as its last successful TodoWrite left it", async () => {
    const store = openSqliteSessionStore({ path: ":memory:" });
    const script = {
      mode: "sequential" as const,
      turns: [
        mockTurn.toolUse("TodoWrite", plan("completed", "in_progress")),
        // A later call that fails (blank content) changes nothing: the plan stays the one above.
        mockTurn.toolUse("TodoWrite", { todos: [{ content: " ", status: "pending", activeForm: "x" }] }),
        mockTurn.text("Stopping here."),
        mockTurn.text("Resumed."),
      ],
    };
    try {
      await withMock(script, async (server) => {
        const options = { tools: ["TodoWrite"], sessionStore: store, persistSession: true };
        const first = await runQuery(server, anthropic, "Write a parser", options);
        const sessionId = resultOf(first).session_id;
        await runQuery(server, anthropic, "Go on", { ...options, resume: sessionId });
        const resumed = systems(server.requests)[3];
        expect(resumed).toContain("<todos>");
        expect(resumed).toContain("[x] Write the parser");
        expect(resumed).toContain("[~] Test the parser");
      });
    } finally {
      await store.close();
    }
  });

  it("has a loop section with the run's tools and limits, the same in every call", async () => {
    await withMock(planScript, async (server) => {
      await runQuery(server, anthropic, "Write a parser", {
        tools: ["TodoWrite", "Read"],
        maxTurns: 7,
        maxBudgetUsd: 2,
      });
      const loops = systems(server.requests).map((system) => /<loop>[\s\S]*?<\/loop>/.exec(system)?.[0]);
      expect(loops).toHaveLength(3);
      expect(new Set(loops).size).toBe(1);
      expect(loops[0]).toContain("Tools of this run (their schemas come with each request): TodoWrite, Read.");
      expect(loops[0]).toContain("The run stops at 7 model calls or $2 of model spend");
      // Before the plan, so a new plan changes only the end of the prompt.
      const third = systems(server.requests)[2] ?? "";
      expect(third.indexOf("<loop>")).toBeLessThan(third.indexOf("<todos>"));
    });
  });

  it("carries each call's retrieved context from the context option", async () => {
    await withMock(planScript, async (server) => {
      const asked: Array<{ turn: number; todos: number }> = [];
      await runQuery(server, anthropic, "Write a parser", {
        tools: ["TodoWrite"],
        context: ({ turn, todos }) => {
          asked.push({ turn, todos: todos.length });
          return [{ title: "Notes", source: "notes.md", text: `What matters at call ${turn}.` }, "Use tabs."];
        },
      });
      expect(asked).toEqual([
        { turn: 1, todos: 0 },
        { turn: 2, todos: 2 },
        { turn: 3, todos: 2 },
      ]);
      const prompts = systems(server.requests);
      expect(prompts[0]).toContain(
        '<retrieved-context>\n<document title="Notes" source="notes.md">\nWhat matters at call 1.\n</document>\n\nUse tabs.\n</retrieved-context>',
      );
      expect(prompts[1]).toContain("What matters at call 2.");
      expect(prompts[2]).toContain("What matters at call 3.");
    });
  });

  it("sends literal text exactly, as the Claude Agent SDK does, plan or not", async () => {
    await withMock(planScript, async (server) => {
      await runQuery(server, anthropic, "Write a parser", { tools: ["TodoWrite"], systemPrompt: "You write parsers." });
      expect(systems(server.requests)).toEqual(["You write parsers.", "You write parsers.", "You write parsers."]);
    });
  });

  it("lets a systemPrompt function build each call's prompt from the run as it is", async () => {
    await withMock(planScript, async (server) => {
      const seen: SystemPromptContext[] = [];
      await runQuery(server, anthropic, "Write a parser", {
        tools: ["TodoWrite"],
        context: ["Parsers live in src/parse."],
        systemPrompt: (context) => {
          seen.push(context);
          const open = context.todos.filter((todo) => todo.status !== "completed").map((todo) => todo.content);
          return `Call ${context.turn}. Open: ${open.join(", ") || "none"}.`;
        },
      });
      expect(systems(server.requests)).toEqual([
        "Call 1. Open: none.",
        "Call 2. Open: Write the parser, Test the parser.",
        "Call 3. Open: Test the parser.",
      ]);
      expect(seen[0]?.tools).toContain("TodoWrite");
      expect(seen[0]?.loopControl).toBe(false);
      expect(seen[0]?.agent).toBeUndefined();
      expect(seen[0]?.documents).toEqual(["Parsers live in src/parse."]);
      // What Gyre would have sent: the preset, the retrieved context, the plan.
      expect(seen[0]?.defaultPrompt).toContain("You are Gyre");
      expect(seen[0]?.defaultPrompt).toContain("Parsers live in src/parse.");
      expect(seen[2]?.defaultPrompt).toContain("[x] Write the parser");
    });
  });

  it("ends the run with the error when the prompt function throws", async () => {
    await withMock(planScript, async (server) => {
      const messages = await runQuery(server, anthropic, "Go", {
        systemPrompt: () => {
          throw new Error("index offline");
        },
      });
      expect(resultOf(messages)).toMatchObject({ subtype: "error_during_execution", terminal_reason: "model_error" });
      expect(resultOf(messages).errors?.[0]).toContain("index offline");
      expect(server.requests).toHaveLength(0);
    });
  });
});

describe("a custom compactor (issue 32, row 2)", () => {
  it("is asked before each call, called when due, and its summary is what the model sees next", async () => {
    const script = {
      mode: "sequential" as const,
      turns: [mockTurn.toolUse("TodoWrite", plan("in_progress", "pending")), mockTurn.text("Carrying on.")],
    };
    await withMock(script, async (server) => {
      const asked: number[] = [];
      const compactor: Compactor = {
        needsCompaction: (history) => {
          asked.push(history.length);
          return history.length > 2;
        },
        compact: async (history, { trigger }) => ({
          history: [{ role: "user", content: "My summary: the user wants a parser; a plan was written." }],
          trigger,
          preTokens: 4321,
          postTokens: 12,
          summary: "the user wants a parser",
          pruned: 0,
          summaryUsage: {
            input_tokens: 100,
            output_tokens: 10,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
        }),
      };
      const messages = await runQuery(server, anthropic, "Write a parser", { tools: ["TodoWrite"], compactor });
      expect(asked).toEqual([1, 3]);
      const boundary = messages.find((m) => m.type === "system" && m.subtype === "compact_boundary");
      expect(boundary).toMatchObject({ compact_metadata: { trigger: "auto", pre_tokens: 4321, post_tokens: 12 } });
      const sent = server.requests[1]?.body.messages as Array<{ role: string; content: unknown }>;
      expect(sent).toHaveLength(1);
      expect(JSON.stringify(sent[0])).toContain("My summary: the user wants a parser");
      const result = resultOf(messages);
      expect(result.result).toBe("Carrying on.");
      expect(result.compaction_cost_usd).toBeGreaterThan(0);
    });
  });
});
