/**
 * On Node 24, V8 collecting a better-sqlite3 object (a Database or a Statement, both
 * `node::ObjectWrap`s) outside a JavaScript context — as an allocation-triggered GC can —
 * aborts the whole process: the wrapper's destructor asks for the current Environment and
 * asserts that there is one (better-sqlite3 12; its 13.x needs Node >= 22, and we support
 * Node 20). So on Node >= 24 every such object the stores create stays reachable for the
 * life of the process and is never collected. The price is the JavaScript wrappers of closed
 * stores (a few KB per store opened); their SQLite handles are released on close as before.
 */
const keptAlive: unknown[] = [];

const COLLECTING_CRASHES = Number(process.versions.node.split(".")[0]) >= 24;

/** `value`, kept reachable for the rest of the process where collecting it would crash it. */
export function keepAlive<T>(value: T): T {
  if (COLLECTING_CRASHES) keptAlive.push(value);
  return value;
}
