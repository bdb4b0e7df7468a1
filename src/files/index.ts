export { atomicWriteFile, type AtomicWriteOptions, tempFileName } from "./atomic-write.js";
