export { AsyncQueue } from "./async-queue.js";
export { ABORTED, untilAborted } from "./until-aborted.js";
