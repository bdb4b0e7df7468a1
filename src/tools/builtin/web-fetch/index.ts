export {
  type PageAnswerer,
  WebFetchInput,
  type WebFetchOutput,
  type WebFetchToolOptions,
  webFetchTool,
} from "./web-fetch-tool.js";
export { WebFetchSettings } from "./web-fetch-settings.js";
