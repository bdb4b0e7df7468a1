import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { HookCallback, HookCallbackResult, HookCallbacks } from "../hooks/index.js";
import type { CanUseTool, PermissionPolicyOptions, PermissionResult } from "../permissions/index.js";
import type { SDKMessage, TerminalReason } from "../protocol/index.js";
import { type AnyTool, defineTool } from "../tools/index.js";
import { drain, type Harness, harness, hookResponses } from "./loop.test-harness.js";
import type { GateDecision } from "./tool-gate.js";

// The gate's decisions, case by case, in Claude Code's order: doom loop, PreToolUse hooks,
// the permission policy, then — when someone must be asked — PermissionRequest hooks,
// Notification hooks and canUseTool. Every part is real; `log` records who was consulted.

const ledger = defineTool({
  name: "ledger",
  description: "Records an entry (a side effect, so the default mode asks).",
  inputSchema: z.object({ entry: z.string(), times: z.number().int().default(1) }),
  execute: ({ entry }) => `recorded ${entry}`,
});

const lookup = defineTool({
  name: "lookup",
  description: "Reads a value (read-only, so every mode but plan's rules allows it).",
  inputSchema: z.object({ key: z.string() }),
  readOnly: true,
  execute: ({ key }) => `value of ${key}`,
});

type Event = "PreToolUse" | "PermissionRequest" | "Notification";

/** A hook for `event` that answers `output` (or throws `throws`), noting in the log that it ran. */
interface HookSpec {
  event: Event;
  output?: HookCallbackResult;
  throws?: string;
  /** The matcher's `onFailure` (absent: the SDK's default, `continue`). */
  onFailure?: "continue" | "block";
}

type Answer = PermissionResult | { throws: string };

interface GateCase {
  name: string;
  tool?: AnyTool;
  input?: Record<string, unknown>;
  permissions?: Omit<PermissionPolicyOptions, "cwd">;
  hooks?: HookSpec[];
  /** canUseTool's answer; absent: no callback at all. */
  answer?: Answer;
  doomLoopThreshold?: number;
  /** Identical calls checked before the one whose decision is expected. */
  before?: number;
  /** What those earlier calls are decided (default allow). */
  beforeBehavior?: GateDecision["behavior"];
  expected: {
    behavior: GateDecision["behavior"];
    denial?: boolean;
    stop?: TerminalReason;
    message?: RegExp;
    /** A defer's reason. */
    reason?: RegExp;
    /** The input an allow or defer passes on. */
    input?: unknown;
    context?: string[];
    /** Who was consulted, in order, over every call of the case. */
    log: string[];
    /** What canUseTool was told (`decisionReason`), when it was asked. */
    told?: RegExp;
    /** The events of the hook_response messages the checked call yielded (`canUseTool` for its failure). */
    reported?: Array<Event | "canUseTool">;
  };
}

const entry = { entry: "x", times: 1 };

const allowLedger = { allow: ["ledger"] };

const preToolUse = (output: HookCallbackResult): HookSpec => ({ event: "PreToolUse", output });
const permissionRequest = (decision: unknown): HookSpec => ({
  event: "PermissionRequest",
  output: { hookSpecificOutput: { hookEventName: "PermissionRequest", decision } } as HookCallbackResult,
});
const preDecision = (
  permissionDecision: "allow" | "deny" | "ask" | "defer",
  extra: Record<string, unknown> = {},
): HookSpec => preToolUse({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision, ...extra } });

