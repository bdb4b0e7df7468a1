import { isUtf8 } from "node:buffer";

/**
 * How a text file's bytes map to characters. `latin1` means single-byte Western text,
 * decoded as Windows-1252 (the superset browsers use for "latin1"): every byte maps to
 * exactly one character and back, so a file round-trips byte for byte through Edit.
 */
export type TextEncodingName = "utf8" | "utf16le" | "latin1";

export interface TextFormat {
  encoding: TextEncodingName;
  /** Whether the file starts with a byte order mark (kept when the file is written back). */
  bom: boolean;
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const UTF16LE_BOM = Buffer.from([0xff, 0xfe]);

/**
 * Work out the format of a file from its first bytes. `complete` says whether `sample` is
 * the whole file; when it is not, a multi-byte character cut at the sample's end is fine.
 */
export function detectTextFormat(sample: Buffer, complete: boolean): TextFormat {
  if (startsWith(sample, UTF8_BOM)) return { encoding: "utf8", bom: true };
  if (startsWith(sample, UTF16LE_BOM)) return { encoding: "utf16le", bom: true };
  const body = complete ? sample : sample.subarray(0, sample.length - incompleteTail(sample));
  return { encoding: isUtf8(body) ? "utf8" : "latin1", bom: false };
}

/** Length of the BOM for `format`, in bytes. */
export function bomLength(format: TextFormat): number {
  if (!format.bom) return 0;
  return format.encoding === "utf16le" ? UTF16LE_BOM.length : UTF8_BOM.length;
}

/**
 * Whether a sample looks like binary data rather than text: a NUL byte, or many control
 * characters other than the usual whitespace and escape. UTF-16 (known by its BOM) is text.
 */
export function looksBinary(sample: Buffer, format: TextFormat): boolean {
  if (format.encoding === "utf16le") return false;
  if (sample.includes(0)) return true;
  let control = 0;
  for (const byte of sample) {
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c && byte !== 0x1b) {
      control++;
    }
  }
  return sample.length > 0 && control / sample.length > 0.1;
}

/** Decode bytes (without BOM) as `encoding`. UTF-8 bytes that are not valid fall back to latin1. */
export function decodeText(bytes: Buffer, encoding: TextEncodingName): string {
  if (encoding === "utf16le") return bytes.toString("utf16le");
  if (encoding === "utf8" && isUtf8(bytes)) return bytes.toString("utf8");
  return windows1252().decode(bytes);
}

/** Decode a whole file's bytes, BOM removed. */
export function decodeFile(bytes: Buffer, format: TextFormat): string {
  return decodeText(bytes.subarray(bomLength(format)), format.encoding);
}

/**
 * Encode text in `format`, BOM included. Returns the first character that the encoding
 * cannot represent instead of silently replacing it.
 */
export function encodeFile(
  text: string,
  format: TextFormat,
): { ok: true; bytes: Buffer } | { ok: false; character: string } {
  if (format.encoding === "utf8") {
    const body = Buffer.from(text, "utf8");
    return { ok: true, bytes: format.bom ? Buffer.concat([UTF8_BOM, body]) : body };
  }
  if (format.encoding === "utf16le") {
    const body = Buffer.from(text, "utf16le");
    return { ok: true, bytes: format.bom ? Buffer.concat([UTF16LE_BOM, body]) : body };
  }
  const { encoder } = windows1252();
  const bytes = Buffer.alloc(text.length);
  for (let i = 0; i < text.length; i++) {
    const byte = encoder.get(text.charCodeAt(i));
    if (byte === undefined) return { ok: false, character: String.fromCodePoint(text.codePointAt(i)!) };
    bytes[i] = byte;
  }
  return { ok: true, bytes };
}

/** A human name for the format, for messages. */
export function describeFormat(format: TextFormat): string {
  const name = { utf8: "UTF-8", utf16le: "UTF-16LE", latin1: "Latin-1 (Windows-1252)" }[format.encoding];
  return format.bom ? `${name} with BOM` : name;
}

/**
 * Windows-1252's characters for bytes 0x80-0x9F (the rest of its bytes are Latin-1's).
 * The five bytes it leaves undefined keep their C1 control character, as browsers do, so
 * every byte still maps to a distinct character. Spelled out because Node's TextDecoder
 * treats "windows-1252" as plain Latin-1.
 */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

let cp1252: { decode: (bytes: Buffer) => string; encoder: Map<number, number> } | undefined;

/** Windows-1252 both ways; the encoder is the decoding table reversed, built on first use. */
function windows1252(): { decode: (bytes: Buffer) => string; encoder: Map<number, number> } {
  if (!cp1252) {
    const encoder = new Map<number, number>();
    for (let byte = 0; byte < 256; byte++) {
      encoder.set(byte >= 0x80 && byte < 0xa0 ? CP1252_HIGH[byte - 0x80]! : byte, byte);
    }
    const decode = (bytes: Buffer) =>
      bytes
        .toString("latin1")
        .replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(CP1252_HIGH[c.charCodeAt(0) - 0x80]!));
    cp1252 = { decode, encoder };
  }
  return cp1252;
}

function startsWith(buffer: Buffer, prefix: Buffer): boolean {
  return buffer.length >= prefix.length && buffer.subarray(0, prefix.length).equals(prefix);
}

/** `bytes` without a UTF-8 character cut short at its end (for text cut at a byte limit). */
export function trimIncompleteUtf8(bytes: Buffer): Buffer {
  return bytes.subarray(0, bytes.length - incompleteTail(bytes));
}

/** How many bytes at the end of `bytes` are the start of a UTF-8 character cut short. */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? back : 0;
  }
  return 0;
}
