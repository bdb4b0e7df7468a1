// The interactive agent asking the person, and /compact, end to end: the built `gyre` in a
// real terminal (tmux) against the scripted mock LLM — the model's ask_question and an MCP
// server's elicitation answered inline, and a manual compaction of the conversation.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { type MockLLMServer, type MockScript, mockTurn, startMockLLM } from "../src/testing/index.js";
import { cliEnv } from "./helpers.js";
import { gyreTerminals, sendPrompt } from "./gyre-terminals.js";
import type { TmuxTerminal } from "./tmux-terminal.js";

const CALLS_SERVER = resolve("test/fixtures/mcp-calls-server.mjs");
const SUMMARIZER = "You summarize conversations";

let server: MockLLMServer | undefined;
const terminals = gyreTerminals("tui-ask", async () => {
  await server?.close();
  server = undefined;
});
const send = sendPrompt;

/** Starts the mock with `script` and `gyre ARGS` in a fresh project folder; waits for the prompt. */
async function startGyre(script: MockScript, args: string[] = []): Promise<TmuxTerminal> {
  server = await startMockLLM({ script });
  const env = cliEnv(server.env());
  return terminals.startReady({
    cwd: mkdtempSync(join(tmpdir(), "gyre-tui-ask-")),
    args,
    env: { GYRE_HOME: env.GYRE_HOME ?? "", ...server.env() },
  });
}

/** The request bodies the mock got, as text, the summary requests apart. */
function requests(): { main: string[]; summaries: string[] } {
  const all = (server?.requests ?? []).map((request) => JSON.stringify(request.body));
  return {
    main: all.filter((body) => !body.includes(SUMMARIZER)),
    summaries: all.filter((b) => b.includes(SUMMARIZER)),
  };
}

/** The text of the last tool result the model got. */
function lastToolResult(): unknown {
  const messages = (server?.requests.at(-1)?.body.messages ?? []) as Array<{ content: unknown }>;
  const blocks = messages.at(-1)?.content as Array<{ type: string; content?: unknown }>;
  return blocks.find((block) => block.type === "tool_result")?.content;
}

