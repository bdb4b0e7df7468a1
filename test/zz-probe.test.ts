import { describe, expect, it } from "vitest";
import { mockTurn } from "../src/testing/index.js";
import { withServer } from "./serve-support.js";

const MODEL = "anthropic/claude-sonnet-4-5";
const tiny = { input: 1, output: 1, contextWindow: 900 };
const pricing = { "openai/tiny": tiny, "anthropic/tiny": tiny };

describe("probe", () => {
  it("limits and ids", async () => {
    await withServer({ turns: [mockTurn.text("A."), mockTurn.text("B."), mockTurn.text("C.")] }, async ({ client, server }) => {
      const openai = client();
      const { id } = await openai.conversations.create({ items: [{ type: "message", role: "user", content: "one" }] });
      for (const q of ["limit=0", "limit=1000", "limit=-1", "limit=abc", "limit=1.5", "order=up", "after=nope", "foo=bar", "limit=", "limit=1e1", "limit=0x10"]) {
        const r = await fetch(`${server.url}/v1/conversations/${id}/items?${q}`);
        console.log(q, r.status, (await r.text()).slice(0, 150));
      }
      // duplicate ids in one request
      const dup = await fetch(`${server.url}/v1/conversations/${id}/items`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ items: [{ id: "msg_dup", role: "user", content: "x" }, { id: "msg_dup", role: "user", content: "y" }] }) });
      console.log("dup", dup.status, (await dup.text()).slice(0, 300));
      // responses.create with an input item whose id is already in the conversation, different content
      const items = (await openai.conversations.items.list(id, { order: "asc" })).data;
      const firstId = items[0]!.id;
      const r = await fetch(`${server.url}/v1/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: MODEL, conversation: id, input: [{ id: firstId, role: "user", content: "REPLACED" }] }) });
      console.log("sameid", r.status, (await r.text()).slice(0, 200));
      console.log("after", JSON.stringify((await openai.conversations.items.list(id, { order: "asc" })).data.map((i) => [i.id, JSON.stringify((i as {content?: unknown}).content)])));
      // ids of other kinds
      const resp = await openai.responses.create({ model: MODEL, input: "hi" });
      for (const other of [resp.id, `${resp.id}-run`, "conv_../../x", "conv_%2e%2e"]) {
        const g = await fetch(`${server.url}/v1/conversations/${encodeURIComponent(other)}`);
        const p = await fetch(`${server.url}/v1/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: MODEL, conversation: other, input: "x" }) });
        console.log("other", other, g.status, p.status);
      }
      const big = await fetch(`${server.url}/v1/conversations`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, "v"])) }) });
      console.log("meta17", big.status);
      const proto = await fetch(`${server.url}/v1/conversations`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"metadata":{"__proto__":"x","a":"b"}}' });
      console.log("proto", proto.status, await proto.text());
      const upd = await fetch(`${server.url}/v1/conversations/${id}`, { method: "POST", headers: { "content-type": "application/json" }, body: '{}' });
      console.log("update without metadata", upd.status, await upd.text());
    });
  });

  it("max_output_tokens over the window", async () => {
    await withServer({ turns: [mockTurn.text("never")] }, async ({ server }) => {
      for (const body of [
        { model: "anthropic/tiny", input: "hi", max_output_tokens: 5000 },
        { model: "anthropic/tiny", input: "hi", max_output_tokens: 5000, truncation: "auto" },
        { model: "anthropic/tiny", input: "hi", max_output_tokens: 900, truncation: "auto" },
      ]) {
        const r = await fetch(`${server.url}/v1/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        console.log("mot", r.status, await r.text());
      }
    }, { pricing });
  });
});
