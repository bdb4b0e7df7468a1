import type { FetchedPage } from "./fetch-page.js";
import { FetchFailed } from "./fetch-page.js";

const TEXT_TYPES =
  /^(text\/|application\/(json|xml|javascript|ecmascript|x-sh|x-yaml|yaml|toml)\b|application\/[\w.+-]+\+(json|xml)\b)/;
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/;

/**
 * A page as the model reads it: HTML turned into Markdown (node-html-markdown: scripts and
 * styles dropped, links kept), other text as it came. Binary content is refused.
 */
export async function pageText(page: FetchedPage): Promise<string> {
  const type = page.contentType.toLowerCase().trim();
  const text = decode(page.body, type);
  const html = HTML_TYPES.test(type) || (type === "" && /^\s*(<!doctype html|<html)/i.test(text));
  if (html) {
    const { NodeHtmlMarkdown } = await import("node-html-markdown");
    return NodeHtmlMarkdown.translate(text);
  }
  if (TEXT_TYPES.test(type) || (type === "" && !page.body.includes(0))) return text;
  throw new FetchFailed(`${page.url} is ${type} content, which WebFetch does not read (it reads HTML and text).`);
}

function decode(body: Buffer, contentType: string): string {
  const charset = /charset="?([\w-]+)"?/.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}