const CASES: GateCase[] = [
  // The policy alone.
  {
    name: "a read-only call the policy allows runs without asking anyone",
    tool: lookup,
    input: { key: "k" },
    answer: { behavior: "deny", message: "never asked" },
    expected: { behavior: "allow", input: { key: "k" }, context: [], log: [] },
  },
  {
    name: "an allow rule lets a call with side effects run",
    permissions: allowLedger,
    expected: { behavior: "allow", input: entry, context: [], log: [] },
  },
  {
    name: "bypassPermissions lets it run",
    permissions: { mode: "bypassPermissions" },
    expected: { behavior: "allow", input: entry, log: [] },
  },
  {
    name: "a deny rule denies without asking canUseTool",
    permissions: { deny: ["ledger"] },
    answer: { behavior: "allow" },
    expected: { behavior: "deny", denial: true, message: /denied by/, log: [] },
  },
  {
    name: "dontAsk denies what it would have asked about",
    permissions: { mode: "dontAsk" },
    answer: { behavior: "allow" },
    expected: { behavior: "deny", denial: true, message: /dontAsk mode denies/, log: [] },
  },
  {
    name: "plan mode denies a call with side effects",
    permissions: { mode: "plan" },
    answer: { behavior: "allow" },
    expected: { behavior: "deny", denial: true, message: /plan mode/, log: [] },
  },
  {
    name: "a question with no one to ask is denied, and the run goes on",
    expected: { behavior: "deny", denial: true, message: /no canUseTool callback/, log: [] },
  },
  {
    name: "with the host's hint, the denial of a question no one can answer says it instead of the library's advice",
    permissions: {
      hint: ({ toolName, suggestions }) => `Run again with --allowed-tools ${toolName} (${suggestions.length}).`,
    },
    expected: {
      behavior: "deny",
      denial: true,
      message:
        /^Permission to use ledger is required \(.*\), and no one can be asked\. Run again with --allowed-tools ledger \(1\)\.$/,
      log: [],
    },
  },
  {
    name: "the host's hint ends a dontAsk denial too",
    permissions: { mode: "dontAsk", hint: () => "Run again with --allowed-tools ledger." },
    expected: {
      behavior: "deny",
      denial: true,
      message: /dontAsk mode denies instead of asking\. Run again with/,
      log: [],
    },
  },
  // canUseTool answers the policy's question.
  {
    name: "canUseTool allows",
    answer: { behavior: "allow" },
    expected: { behavior: "allow", input: entry, context: [], log: ["canUseTool:permission"], told: /no rule allows/ },
  },
  {
    name: "canUseTool allows with a changed input, validated (defaults filled in)",
    answer: { behavior: "allow", updatedInput: { entry: "changed" } },
    expected: { behavior: "allow", input: { entry: "changed", times: 1 }, log: ["canUseTool:permission"] },
  },
  {
    name: "canUseTool allows with an input the tool rejects: denied, not counted as a denial",
    answer: { behavior: "allow", updatedInput: { entry: 5 } },
    expected: {
      behavior: "deny",
      denial: false,
      message: /approved input for ledger is not valid/,
      log: ["canUseTool:permission"],
    },
  },
  {
    name: "canUseTool denies: its message goes to the model, the run goes on",
    answer: { behavior: "deny", message: "not today" },
    expected: { behavior: "deny", denial: true, message: /^not today$/, log: ["canUseTool:permission"] },
  },
  {
    name: "canUseTool denies without a message: a default one",
    answer: { behavior: "deny", message: "" },
    expected: {
      behavior: "deny",
      denial: true,
      message: /^Permission to use ledger was denied\.$/,
      log: ["canUseTool:permission"],
    },
  },
  {
    name: "canUseTool denies and interrupts: the run stops",
    answer: { behavior: "deny", message: "stop it", interrupt: true },
    expected: {
      behavior: "deny",
      denial: true,
      stop: "permission_denied",
      message: /stop it/,
      log: ["canUseTool:permission"],
    },
  },
  {
    name: "canUseTool defers with a reason",
    answer: { behavior: "defer", message: "ask the owner" },
    expected: { behavior: "defer", reason: /^ask the owner$/, input: entry, log: ["canUseTool:permission"] },
  },
  {
    name: "canUseTool defers without a reason: the policy's reason",
    answer: { behavior: "defer" },
    expected: { behavior: "defer", reason: /no rule allows ledger/, input: entry, log: ["canUseTool:permission"] },
  },
  {
    name: "canUseTool throws: denied, and the caller is told",
    answer: { throws: "callback crashed" },
    expected: {
      behavior: "deny",
      denial: true,
      message: /Permission check failed: callback crashed/,
      log: ["canUseTool:permission"],
      reported: ["canUseTool"],
    },
  },
  // PreToolUse hooks come before the policy.
  {
    name: "a PreToolUse deny stands over an allow rule, and canUseTool is not asked",
    permissions: allowLedger,
    hooks: [preDecision("deny", { permissionDecisionReason: "frozen" })],
    answer: { behavior: "allow" },
    expected: { behavior: "deny", denial: true, message: /^frozen$/, log: ["PreToolUse"] },
  },
  {
    name: "a PreToolUse deny without a reason",
    hooks: [preDecision("deny")],
    expected: { behavior: "deny", denial: true, message: /^A hook denied ledger\.$/, log: ["PreToolUse"] },
  },
  {
    name: "a PreToolUse allow answers the policy's question: nobody is asked",
    hooks: [preDecision("allow")],
    answer: { behavior: "deny", message: "never asked" },
    expected: { behavior: "allow", input: entry, log: ["PreToolUse"] },
  },
  {
    name: "a PreToolUse ask asks about a call the policy would allow, with the hook's reason",
    tool: lookup,
    input: { key: "k" },
    hooks: [preDecision("ask", { permissionDecisionReason: "sensitive key" })],
    answer: { behavior: "deny", message: "no" },
    expected: {
      behavior: "deny",
      denial: true,
      message: /^no$/,
      log: ["PreToolUse", "canUseTool:permission"],
      told: /^sensitive key$/,
    },
  },
  {
    name: "a PreToolUse ask with no one to ask is denied",
    tool: lookup,
    input: { key: "k" },
    hooks: [preDecision("ask")],
    expected: { behavior: "deny", denial: true, message: /a hook asked for confirmation/, log: ["PreToolUse"] },
  },
  {
    name: "a PreToolUse rewrite is validated and passed on",
    permissions: allowLedger,
    hooks: [preDecision("allow", { updatedInput: { entry: "rewritten" } })],
    expected: { behavior: "allow", input: { entry: "rewritten", times: 1 }, log: ["PreToolUse"] },
  },
  {
    name: "a PreToolUse rewrite without a decision still goes through the policy",
    hooks: [preToolUse({ hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { entry: "y" } } })],
    answer: { behavior: "allow" },
    expected: { behavior: "allow", input: { entry: "y", times: 1 }, log: ["PreToolUse", "canUseTool:permission"] },
  },
  {
    name: "a PreToolUse rewrite the tool rejects: denied, not counted as a denial",
    permissions: allowLedger,
    hooks: [preDecision("allow", { updatedInput: { entry: 5 } })],
    expected: {
      behavior: "deny",
      denial: false,
      message: /changed the input of ledger to one that is not valid/,
      log: ["PreToolUse"],
    },
  },
  {
    name: "a PreToolUse deny stands whatever input another hook rewrote",
    permissions: allowLedger,
    hooks: [
      preDecision("allow", { updatedInput: { entry: "y" } }),
      preDecision("deny", { permissionDecisionReason: "no" }),
    ],
    expected: { behavior: "deny", denial: true, message: /^no$/, log: ["PreToolUse", "PreToolUse"] },
  },
  {
    name: "a PreToolUse continue:false stops the run as hook_stopped",
    permissions: allowLedger,
    hooks: [preToolUse({ continue: false, stopReason: "maintenance window" })],
    expected: {
      behavior: "deny",
      denial: false,
      stop: "hook_stopped",
      message: /^maintenance window$/,
      log: ["PreToolUse"],
    },
  },
  {
    name: 'a failing PreToolUse hook with onFailure "block" denies, whatever another hook allowed, and is reported',
    permissions: allowLedger,
    hooks: [preDecision("allow"), { event: "PreToolUse", throws: "policy service down", onFailure: "block" }],
    answer: { behavior: "allow" },
    expected: {
      behavior: "deny",
      denial: true,
      message: /PreToolUse hook "callback guard" failed: .*policy service down/s,
      log: ["PreToolUse", "PreToolUse"],
      reported: ["PreToolUse"],
    },
  },
  {
    name: "a failing PreToolUse hook under the default onFailure counts for nothing: the allow rule decides",
    permissions: allowLedger,
    hooks: [{ event: "PreToolUse", throws: "policy service down" }],
    answer: { behavior: "deny", message: "never asked" },
    expected: { behavior: "allow", input: entry, log: ["PreToolUse"], reported: ["PreToolUse"] },
  },
  {
    name: 'a failing PreToolUse hook under onFailure "continue" never turns a deny rule into an allow',
    permissions: { deny: ["ledger"] },
    hooks: [{ event: "PreToolUse", throws: "policy service down", onFailure: "continue" }],
    answer: { behavior: "allow" },
    expected: { behavior: "deny", denial: true, message: /denied by/, log: ["PreToolUse"], reported: ["PreToolUse"] },
  },
  {
    name: 'a failing PreToolUse hook under onFailure "continue" approves nothing: canUseTool is still asked',
    hooks: [{ event: "PreToolUse", throws: "policy service down", onFailure: "continue" }],
    answer: { behavior: "deny", message: "not today" },
    expected: {
      behavior: "deny",
      denial: true,
      message: /^not today$/,
      log: ["PreToolUse", "canUseTool:permission"],
      reported: ["PreToolUse"],
    },
  },
  {
    name: "PreToolUse context goes with an allow",
    permissions: allowLedger,
    hooks: [preToolUse({ hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "be brief" } })],
    expected: { behavior: "allow", input: entry, context: ["be brief"], log: ["PreToolUse"] },
  },
  {
    name: "PreToolUse context goes with an allow that canUseTool gave",
    hooks: [preToolUse({ hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "be brief" } })],
    answer: { behavior: "allow" },
    expected: { behavior: "allow", context: ["be brief"], log: ["PreToolUse", "canUseTool:permission"] },
  },
  {
    name: "a PreToolUse system message is reported to the caller",
    permissions: allowLedger,
    hooks: [preToolUse({ systemMessage: "audited" })],
    expected: { behavior: "allow", log: ["PreToolUse"], reported: ["PreToolUse"] },
  },
  // PermissionRequest hooks answer before canUseTool.
  {
    name: "a PermissionRequest allow answers instead of canUseTool",
    hooks: [permissionRequest({ behavior: "allow" })],
    answer: { behavior: "deny", message: "never asked" },
    expected: { behavior: "allow", input: entry, context: [], log: ["PermissionRequest"] },
  },
  {
    name: "a PermissionRequest allow with a changed input, validated",
    hooks: [permissionRequest({ behavior: "allow", updatedInput: { entry: "z" } })],
    expected: { behavior: "allow", input: { entry: "z", times: 1 }, log: ["PermissionRequest"] },
  },
  {
    name: "a PermissionRequest allow with an input the tool rejects: denied",
    hooks: [permissionRequest({ behavior: "allow", updatedInput: { times: "many" } })],
    expected: {
      behavior: "deny",
      denial: false,
      message: /approved input for ledger is not valid/,
      log: ["PermissionRequest"],
    },
  },
  {
    name: "a PermissionRequest deny answers instead of canUseTool",
    hooks: [permissionRequest({ behavior: "deny", message: "ops says no" })],
    answer: { behavior: "allow" },
    expected: { behavior: "deny", denial: true, message: /^ops says no$/, log: ["PermissionRequest"] },
  },
  {
    name: "a PermissionRequest deny without a message",
    hooks: [permissionRequest({ behavior: "deny" })],
    expected: { behavior: "deny", denial: true, message: /^A hook denied ledger\.$/, log: ["PermissionRequest"] },
  },
  {
    name: "a PermissionRequest deny that interrupts stops the run",
    hooks: [permissionRequest({ behavior: "deny", message: "halt", interrupt: true })],
    expected: { behavior: "deny", denial: true, stop: "permission_denied", log: ["PermissionRequest"] },
  },
  {
    name: "a failing PermissionRequest hook voids another's allow and, with no one to ask, denies",
    hooks: [
      permissionRequest({ behavior: "allow" }),
      { event: "PermissionRequest", throws: "approver offline", onFailure: "block" },
    ],
    expected: {
      behavior: "deny",
      denial: true,
      message: /PermissionRequest hook "callback guard" failed: .*approver offline.*cannot approve a call/s,
      log: ["PermissionRequest", "PermissionRequest"],
      reported: ["PermissionRequest"],
    },
  },
  {
    name: "a failing PermissionRequest hook leaves the question to canUseTool, told of the failure",
    hooks: [
      permissionRequest({ behavior: "allow" }),
      { event: "PermissionRequest", throws: "approver offline", onFailure: "block" },
    ],
    answer: { behavior: "deny", message: "not without the approver" },
    expected: {
      behavior: "deny",
      denial: true,
      message: /^not without the approver$/,
      log: ["PermissionRequest", "PermissionRequest", "canUseTool:permission"],
      told: /no rule allows ledger\. PermissionRequest hook "callback guard" failed/,
      reported: ["PermissionRequest"],
    },
  },
  {
    name: 'a failing PermissionRequest hook under onFailure "continue" counts for nothing: another\'s allow answers',
    hooks: [permissionRequest({ behavior: "allow" }), { event: "PermissionRequest", throws: "approver offline" }],
    answer: { behavior: "deny", message: "never asked" },
    expected: {
      behavior: "allow",
      input: entry,
      log: ["PermissionRequest", "PermissionRequest"],
      reported: ["PermissionRequest"],
    },
  },
  {
    name: "PermissionRequest hooks are not run when the policy allows",
    permissions: allowLedger,
    hooks: [permissionRequest({ behavior: "deny" })],
    expected: { behavior: "allow", log: [] },
  },
  {
    name: "PermissionRequest hooks are not run when the policy denies",
    permissions: { deny: ["ledger"] },
    hooks: [permissionRequest({ behavior: "allow" })],
    expected: { behavior: "deny", denial: true, message: /denied by/, log: [] },
  },
  // The whole order.
  {
    name: "undecided hooks: PreToolUse, PermissionRequest, Notification, then canUseTool",
    hooks: [preToolUse({}), { event: "PermissionRequest", output: {} }, { event: "Notification", output: {} }],
    answer: { behavior: "allow" },
    expected: {
      behavior: "allow",
      log: ["PreToolUse", "PermissionRequest", "Notification", "canUseTool:permission"],
    },
  },
  {
    name: "no Notification when there is no canUseTool to wait on",
    hooks: [{ event: "Notification", output: {} }],
    expected: { behavior: "deny", denial: true, log: [] },
  },
  // The doom loop comes first.
  {
    name: "the third identical call asks canUseTool about the repetition first, then the hooks still run",
    permissions: allowLedger,
    hooks: [preToolUse({})],
    doomLoopThreshold: 3,
    before: 2,
    answer: { behavior: "allow" },
    expected: {
      behavior: "allow",
      input: entry,
      log: ["PreToolUse", "PreToolUse", "canUseTool:doom_loop", "PreToolUse"],
      told: /ledger was called with the same input several times in a row/,
    },
  },
  {
    name: "an approved repetition is still denied by a deny rule",
    beforeBehavior: "deny",
    permissions: { deny: ["ledger"] },
    doomLoopThreshold: 3,
    before: 2,
    answer: { behavior: "allow" },
    expected: { behavior: "deny", denial: true, message: /denied by/, log: ["canUseTool:doom_loop"] },
  },
  {
    name: "an approved repetition is still denied by a PreToolUse hook",
    beforeBehavior: "deny",
    permissions: allowLedger,
    hooks: [preDecision("deny", { permissionDecisionReason: "hook says no" })],
    doomLoopThreshold: 3,
    before: 2,
    answer: { behavior: "allow" },
    expected: {
      behavior: "deny",
      denial: true,
      message: /hook says no/,
      log: ["PreToolUse", "PreToolUse", "canUseTool:doom_loop", "PreToolUse"],
    },
  },
  {
    name: "an approved repetition is still denied in plan mode",
    beforeBehavior: "deny",
    permissions: { mode: "plan" },
    doomLoopThreshold: 3,
    before: 2,
    answer: { behavior: "allow" },
    expected: { behavior: "deny", denial: true, message: /plan mode/, log: ["canUseTool:doom_loop"] },
  },
  {
    name: "a PreToolUse hook's ask does not override a deny rule",
    permissions: { deny: ["ledger"] },
    hooks: [preDecision("ask")],
    answer: { behavior: "allow" },
    expected: { behavior: "deny", denial: true, message: /denied by/, log: ["PreToolUse"] },
  },
  {
    name: "a PreToolUse hook's defer pauses the call with its reason and the input that would run",
    permissions: allowLedger,
    hooks: [preDecision("defer", { permissionDecisionReason: "needs a reviewer" })],
    answer: { behavior: "allow" },
    expected: { behavior: "defer", reason: /^needs a reviewer$/, input: entry, log: ["PreToolUse"] },
  },
  {
    name: "a PreToolUse hook's defer does not override a deny rule",
    permissions: { deny: ["ledger"] },
    hooks: [preDecision("defer")],
    expected: { behavior: "deny", denial: true, message: /denied by/, log: ["PreToolUse"] },
  },
  {
    name: "a PreToolUse hook's allow does not override a deny rule",
    permissions: { deny: ["ledger"] },
    hooks: [preDecision("allow")],
    answer: { behavior: "allow" },
    expected: { behavior: "deny", denial: true, message: /denied by/, log: ["PreToolUse"] },
  },
  {
    name: "a repetition that canUseTool denies stops the run as doom_loop",
    permissions: allowLedger,
    doomLoopThreshold: 3,
    before: 2,
    answer: { behavior: "deny", message: "enough" },
    expected: {
      behavior: "deny",
      denial: true,
      stop: "doom_loop",
      message: /^enough The run stops: it was repeating itself\.$/,
      log: ["canUseTool:doom_loop"],
    },
  },
  {
    name: "a repetition with no one to ask stops the run as doom_loop",
    permissions: allowLedger,
    doomLoopThreshold: 3,
    before: 2,
    expected: { behavior: "deny", denial: true, stop: "doom_loop", message: /repeating itself/, log: [] },
  },
  {
    name: "a repetition a PermissionRequest hook denies with interrupt still stops as doom_loop",
    permissions: allowLedger,
    hooks: [permissionRequest({ behavior: "deny", interrupt: true })],
    doomLoopThreshold: 3,
    before: 2,
    expected: { behavior: "deny", denial: true, stop: "doom_loop", log: ["PermissionRequest"] },
  },
  {
    name: "a repetition canUseTool defers waits like any deferred call",
    permissions: allowLedger,
    doomLoopThreshold: 3,
    before: 2,
    answer: { behavior: "defer" },
    expected: { behavior: "defer", reason: /same input several times/, input: entry, log: ["canUseTool:doom_loop"] },
  },
  {
    name: "below the threshold nothing is asked",
    permissions: allowLedger,
    doomLoopThreshold: 3,
    before: 1,
    answer: { behavior: "deny", message: "never asked" },
    expected: { behavior: "allow", log: [] },
  },
];

