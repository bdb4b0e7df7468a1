import { readFileSync } from "node:fs";

/**
 * The code block that follows `<!-- example: NAME` in a README: the example as a reader
 * copies it. Throws when the marker or its block is missing, so a renamed example fails the
 * tests that run it instead of passing on nothing.
 */
export function readmeExample(path: string, name: string): string {
  const text = readFileSync(path, "utf8");
  const marker = text.indexOf(`<!-- example: ${name}`);
  if (marker < 0) throw new Error(`${path}: no <!-- example: ${name} --> marker`);
  const block = /```ts\n([\s\S]*?)```\n/.exec(text.slice(marker));
  if (!block?.[1]) throw new Error(`${path}: no \`\`\`ts block after the ${name} example marker`);
  return block[1];
}
