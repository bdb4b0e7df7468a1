import { describe, expect, it } from "vitest";
import { handoffTarget, handoffTool, handoffToolName } from "./handoff-tool.js";

describe("handoff tools", () => {
  it.each([
    ["billing", "transfer_to_billing"],
    ["Billing-Agent", "transfer_to_Billing_Agent"],
    ["billing.v2", "transfer_to_billing_v2"],
    ["a_b", "transfer_to_a_b"],
  ])("%s is handed to with %s (the OpenAI Agents SDK's name)", (agent, name) => {
    expect(handoffToolName(agent)).toBe(name);
  });

  it("takes no input, needs no permission, and is known as a handoff only when made here", async () => {
    const tool = handoffTool("billing", { description: "Refunds.", prompt: "p" }, async () => ({ content: "ok" }));
    expect(tool).toMatchObject({ name: "transfer_to_billing", sideEffect: "none" });
    expect(tool.description).toBe("Handoff to the billing agent to handle the request. Refunds.");
    expect(tool.inputSchema.safeParse({}).success).toBe(true);
    expect(tool.inputSchema.safeParse({ to: "admin" }).success).toBe(false);
    expect(handoffTarget(tool)).toBe("billing");
    expect(handoffTarget({ ...tool })).toBeUndefined();
  });
});