function hooksFor(specs: HookSpec[], log: string[]): HookCallbacks {
  const hooks: HookCallbacks = {};
  for (const spec of specs) {
    const callback: HookCallback =
      spec.throws === undefined
        ? async () => {
            log.push(spec.event);
            return spec.output;
          }
        : async function guard() {
            log.push(spec.event);
            throw new Error(spec.throws);
          };
    (hooks[spec.event] ??= []).push({ hooks: [callback], ...(spec.onFailure && { onFailure: spec.onFailure }) });
  }
  return hooks;
}

/** canUseTool that answers `answer`, logging each question and keeping what it was told. */
function asker(answer: Answer, log: string[], told: string[]): CanUseTool {
  return async (_name, _input, options) => {
    log.push(`canUseTool:${options.kind}`);
    told.push(options.decisionReason);
    if ("throws" in answer) throw new Error(answer.throws);
    return answer;
  };
}

async function check(h: Harness, tool: AnyTool, input: unknown, id = "call-1") {
  return drain(h.context.gate.check(h.state, tool, { id, name: tool.name, input }, input));
}

describe("ToolGate.check", () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const log: string[] = [];
      const told: string[] = [];
      const h = harness({
        tools: [ledger, lookup],
        permissions: c.permissions,
        hooks: c.hooks ? hooksFor(c.hooks, log) : undefined,
        canUseTool: c.answer ? asker(c.answer, log, told) : undefined,
        doomLoopThreshold: c.doomLoopThreshold,
      });
      const tool = c.tool ?? ledger;
      const input = c.input ?? entry;
      for (let index = 0; index < (c.before ?? 0); index++) {
        const earlier = await check(h, tool, input, `call-before-${index}`);
        expect(earlier.value.behavior).toBe(c.beforeBehavior ?? "allow");
      }
      const { messages, value } = await check(h, tool, input);
      const { expected } = c;
      expect(value.behavior).toBe(expected.behavior);
      expect(log).toEqual(expected.log);
      if (value.behavior === "deny") {
        expect(value.denial).toBe(expected.denial);
        expect(value.stop).toBe(expected.stop);
        if (expected.message) expect(value.message).toMatch(expected.message);
      } else {
        expect(expected.denial).toBeUndefined();
        expect(expected.stop).toBeUndefined();
        if (expected.input !== undefined) expect(value.input).toEqual(expected.input);
      }
      if (value.behavior === "allow" && expected.context) expect(value.context).toEqual(expected.context);
      if (value.behavior === "defer" && expected.reason) expect(value.reason).toMatch(expected.reason);
      if (expected.told) expect(told.at(-1)).toMatch(expected.told);
      expect(reportedEvents(messages)).toEqual(expected.reported ?? []);
    });
  }
});

