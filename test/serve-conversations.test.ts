import OpenAI from "openai";
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import { describe, expect, it } from "vitest";
import type { MockLLMServer } from "../src/testing/index.js";
import { mockFault, mockTurn } from "../src/testing/index.js";
import { UPSTREAMS, upstreamBody, withServer, withTwoServersOnPostgres } from "./serve-support.js";

const MODEL = "anthropic/claude-sonnet-4-5";

/** Asserts that the upstream's `index`th request holds `texts`, in this order. */
function expectInOrder(mock: MockLLMServer, index: number, texts: string[]): void {
  const body = JSON.stringify(upstreamBody(mock, index));
  const positions = texts.map((text) => body.indexOf(text));
  for (const [i, position] of positions.entries()) expect(position, texts[i]).toBeGreaterThanOrEqual(0);
  expect(positions).toEqual([...positions].sort((a, b) => a - b));
}

/** Each listed item's role and text, oldest first (function calls by type). */
async function transcript(openai: OpenAI, id: string): Promise<string[]> {
  const items = [];
  for await (const item of openai.conversations.items.list(id, { order: "asc" })) items.push(item);
  return items.map((item) =>
    item.type === "message"
      ? `${item.role}: ${item.content.map((part) => ("text" in part ? part.text : "")).join("")}`
      : item.type,
  );
}

describe.each(UPSTREAMS)("gyre serve conversations with the $name upstream", (upstream) => {
  it("puts a conversation's items before the input, and adds each response's exchange to it", async () => {
    const script = { turns: [mockTurn.text("Noted: tide."), mockTurn.text("The word was tide, Ada.")] };
    await withServer(script, async ({ client, mock }) => {
      const openai = client();
      const conversation = await openai.conversations.create({
        items: [{ type: "message", role: "user", content: "My name is Ada." }],
        metadata: { topic: "words" },
      });
      expect(conversation).toMatchObject({ object: "conversation", metadata: { topic: "words" } });
      expect(conversation.id).toMatch(/^conv_/);
      expect(conversation.created_at).toBeCloseTo(Date.now() / 1000, -1);

      const first = await openai.responses.create({
        model: upstream.model,
        conversation: conversation.id,
        input: "Remember the word tide.",
      });
      expect(first.output_text).toBe("Noted: tide.");
      expect(first.conversation).toEqual({ id: conversation.id });
      expectInOrder(mock, 0, ["My name is Ada.", "Remember the word tide."]);

      const second = await openai.responses.create({
        model: upstream.model,
        conversation: { id: conversation.id },
        input: [{ role: "user", content: "Which word?" }],
      });
      expect(second.output_text).toBe("The word was tide, Ada.");
      expectInOrder(mock, 1, ["My name is Ada.", "Remember the word tide.", "Noted: tide.", "Which word?"]);
      expect((await openai.responses.retrieve(second.id)).conversation).toEqual({ id: conversation.id });

      expect(await transcript(openai, conversation.id)).toEqual([
        "user: My name is Ada.",
        "user: Remember the word tide.",
        "assistant: Noted: tide.",
        "user: Which word?",
        "assistant: The word was tide, Ada.",
      ]);
      // Messages are listed as OpenAI lists them: content as parts, the assistant's as output.
      const newest = await openai.conversations.items.list(conversation.id, { limit: 2 });
      expect(newest.data).toMatchObject([
        { type: "message", role: "assistant", status: "completed", id: second.output[0]!.id },
        { type: "message", role: "user", status: "completed", content: [{ type: "input_text", text: "Which word?" }] },
      ]);
    });
  });
});

