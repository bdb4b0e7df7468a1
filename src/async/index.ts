export { AsyncQueue } from "./async-queue.js";
export { Slots } from "./slots.js";
export { ABORTED, untilAborted } from "./until-aborted.js";
export { systemTimers, type Timers } from "./timers.js";
