export { atomicWriteFile } from "./atomic-write.js";
export { type FolderUse, HeldFolder } from "./held-folder.js";
export { openVerified } from "./open-verified.js";
export { type FileAccessor, pathChangedError } from "./path-changed.js";
export { realTargetOf } from "./real-target.js";