describe("gyre serve conversations", () => {
  it("lists, pages, adds, retrieves and deletes items; the next response sees what is left", async () => {
    await withServer({ turns: [mockTurn.text("Blue it is.")] }, async ({ client, mock }) => {
      const openai = client();
      const { id } = await openai.conversations.create({});
      expect((await openai.conversations.items.list(id)).data).toEqual([]);

      const added = await openai.conversations.items.create(id, {
        items: [
          { type: "message", role: "user", content: "Favourite colour: red." },
          { type: "message", role: "assistant", content: "Red, noted." },
          { type: "message", role: "user", content: "No wait: blue." },
        ],
      });
      expect(added.data.map((item) => item.type === "message" && item.role)).toEqual(["user", "assistant", "user"]);
      expect(added.data[1]).toMatchObject({ content: [{ type: "output_text", text: "Red, noted." }] });
      const [red, noted, blue] = added.data.map((item) => item.id);
      expect(added).toMatchObject({ first_id: red, last_id: blue, has_more: false });

      const page = await openai.conversations.items.list(id, { limit: 2 });
      expect(page.data.map((item) => item.id)).toEqual([blue, noted]);
      expect(page.has_more).toBe(true);
      expect((await page.getNextPage()).data.map((item) => item.id)).toEqual([red]);
      const after = await openai.conversations.items.list(id, { order: "asc", after: red! });
      expect(after.data.map((item) => item.id)).toEqual([noted, blue]);

      expect(await openai.conversations.items.retrieve(noted!, { conversation_id: id })).toEqual(added.data[1]);
      const afterDelete = await openai.conversations.items.delete(noted!, { conversation_id: id });
      expect(afterDelete).toMatchObject({ id, object: "conversation" });
      await expect(openai.conversations.items.retrieve(noted!, { conversation_id: id })).rejects.toMatchObject({
        status: 404,
      });
      await expect(openai.conversations.items.delete(noted!, { conversation_id: id })).rejects.toMatchObject({
        status: 404,
      });
      // An item that is in the conversation already cannot be added again.
      await expect(
        openai.conversations.items.create(id, { items: [{ type: "item_reference", id: red! }] }),
      ).rejects.toMatchObject({ status: 400, code: "item_already_in_conversation" });
      await expect(
        openai.conversations.items.create(id, { items: [{ type: "item_reference", id: "msg_elsewhere" }] }),
      ).rejects.toMatchObject({ status: 400, param: "items[0].id" });

      await openai.responses.create({ model: MODEL, conversation: id, input: "So which colour?" });
      const body = JSON.stringify(upstreamBody(mock, 0));
      expect(body).toContain("Favourite colour: red.");
      expect(body).not.toContain("Red, noted.");
      expectInOrder(mock, 0, ["Favourite colour: red.", "No wait: blue.", "So which colour?"]);
    });
  });

  it("refuses an item id the conversation has, or one a request repeats: a conversation's ids stay unique", async () => {
    await withServer({ turns: [mockTurn.text("never")] }, async ({ client, mock }) => {
      const openai = client();
      const { id } = await openai.conversations.create({ items: [{ type: "message", role: "user", content: "One." }] });
      const [one] = (await openai.conversations.items.list(id)).data.map((item) => item.id);
      const twice = [
        { type: "message" as const, id: "msg_twice", role: "user" as const, content: "A." },
        { type: "message" as const, id: "msg_twice", role: "user" as const, content: "B." },
      ];
      await expect(openai.conversations.items.create(id, { items: twice })).rejects.toMatchObject({
        status: 400,
        param: "items[1].id",
      });
      await expect(openai.conversations.create({ items: twice })).rejects.toMatchObject({
        status: 400,
        param: "items[1].id",
      });
      // A response's input item that takes an id of the conversation would be run, yet never kept in it.
      await expect(
        openai.responses.create({
          model: MODEL,
          conversation: id,
          input: [{ type: "message", id: one!, role: "user", content: "Another text." }] as never,
        }),
      ).rejects.toMatchObject({ status: 400, param: "input[0].id" });
      await expect(
        openai.responses.create({ model: MODEL, conversation: id, input: twice as never }),
      ).rejects.toMatchObject({ status: 400, param: "input[1].id" });
      expect(mock.requests).toHaveLength(0);
      expect(await transcript(openai, id)).toEqual(["user: One."]);
    });
  });

  it("updates metadata and deletes a conversation, which is then gone everywhere", async () => {
    await withServer({ turns: [] }, async ({ client }) => {
      const openai = client();
      const { id } = await openai.conversations.create({ metadata: { a: "1" } });
      const updated = await openai.conversations.update(id, { metadata: { b: "2" } });
      expect(updated).toMatchObject({ id, metadata: { b: "2" } });
      expect((await openai.conversations.retrieve(id)).metadata).toEqual({ b: "2" });
      await expect(
        openai.conversations.update(id, {
          metadata: Object.fromEntries([...Array(17).keys()].map((k) => [`k${k}`, "v"])),
        }),
      ).rejects.toMatchObject({ status: 400, param: "metadata" });

      expect(await openai.conversations.delete(id)).toEqual({ id, object: "conversation.deleted", deleted: true });
      await expect(openai.conversations.retrieve(id)).rejects.toMatchObject({ status: 404, code: "not_found" });
      await expect(openai.conversations.items.list(id)).rejects.toMatchObject({ status: 404 });
      await expect(openai.conversations.delete(id)).rejects.toMatchObject({ status: 404 });
      await expect(openai.responses.create({ model: MODEL, conversation: id, input: "hi" })).rejects.toMatchObject({
        status: 404,
        code: "not_found",
        param: "conversation",
      });
    });
  });

  it("refuses conversation with previous_response_id (400), and an unknown conversation (404)", async () => {
    await withServer({ turns: [mockTurn.text("First.")] }, async ({ client, mock }) => {
      const openai = client();
      const first = await openai.responses.create({ model: MODEL, input: "Start." });
      const { id } = await openai.conversations.create({});
      await expect(
        openai.responses.create({ model: MODEL, conversation: id, previous_response_id: first.id, input: "Go on." }),
      ).rejects.toMatchObject({ status: 400, param: "conversation" });
      await expect(
        openai.responses.create({ model: MODEL, conversation: "conv_0123456789abcdef0123456789abcdef", input: "hi" }),
      ).rejects.toMatchObject({ status: 404, code: "not_found", param: "conversation" });
      expect(mock.requests).toHaveLength(1);
      expect((await openai.conversations.items.list(id)).data).toEqual([]);
    });
  });

  it("keeps each key's conversations its own: another key can neither see nor use one", async () => {
    const keys = ["conv-key-one-123", "conv-key-two-456"];
    await withServer(
      { turns: [mockTurn.text("Mine.")] },
      async ({ client, mock }) => {
        const owner = client(keys[0]);
        const other = client(keys[1]);
        const { id } = await owner.conversations.create({
          items: [{ type: "message", role: "user", content: "A secret." }],
        });
        const itemId = String((await owner.conversations.items.list(id)).data[0]?.id);
        const notFound = { status: 404 };
        await expect(other.conversations.retrieve(id)).rejects.toMatchObject(notFound);
        await expect(other.conversations.update(id, { metadata: { x: "y" } })).rejects.toMatchObject(notFound);
        await expect(other.conversations.items.list(id)).rejects.toMatchObject(notFound);
        await expect(other.conversations.items.retrieve(itemId, { conversation_id: id })).rejects.toMatchObject(
          notFound,
        );
        await expect(
          other.conversations.items.create(id, { items: [{ role: "user", content: "Injected." }] }),
        ).rejects.toMatchObject(notFound);
        await expect(other.conversations.items.delete(itemId, { conversation_id: id })).rejects.toMatchObject(notFound);
        await expect(other.conversations.delete(id)).rejects.toMatchObject(notFound);
        await expect(
          other.responses.create({ model: MODEL, conversation: id, input: "What is the secret?" }),
        ).rejects.toMatchObject({ status: 404, param: "conversation" });
        expect(mock.requests).toHaveLength(0);

        expect(await transcript(owner, id)).toEqual(["user: A secret."]);
        expect((await owner.conversations.retrieve(id)).metadata).toEqual({});
      },
      { apiKeys: keys },
    );
  });

  it("streams a response in a conversation: its items are in the conversation once the stream ends", async () => {
    await withServer({ turns: [mockTurn.text("Streamed into the conversation.")] }, async ({ client }) => {
      const openai = client();
      const { id } = await openai.conversations.create({});
      const events: ResponseStreamEvent[] = [];
      const stream = openai.responses.stream({ model: MODEL, conversation: id, input: "Stream it." });
      for await (const event of stream) events.push(event);
      const created = events.find((event) => event.type === "response.created");
      expect(created?.type === "response.created" && created.response.conversation).toEqual({ id });
      expect((await stream.finalResponse()).conversation).toEqual({ id });
      expect(await transcript(openai, id)).toEqual(["user: Stream it.", "assistant: Streamed into the conversation."]);
    });
  });

  it("adds a background response's items to its conversation when it ends", async () => {
    await withServer({ turns: [mockTurn.text("Done in the background.")] }, async ({ client }) => {
      const openai = client();
      const { id } = await openai.conversations.create({});
      const queued = await openai.responses.create({
        model: MODEL,
        conversation: id,
        input: "Later.",
        background: true,
      });
      expect(queued.conversation).toEqual({ id });
      let last: ResponseStreamEvent | undefined;
      for await (const event of await openai.responses.retrieve(queued.id, { stream: true })) last = event;
      expect(last).toMatchObject({ type: "response.completed", response: { conversation: { id } } });
      expect(await transcript(openai, id)).toEqual(["user: Later.", "assistant: Done in the background."]);
    });
  });

  it("adds a store: false response's items to its conversation (the conversation is stored)", async () => {
    await withServer({ turns: [mockTurn.text("Kept in the conversation.")] }, async ({ client }) => {
      const openai = client();
      const { id } = await openai.conversations.create({});
      const response = await openai.responses.create({ model: MODEL, conversation: id, input: "Hi.", store: false });
      await expect(openai.responses.retrieve(response.id)).rejects.toMatchObject({ status: 404 });
      expect(await transcript(openai, id)).toEqual(["user: Hi.", "assistant: Kept in the conversation."]);
    });
  });

  it("adds nothing of a failed response to its conversation", async () => {
    const script = { turns: [mockTurn.text("never", { faults: [mockFault.http(400, "upstream refuses")] })] };
    await withServer(script, async ({ client }) => {
      const openai = client();
      const { id } = await openai.conversations.create({ items: [{ role: "user", content: "Before." }] });
      await expect(openai.responses.create({ model: MODEL, conversation: id, input: "Fails." })).rejects.toMatchObject({
        status: 502,
      });
      expect(await transcript(openai, id)).toEqual(["user: Before."]);
    });
  });

  it("adds a paused response's function call, and the next response in the conversation answers it", async () => {
    const lookup = {
      type: "function" as const,
      name: "lookup",
      description: "Look a word up",
      parameters: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
      strict: false,
    };
    const script = {
      turns: [
        mockTurn.toolUse("lookup", { word: "ebb" }, { id: "call_ebb" }),
        mockTurn.text("Ebb: the tide going out."),
      ],
    };
    await withServer(script, async ({ client, mock }) => {
      const openai = client();
      const { id } = await openai.conversations.create({});
      const first = await openai.responses.create({
        model: MODEL,
        conversation: id,
        input: "Define ebb.",
        tools: [lookup],
      });
      expect(first.output).toMatchObject([{ type: "function_call", call_id: "call_ebb" }]);
      const second = await openai.responses.create({
        model: MODEL,
        conversation: id,
        input: [{ type: "function_call_output", call_id: "call_ebb", output: "ebb: the receding tide" }],
        tools: [lookup],
      });
      expect(second.output_text).toBe("Ebb: the tide going out.");
      expect(JSON.stringify(upstreamBody(mock, 1))).toContain("the receding tide");
      expect(await transcript(openai, id)).toEqual([
        "user: Define ebb.",
        "function_call",
        "function_call_output",
        "assistant: Ebb: the tide going out.",
      ]);
    });
  });
});

