import { describe, expect, it } from "vitest";
import { COMPACTION_PROMPT_MARKER } from "../src/context/index.js";
import { query, type SDKMessage } from "../src/index.js";
import { mockFault, mockTurn } from "../src/testing/index.js";
import { calculator, FORMATS, mockEnv, resultOf, runQuery, withMock } from "./helpers.js";

const [anthropic, responses] = FORMATS;
const big = { input_tokens: 150_000, output_tokens: 1_000 };

function boundaries(messages: SDKMessage[]) {
  return messages.flatMap((m) => (m.type === "system" && m.subtype === "compact_boundary" ? [m] : []));
}

describe.each([anthropic, responses])("compaction in the loop over $name", (format) => {
  it("summarizes when reported usage passes the threshold, and goes on with a smaller valid history", async () => {
    const script = {
      mode: "sequential" as const,
      turns: [
        mockTurn.toolUse("calculator", { a: 1, b: 2, op: "+" }),
        mockTurn.toolUse("calculator", { a: 3, b: 4, op: "+" }, { usage: big }),
        mockTurn.text("Summary: the user asked for sums; 1+2=3 and 3+4=7 were computed."),
        mockTurn.text("All sums done."),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "Add some numbers", {
        tools: [calculator],
        compaction: { thresholdTokens: 100_000, keepRecentTurns: 1 },
      });
      const [boundary] = boundaries(messages);
      expect(boundary?.compact_metadata.trigger).toBe("auto");
      expect(boundary?.compact_metadata.pre_tokens).toBeGreaterThan(100_000);
      expect(boundary?.compact_metadata.post_tokens).toBeLessThan(boundary?.compact_metadata.pre_tokens ?? 0);
      expect(JSON.stringify(server.requests[2]?.body)).toContain(COMPACTION_PROMPT_MARKER);
      // The request after compaction carries the summary and the original task.
      const after = JSON.stringify(server.requests[3]?.body);
      expect(after).toContain("1+2=3 and 3+4=7");
      expect(after).toContain("Add some numbers");
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "All sums done." });
    });
  });

  it("compacts and retries once when the provider says the prompt is too long", async () => {
    const script = {
      mode: "sequential" as const,
      turns: [
        mockTurn.toolUse("calculator", { a: 1, b: 2, op: "+" }),
        mockTurn.text("Summary: computed 1+2=3.", {
          faults: [mockFault.http(400, "prompt is too long: 210000 tokens > 200000 maximum")],
        }),
        mockTurn.text("Done after compacting."),
      ],
    };
    await withMock(script, async (server) => {
      const messages = await runQuery(server, format, "Add", { tools: [calculator] });
      expect(boundaries(messages)).toHaveLength(1);
      expect(JSON.stringify(server.requests[2]?.body)).toContain(COMPACTION_PROMPT_MARKER);
      expect(resultOf(messages)).toMatchObject({ subtype: "success", result: "Done after compacting." });
    });
  });

  it("compacts on request with Query.compact()", async () => {
    const script = {
      mode: "sequential" as const,
      turns: [
        mockTurn.toolUse("calculator", { a: 1, b: 2, op: "+" }),
        mockTurn.text("Summary: 1+2=3."),
        mockTurn.text("Finished."),
      ],
    };
    await withMock(script, async (server) => {
      const q = query({
        prompt: "Add",
        options: { model: format.model, env: mockEnv(server), tools: [calculator] },
      });
      const messages: SDKMessage[] = [];
      for await (const message of q) {
        messages.push(message);
        if (message.type === "assistant" && messages.filter((m) => m.type === "assistant").length === 1) {
          q.compact("Keep the arithmetic.");
        }
      }
      expect(boundaries(messages)[0]?.compact_metadata.trigger).toBe("manual");
      expect(JSON.stringify(server.requests[1]?.body)).toContain("Keep the arithmetic.");
      expect(resultOf(messages).result).toBe("Finished.");
    });
  });
});
