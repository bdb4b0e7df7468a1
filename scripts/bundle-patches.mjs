// Changes the CLI's bundles make to third-party code (scripts/bundle-cli.mjs), apart so that
// test/bundle-patches.test.ts can check that each still finds the code it changes.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/**
 * Changes to the AI SDK's provider-utils (every copy of it): each patch returns the source
 * changed, or undefined when provider-utils no longer has the code it changes; then the build
 * warns and leaves that code as it is. One plugin applies them all, as esbuild loads a file
 * through the first plugin that answers for it.
 */
export function patchedProviderUtils(patches) {
  return {
    name: "patched-provider-utils",
    setup(build) {
      build.onLoad({ filter: /[\\/]@ai-sdk[\\/]provider-utils[\\/]dist[\\/]index\.mjs$/ }, async (args) => {
        let contents = await readFile(args.path, "utf8");
        const warnings = [];
        for (const patch of patches) {
          const patched = patch.apply(contents);
          if (patched === undefined) warnings.push({ text: `provider-utils: ${patch.missing}` });
          else contents = patched;
        }
        return { contents, loader: "js", warnings };
      });
    },
  };
}

/**
 * provider-utils build every request's headers through a fetch `Headers` object
 * (`withUserAgentSuffix`), and test `instanceof Headers` (`normalizeHeaders`): either makes Node
 * load its undici (~15 ms at start) though the CLI's model requests go through node:http
 * (src/net/node-fetch.ts). The same work is done on a plain object: names lower-cased, the
 * user agent's suffix appended.
 */
export const headersWithoutUndici = {
  missing: "no longer builds headers as expected",
  apply(source) {
    const suffix =
      /function withUserAgentSuffix\(headers, \.\.\.userAgentSuffixParts\) \{[^}]*?new Headers\(normalizeHeaders\(headers\)\)[\s\S]*?return Object\.fromEntries\(normalizedHeaders\.entries\(\)\);\s*\}/;
    const check = "headers instanceof Headers";
    if (!suffix.test(source) || !source.includes(check)) return undefined;
    const plain =
      "function withUserAgentSuffix(headers, ...userAgentSuffixParts) {\n" +
      "  const normalizedHeaders = normalizeHeaders(headers);\n" +
      '  normalizedHeaders["user-agent"] = [normalizedHeaders["user-agent"] || "", ...userAgentSuffixParts].filter(Boolean).join(" ");\n' +
      "  return normalizedHeaders;\n" +
      "}";
    const headersObject =
      '(typeof headers === "object" && typeof headers.forEach === "function" && typeof headers.get === "function" && typeof headers.append === "function")';
    return source.replace(suffix, plain).replaceAll(check, headersObject);
  },
};

/**
 * provider-utils read a streamed reply through three web streams (`parseJsonEventStream`:
 * TextDecoderStream, EventSourceParserStream, a TransformStream parsing each event); the
 * bundles read it through one that does the same (src/model/ai-sdk/json-event-stream.ts).
 */
export const jsonEventStreamInOneStage = {
  missing: "no longer reads event streams as expected",
  apply(source) {
    const threeStages =
      /function parseJsonEventStream\(\{\s*stream,\s*schema\s*\}\) \{\s*return stream\.pipeThrough\(new TextDecoderStream\(\)\)\.pipeThrough\(new EventSourceParserStream\(\)\)\.pipeThrough\(\s*new TransformStream\(\{\s*async transform\(\{ data \}, controller\) \{\s*if \(data === "\[DONE\]"\) \{\s*return;\s*\}\s*controller\.enqueue\(await safeParseJSON\(\{ text: data, schema \}\)\);\s*\}\s*\}\)\s*\);\s*\}/;
    if (!threeStages.test(source)) return undefined;
    const oneStage =
      "function parseJsonEventStream({ stream, schema }) {\n" +
      "  return stream.pipeThrough(__gyreJsonEventStream((text) => safeParseJSON({ text, schema })));\n" +
      "}";
    const module = JSON.stringify(fileURLToPath(new URL("../src/model/ai-sdk/json-event-stream.ts", import.meta.url)));
    return `import { jsonEventStream as __gyreJsonEventStream } from ${module};\n${source.replace(threeStages, oneStage)}`;
  },
};
