export { atomicWriteFile } from "./atomic-write.js";
