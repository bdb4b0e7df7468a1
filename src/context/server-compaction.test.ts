import { describe, expect, it } from "vitest";
import type { Model, ModelApi } from "../model/index.js";
import { SummaryCompactor } from "./compactor.js";
import { anthropicServerCompaction, isServerCompactionBlock, mergeProviderOptions } from "./server-compaction.js";

function resolved(api: ModelApi): Model {
  return {
    id: "x/m",
    provider: "x",
    modelId: "m",
    info: { input: 1, output: 1, contextWindow: 200_000, maxOutputTokens: 64_000 },
    api,
    stream: () => {
      throw new Error("unused");
    },
  };
}

describe("Anthropic server-side compaction", () => {
  it("builds the contextManagement provider options", () => {
    expect(anthropicServerCompaction({ triggerTokens: 150_000, instructions: "Keep file names." })).toEqual({
      anthropic: {
        contextManagement: {
          edits: [
            {
              type: "compact_20260112",
              trigger: { type: "input_tokens", value: 150_000 },
              instructions: "Keep file names.",
            },
          ],
        },
      },
    });
    expect(anthropicServerCompaction()).toEqual({
      anthropic: { contextManagement: { edits: [{ type: "compact_20260112" }] } },
    });
  });

  it("is offered by the compactor for Anthropic models only, with client compaction as a fallback", () => {
    const anthropic = new SummaryCompactor({ model: resolved("anthropic"), serverSide: true });
    expect(anthropic.providerOptions()).toEqual(anthropicServerCompaction({ triggerTokens: 155_000 }));
    expect(anthropic.thresholdTokens).toBe(168_000);
    const openai = new SummaryCompactor({ model: resolved("openai-responses"), serverSide: true });
    expect(openai.providerOptions()).toBeUndefined();
    expect(openai.thresholdTokens).toBe(155_000);
    expect(new SummaryCompactor({ model: resolved("anthropic") }).providerOptions()).toBeUndefined();
  });

  it("recognises a compaction block kept as text with provider metadata", () => {
    expect(
      isServerCompactionBlock({
        type: "text",
        text: "s",
        provider_metadata: { anthropic: { type: "compaction" } },
      }),
    ).toBe(true);
    expect(isServerCompactionBlock({ type: "text", text: "s" })).toBe(false);
  });

  it("merges provider options per provider", () => {
    expect(
      mergeProviderOptions(
        { anthropic: { thinking: { type: "enabled" } }, openai: { a: 1 } },
        anthropicServerCompaction(),
      ),
    ).toEqual({
      anthropic: {
        thinking: { type: "enabled" },
        contextManagement: { edits: [{ type: "compact_20260112" }] },
      },
      openai: { a: 1 },
    });
    expect(mergeProviderOptions(undefined, undefined)).toBeUndefined();
  });
});
