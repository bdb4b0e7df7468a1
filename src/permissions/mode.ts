// The modes are part of the message model (the init message reports one), so they are
// defined once, in protocol.
export { PermissionMode } from "../protocol/index.js";
