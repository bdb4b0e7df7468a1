import type { ImageBlock } from "../../protocol/index.js";

export type ImageMediaType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** Raw bytes the providers accept for one image: 5 MB once base64-encoded. */
export const MAX_IMAGE_BYTES = Math.floor((5 * 1024 * 1024 * 3) / 4);

/** The image type announced by a file's first bytes (12 are enough), if it is one we send. */
export function sniffImage(header: Buffer): ImageMediaType | undefined {
  const ascii = (start: number, end: number) => header.subarray(start, end).toString("latin1");
  if (header.length >= 8 && header.readUInt32BE(0) === 0x89504e47 && header.readUInt32BE(4) === 0x0d0a1a0a) {
    return "image/png";
  }
  if (header.length >= 3 && header[0] === 0xff && header[1] === 0xd8 && header[2] === 0xff) return "image/jpeg";
  if (ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a") return "image/gif";
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

/** File extensions the model expects to come back as images. */
export const IMAGE_EXTENSIONS: ReadonlySet<string> = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp"]);

/** An image content block in the Messages API shape. */
export function imageBlock(bytes: Buffer, mediaType: ImageMediaType): ImageBlock {
  return { type: "image", source: { type: "base64", media_type: mediaType, data: bytes.toString("base64") } };
}