describe("gyre serve conversations on PostgreSQL", () => {
  it("continues a conversation on a second instance, and loses none of two instances' concurrent items", async () => {
    const script = { turns: [mockTurn.text("Heard on A."), mockTurn.text("Answered on B.")] };
    await withTwoServersOnPostgres(script, async ({ mock, onA, onB }) => {
      const { id } = await onA.conversations.create({});
      await onA.responses.create({ model: MODEL, conversation: id, input: "Said to A." });
      const second = await onB.responses.create({ model: MODEL, conversation: id, input: "Said to B." });
      expect(second.output_text).toBe("Answered on B.");
      expectInOrder(mock, 1, ["Said to A.", "Heard on A.", "Said to B."]);

      const notes = Array.from({ length: 8 }, (_, i) => `note ${i}`);
      await Promise.all(
        notes.map((note, i) =>
          (i % 2 === 0 ? onA : onB).conversations.items.create(id, { items: [{ role: "user", content: note }] }),
        ),
      );
      const listed = await transcript(onB, id);
      expect(listed.slice(0, 4)).toEqual([
        "user: Said to A.",
        "assistant: Heard on A.",
        "user: Said to B.",
        "assistant: Answered on B.",
      ]);
      expect(listed.slice(4).sort()).toEqual(notes.map((note) => `user: ${note}`));
    });
  });
});
