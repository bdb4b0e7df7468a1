import type { Key } from "ink";
import { PASTE_END, PASTE_START } from "./paste.js";

/**
 * A one-line answer being typed (a question's free text, a form field): the text after `input`,
 * or undefined when the key is not an edit. Pasted line ends become spaces.
 */
export function editLine(text: string, input: string, key: Key): string | undefined {
  if (key.backspace || key.delete) return text.slice(0, -1);
  if (input === PASTE_START || input === PASTE_END) return text;
  if (key.ctrl || key.meta || key.return || key.escape || key.tab || !input) return undefined;
  if (key.upArrow || key.downArrow || key.leftArrow || key.rightArrow) return undefined;
  return text + input.replace(/[\r\n]+/g, " ");
}
