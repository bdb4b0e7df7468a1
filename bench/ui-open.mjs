// What test/ui.test.ts and bench/ui.bench.mjs share: a long session written straight into a store,
// and the script time a page spends, measured in the browser (types in ui-open.d.mts).

/**
 * `turns` model turns of `callsPerTurn` Read calls each, with their results (what a long agent
 * run leaves; the page must open it quickly), as SDKMessages for `store.createSession`.
 */
export function largeSession(sessionId, cwd, turns, callsPerTurn) {
  const usage = {
    input_tokens: 1200,
    output_tokens: 300,
    cache_read_input_tokens: 800,
    cache_creation_input_tokens: 0,
  };
  let n = 0;
  const uuid = () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
  const base = { session_id: sessionId };
  const messages = [
    {
      type: "system",
      subtype: "init",
      uuid: uuid(),
      ...base,
      apiKeySource: "none",
      claude_code_version: "2.0.0",
      cwd,
      tools: ["Read"],
      mcp_servers: [],
      model: "claude-sonnet-4-5",
      permissionMode: "default",
      slash_commands: [],
      output_style: "default",
      skills: [],
      plugins: [],
      gyre_version: "0.0.0",
    },
    {
      type: "user",
      uuid: uuid(),
      ...base,
      message: { role: "user", content: "Read every file of the project, five at a time." },
      parent_tool_use_id: null,
    },
  ];
  for (let turn = 0; turn < turns; turn++) {
    const calls = Array.from({ length: callsPerTurn }, (_, k) => ({
      type: "tool_use",
      id: `toolu_${turn}_${k}`,
      name: "Read",
      input: { file_path: `${cwd}/src/file-${turn}-${k}.ts` },
    }));
    messages.push({
      type: "assistant",
      uuid: uuid(),
      ...base,
      parent_tool_use_id: null,
      cost_usd: 0.0123,
      message: {
        id: `msg_${turn}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text: `Turn ${turn + 1}: reading **five** more files with \`Read\`.` }, ...calls],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage,
      },
    });
    messages.push({
      type: "user",
      uuid: uuid(),
      ...base,
      isSynthetic: true,
      parent_tool_use_id: null,
      message: {
        role: "user",
        content: calls.map((call) => ({
          type: "tool_result",
          tool_use_id: call.id,
          content: `export const value = ${JSON.stringify(call.id)};\n`.repeat(20),
        })),
      },
    });
  }
  return messages;
}

/**
 * Time the page spent running JavaScript (garbage collection included) while `work` ran, from
 * V8's sampling profiler (CDP Profiler, 100 µs samples): every sample that is neither idle nor
 * the browser's own work. (Chromium's `ScriptDuration` metric misses most of a page's script in
 * headless mode.) Also Chromium's `TaskDuration` (main-thread busy time: script, style, layout)
 * over the same span.
 */
export async function measureScript(cdp, work) {
  const taskSeconds = async () =>
    (await cdp.send("Performance.getMetrics")).metrics.find((metric) => metric.name === "TaskDuration")?.value ?? 0;
  await cdp.send("Performance.enable");
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
  const tasksBefore = await taskSeconds();
  await cdp.send("Profiler.start");
  await work();
  const { profile } = await cdp.send("Profiler.stop");
  const tasksAfter = await taskSeconds();
  const names = new Map(profile.nodes.map((node) => [node.id, node.callFrame.functionName]));
  let micros = 0;
  profile.samples.forEach((sample, index) => {
    const name = names.get(sample);
    if (name !== "(idle)" && name !== "(program)") micros += profile.timeDeltas[index] ?? 0;
  });
  return { scriptMs: micros / 1000, mainThreadMs: (tasksAfter - tasksBefore) * 1000 };
}

/**
 * Opens session `id` in `page` (already on the page, with its cookie) by its address, and
 * measures until its `turns` turns are rendered.
 */
export async function openLargeSession(page, id, turns) {
  const cdp = await page.context().newCDPSession(page);
  let openedMs = 0;
  const measured = await measureScript(cdp, async () => {
    const started = await page.evaluate(() => performance.now());
    await page.evaluate(`location.hash = "#/s/${id}"`);
    await page.waitForFunction(
      (count) => globalThis.document.querySelectorAll("[data-testid=turn]").length === count,
      turns,
      { timeout: 60_000 },
    );
    openedMs = (await page.evaluate(() => performance.now())) - started;
  });
  return { ...measured, openedMs };
}
