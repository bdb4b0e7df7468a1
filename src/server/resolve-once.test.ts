import { describe, expect, it } from "vitest";
import { resolveOnce } from "./resolve-once.js";

describe("resolveOnce", () => {
  it("resolves a model spec once and hands every request the same model", async () => {
    const resolve = resolveOnce({ OPENAI_API_KEY: "key" }, {});
    const first = await resolve("openai/gpt-5");
    expect(await resolve("openai/gpt-5")).toBe(first);
    expect(await resolve("openai/gpt-5-mini")).not.toBe(first);
    expect(first.id).toBe("openai/gpt-5");
  });

  it("does not keep a failure: the next request tries again", async () => {
    const env: Record<string, string | undefined> = {};
    const resolve = resolveOnce(env, {});
    await expect(resolve("openai/gpt-5")).rejects.toMatchObject({ code: "missing_api_key" });
    env.OPENAI_API_KEY = "key";
    expect((await resolve("openai/gpt-5")).id).toBe("openai/gpt-5");
  });

  it("keeps only the most recently used models: a client naming ever new ones does not grow it", async () => {
    const resolve = resolveOnce({ OPENAI_API_KEY: "key" }, {});
    const kept = await resolve("openai/kept");
    for (let index = 0; index < 100; index++) {
      await resolve(`openai/model-${index}`);
      if (index % 10 === 0) expect(await resolve("openai/kept")).toBe(kept); // used often: stays
    }
    const early = await resolve("openai/model-0");
    expect(await resolve("openai/model-0")).toBe(early);
    for (let index = 0; index < 100; index++) await resolve(`openai/other-${index}`);
    expect(await resolve("openai/model-0")).not.toBe(early); // let go, resolved anew
  });
});
