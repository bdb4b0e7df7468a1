// `node --import ./scripts/ts-register.mjs FILE.ts`: runs TypeScript through scripts/ts-loader.mjs.
import { register } from "node:module";

register("./ts-loader.mjs", import.meta.url);