function reportedEvents(messages: SDKMessage[]): string[] {
  return hookResponses(messages).map((message) => message.hook_event);
}

describe("ToolGate.check beyond the table", () => {
  it("tells canUseTool the call's id, its input and the policy's suggestions", async () => {
    const seen: Parameters<CanUseTool>[] = [];
    const h = harness({
      tools: [ledger],
      canUseTool: async (...args) => {
        seen.push(args);
        return { behavior: "allow" };
      },
    });
    await check(h, ledger, entry, "toolu_42");
    expect(seen).toHaveLength(1);
    const [name, input, options] = seen[0] ?? [];
    expect(name).toBe("ledger");
    expect(input).toEqual(entry);
    expect(options).toMatchObject({
      toolUseID: "toolu_42",
      kind: "permission",
      suggestions: [{ type: "addRules", rules: [{ toolName: "ledger" }], behavior: "allow", destination: "session" }],
    });
    expect(options?.signal).toBe(h.context.signal);
  });

  it("applies an allow's permission updates to the run's policy: the next call is not asked about", async () => {
    let asked = 0;
    const h = harness({
      tools: [ledger],
      canUseTool: async (_name, _input, options) => {
        asked++;
        return { behavior: "allow", updatedPermissions: options.suggestions };
      },
    });
    expect((await check(h, ledger, entry, "call-1")).value.behavior).toBe("allow");
    expect((await check(h, ledger, { entry: "other", times: 1 }, "call-2")).value.behavior).toBe("allow");
    expect(asked).toBe(1);
  });

  it("applies a setMode update to the run's policy", async () => {
    const h = harness({
      tools: [ledger],
      canUseTool: async () => ({
        behavior: "allow",
        updatedPermissions: [{ type: "setMode", mode: "bypassPermissions", destination: "session" }],
      }),
    });
    await check(h, ledger, entry);
    expect(h.state.permissions.mode).toBe("bypassPermissions");
  });

  it("forgets the streak once a person allowed the repetition, and a different call breaks it", async () => {
    const kinds: string[] = [];
    const h = harness({
      tools: [ledger],
      permissions: allowLedger,
      doomLoopThreshold: 2,
      canUseTool: async (_name, _input, options) => {
        kinds.push(options.kind);
        return { behavior: "allow" };
      },
    });
    const other = { entry: "other", times: 1 };
    const sequence = [entry, entry, entry, other, entry, entry];
    for (const [index, input] of sequence.entries()) await check(h, ledger, input, `call-${index}`);
    // Asked on the 2nd (streak 2), then the 3rd starts a new streak of 1; `other` breaks it;
    // the last two make a streak of 2 again.
    expect(kinds).toEqual(["doom_loop", "doom_loop"]);
  });

  it("passes the rewritten input, not the model's, to the policy and canUseTool", async () => {
    const inputs: unknown[] = [];
    const h = harness({
      tools: [ledger],
      hooks: {
        PreToolUse: [
          {
            hooks: [
              async () => ({ hookSpecificOutput: { hookEventName: "PreToolUse", updatedInput: { entry: "safe" } } }),
            ],
          },
        ],
      },
      canUseTool: async (_name, input) => {
        inputs.push(input);
        return { behavior: "allow" };
      },
    });
    const { value } = await check(h, ledger, { entry: "rm everything", times: 1 });
    expect(inputs).toEqual([{ entry: "safe", times: 1 }]);
    expect(value).toMatchObject({ behavior: "allow", input: { entry: "safe", times: 1 } });
  });

  it("reports a failing hook as a stamped hook_response naming it, in the SDK's shape", async () => {
    const h = harness({
      tools: [ledger],
      hooks: {
        PreToolUse: [
          {
            hooks: [
              async function guard() {
                throw new Error("disk full");
              },
            ],
          },
        ],
      },
    });
    const { messages } = await check(h, ledger, entry);
    expect(messages).toEqual([
      {
        type: "system",
        subtype: "hook_response",
        hook_id: expect.stringMatching(/^uuid-\d+$/),
        hook_name: "callback guard",
        hook_event: "PreToolUse",
        output: "Hook callback guard threw: disk full",
        stdout: "",
        stderr: "",
        outcome: "error",
        tool_use_id: "call-1",
        error: { kind: "threw", message: "Hook callback guard threw: disk full", on_failure: "continue" },
        uuid: expect.stringMatching(/^uuid-\d+$/),
        session_id: "session-test",
      },
    ]);
  });
});

