import type { FileHandle } from "node:fs/promises";

/**
 * Every byte of an open file, read from its start with positional reads (which leave the file
 * position alone, so the same handle can be read whole more than once). Reads until the end
 * even if the file grew after `sizeHint` was taken.
 */
export async function readWhole(handle: FileHandle, sizeHint: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let position = 0;
  let buffer = Buffer.allocUnsafe(Math.max(sizeHint, 1));
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    position += bytesRead;
    if (bytesRead === buffer.length) buffer = Buffer.allocUnsafe(64 * 1024);
    else buffer = buffer.subarray(bytesRead);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, position);
}
