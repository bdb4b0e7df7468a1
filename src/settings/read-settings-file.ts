import { readFile } from "node:fs/promises";
import { errorMessage, GyreError } from "../errors/index.js";
import { SettingsFile } from "./schema.js";

/**
 * Read and validate one settings file. A missing file is `undefined`; unreadable files,
 * malformed JSON and invalid shapes are `config_error`s that name the file.
 */
export async function readSettingsFile(file: string): Promise<SettingsFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new GyreError("config_error", `Cannot read settings file ${file}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  return parseSettingsText(text, file);
}

/** Parse settings JSON; `file` is named in every error. */
export function parseSettingsText(text: string, file: string): SettingsFile {
  let json: unknown;
  try {
    json = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    throw new GyreError("config_error", `Settings file ${file} is not valid JSON: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  return parseSettingsValue(json, file);
}

/** Validate parsed settings JSON; `file` names where it came from in every error. */
export function parseSettingsValue(json: unknown, file: string): SettingsFile {
  const parsed = SettingsFile.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`)
      .join("; ");
    throw new GyreError("config_error", `Settings file ${file} is invalid: ${issues}`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}