describe("ToolGate.answer (a deferred approval answered later)", () => {
  const h = () => harness({ tools: [ledger] });

  it("allows with the stored input, validated", () => {
    const { context, state } = h();
    expect(context.gate.answer(state, ledger, { entry: "x" }, { behavior: "allow" })).toEqual({
      behavior: "allow",
      input: { entry: "x", times: 1 },
      context: [],
      reason: "allowed when asked",
    });
  });

  it("allows with the person's changed input, or denies one the tool rejects", () => {
    const { context, state } = h();
    expect(
      context.gate.answer(state, ledger, entry, { behavior: "allow", updatedInput: { entry: "y" } }),
    ).toMatchObject({
      behavior: "allow",
      input: { entry: "y", times: 1 },
    });
    expect(context.gate.answer(state, ledger, entry, { behavior: "allow", updatedInput: { times: 2 } })).toMatchObject({
      behavior: "deny",
      denial: false,
      message: expect.stringContaining("not valid"),
    });
  });

  it("applies the permission updates of an allow", () => {
    const { context, state } = h();
    context.gate.answer(state, ledger, entry, {
      behavior: "allow",
      updatedPermissions: [
        { type: "addRules", rules: [{ toolName: "ledger" }], behavior: "allow", destination: "session" },
      ],
    });
    const verdict = state.permissions.evaluate({
      toolName: "ledger",
      input: entry,
      sideEffect: "mutating",
      cwd: context.cwd,
    });
    expect(verdict.behavior).toBe("allow");
  });

  it("denies with the person's message, a default, or an interrupt that stops the run", () => {
    const { context, state } = h();
    const deny = (message: string, interrupt?: boolean) =>
      context.gate.answer(state, ledger, entry, { behavior: "deny", message, ...(interrupt && { interrupt }) });
    expect(deny("no")).toEqual({ behavior: "deny", denial: true, message: "no" });
    expect(deny("")).toEqual({ behavior: "deny", denial: true, message: "Permission to use ledger was denied." });
    expect(deny("stop", true)).toEqual({ behavior: "deny", denial: true, message: "stop", stop: "permission_denied" });
  });
});