describe("gyre asks the person inline, in a real terminal", () => {
  it("shows the model's question with its options; the one picked with the arrows reaches the model", async () => {
    const term = await startGyre({
      turns: [
        mockTurn.toolUse("ask_question", { question: "Which branch should I deploy?", options: ["main", "staging"] }),
        mockTurn.text("Deploying staging now."),
      ],
    });
    await send(term, "deploy it");
    const asked = await term.waitFor("Which branch should I deploy?");
    expect(asked).toMatch(/❯ 1\. main/);
    expect(asked).toContain("2. staging");
    term.press("Down");
    await term.waitFor(/❯ 2\. staging/, "the second option to be selected");
    term.press("Enter");
    await term.waitFor("Deploying staging now.");
    const last = server?.requests.at(-1)?.body;
    const messages = (last?.messages ?? []) as Array<{ role: string; content: unknown }>;
    expect(JSON.stringify(messages.at(-1))).toContain("staging");
    expect(messages.at(-1)?.role).toBe("user");
  });

  it("takes a typed answer of the person's own, and Esc leaves a question unanswered (the model is told)", async () => {
    const term = await startGyre({
      turns: [
        mockTurn.toolUse("ask_question", { question: "What should the file be called?" }),
        mockTurn.toolUse("ask_question", { question: "And its colour?", options: ["red", "blue"] }),
        mockTurn.text("Fine, no colour then."),
      ],
    });
    await send(term, "make a file");
    await term.waitFor("What should the file be called?");
    term.type("notes-2026.md");
    await term.waitFor("Your answer: notes-2026.md");
    term.press("Enter");
    await term.waitFor("And its colour?");
    expect(JSON.stringify(server?.requests.at(-1)?.body)).toContain("notes-2026.md");
    term.press("Escape");
    await term.waitFor("Fine, no colour then.");
    const screen = await term.waitFor("Left unanswered.");
    expect(screen).not.toContain("Esc leaves it unanswered");
    expect(JSON.stringify(server?.requests.at(-1)?.body)).toContain("closed your question without answering");
    // The prompt box has the keyboard again.
    await send(term, "thanks");
  });

  it("fills an MCP server's form inline: a required field is insisted on, and the answer reaches the server", async () => {
    const config = JSON.stringify({ mcpServers: { calls: { command: process.execPath, args: [CALLS_SERVER] } } });
    const term = await startGyre(
      { turns: [mockTurn.toolUse("mcp__calls__ask", {}), mockTurn.text("Got your name.")] },
      ["--mcp-config", config, "--allowed-tools", "mcp__calls__ask"],
    );
    await send(term, "ask me");
    const asked = await term.waitFor("MCP server calls asks: Your name?");
    expect(asked).toMatch(/❯ 1\. Answer/);
    term.press("Enter");
    await term.waitFor(/1\/1 name \(required\)/, "the name field");
    term.press("Enter");
    await term.waitFor("name is required");
    term.type("Ada");
    await term.waitFor("❯ Ada");
    term.press("Enter");
    await term.waitFor("Got your name.");
    expect(lastToolResult()).toBe('answer: {"action":"accept","content":{"name":"Ada"}}');
  });

  it("declines an MCP server's request, and the server is told", async () => {
    const config = JSON.stringify({ mcpServers: { calls: { command: process.execPath, args: [CALLS_SERVER] } } });
    const term = await startGyre({ turns: [mockTurn.toolUse("mcp__calls__ask", {}), mockTurn.text("You declined.")] }, [
      "--mcp-config",
      config,
      "--allowed-tools",
      "mcp__calls__ask",
    ]);
    await send(term, "ask me");
    await term.waitFor("Your name?");
    term.press("2");
    await term.waitFor("You declined.");
    expect(lastToolResult()).toBe('answer: {"action":"decline"}');
  });
});

describe("/compact in a real terminal", () => {
  it("summarizes the conversation, says so, and the next request carries the summary instead of the history", async () => {
    const term = await startGyre({
      // Sequential: after the compaction the history holds fewer answers, but the next turn is the fifth.
      mode: "sequential",
      turns: [
        mockTurn.text("FIRST-ANSWER about apples."),
        mockTurn.text("SECOND-ANSWER about pears."),
        mockTurn.text("THIRD-ANSWER about plums."),
        mockTurn.text("FOURTH-ANSWER about figs."),
        mockTurn.text("After the summary."),
      ],
      routes: [{ system: SUMMARIZER, turns: [mockTurn.text("SUMMARY-OF-FRUIT: apples, pears, plums and figs.")] }],
    });
    for (const [prompt, answer] of [
      ["tell me of apples", "FIRST-ANSWER"],
      ["and pears", "SECOND-ANSWER"],
      ["and plums", "THIRD-ANSWER"],
      ["and figs", "FOURTH-ANSWER"],
    ] as const) {
      await send(term, prompt);
      await term.waitFor(answer);
    }
    expect(requests().summaries).toHaveLength(0);
    await send(term, "/compact keep the fruit names");
    await term.waitFor("compacted before the next model call");
    await send(term, "what next?");
    await term.waitFor("Conversation compacted.");
    const screen = await term.waitFor("After the summary.");
    // The kept turns the loop repeats after the boundary are on screen once, not twice.
    expect(screen.match(/FOURTH-ANSWER/g)).toHaveLength(1);
    const { main, summaries } = requests();
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toContain("Your task is to create a detailed summary");
    expect(summaries[0]).toContain("keep the fruit names");
    expect(summaries[0]).toContain("FIRST-ANSWER");
    const after = main.at(-1) ?? "";
    expect(after).toContain("SUMMARY-OF-FRUIT");
    expect(after).toContain("what next?");
    // The oldest answer is in the summary only; the latest turns are kept as they were.
    expect(after).not.toContain("FIRST-ANSWER");
    expect(after).toContain("FOURTH-ANSWER");
  });
});
