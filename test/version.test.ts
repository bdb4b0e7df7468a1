import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { GYRE_VERSION } from "../src/version.js";

it("src/version.ts holds package.json's version (npm run build writes it)", () => {
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  expect(GYRE_VERSION).toBe(version);
});
