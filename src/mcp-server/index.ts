export { type HttpServeOptions, serveHttp } from "./http.js";
export type { ServeConfig } from "./serve-config.js";
export { serveStdio } from "./stdio.js";