describe("a PermissionRequest hook's allow", () => {
  it("applies the permission updates it carries, as canUseTool's allow does", async () => {
    const log: string[] = [];
    const h = harness({
      tools: [ledger],
      hooks: hooksFor(
        [
          permissionRequest({
            behavior: "allow",
            updatedPermissions: [
              { type: "setMode", mode: "acceptEdits", destination: "session" },
              { type: "nonsense" },
            ],
          }),
        ],
        log,
      ),
    });
    const { value } = await check(h, ledger, entry);
    expect(value.behavior).toBe("allow");
    expect(h.state.permissions.mode).toBe("acceptEdits");
  });
});

describe("the real path an allow passes on to the tool (FileGuard.approvedPath)", () => {
  const reader = defineTool({
    name: "Read",
    description: "Reads a file.",
    inputSchema: z.object({ file_path: z.string() }),
    readOnly: true,
    execute: () => "",
  });
  const writer = defineTool({
    name: "Write",
    description: "Writes a file.",
    inputSchema: z.object({ file_path: z.string(), content: z.string() }),
    execute: () => "",
  });
  const check = async (h: Harness, tool: AnyTool, input: Record<string, unknown>) =>
    (await drain(h.context.gate.check(h.state, tool, { id: "call-1", name: tool.name, input }, input))).value;

  it("is the path the policy judged, when the input that runs is the one it judged", async () => {
    const h = harness({ tools: [reader] });
    const file = path.join(realpathSync(tmpdir()), "notes.txt");
    expect(await check(h, reader, { file_path: file })).toMatchObject({ behavior: "allow", path: file });
  });

  it("survives an approver's plain allow, and is dropped when the approver changes the input", async () => {
    const file = path.join(realpathSync(tmpdir()), "out.txt");
    const plain = harness({ tools: [writer], canUseTool: async () => ({ behavior: "allow" }) });
    expect(await check(plain, writer, { file_path: file, content: "" })).toMatchObject({ path: file });
    const changed = harness({
      tools: [writer],
      canUseTool: async () => ({ behavior: "allow", updatedInput: { file_path: file, content: "x" } }),
    });
    const decision = await check(changed, writer, { file_path: file, content: "" });
    expect(decision).toMatchObject({ behavior: "allow", input: { content: "x" } });
    expect(decision).not.toHaveProperty("path");
  });
});
