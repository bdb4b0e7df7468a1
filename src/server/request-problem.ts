import type { z } from "zod";
import { RequestError } from "./errors.js";

/**
 * What a body's validation reports in place of zod's own wording: every problem is told in the
 * server's words from the issue's facts (see {@link refusalOf}); a message the schema itself
 * gives (a name's pattern, an unsupported field's reason) is kept.
 */
const UNWORDED = "\u0000unworded";

/** Options of `safeParse` for a request body: the offending value kept, zod's messages left out. */
export const PARSE_OPTIONS = { reportInput: true, error: () => UNWORDED } as const;

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

/** The 400 for a body that failed validation: its first problem, where it really is, as OpenAI words it. */
export function refusalOf(error: z.ZodError): RequestError {
  const first = error.issues[0];
  if (!first) return new RequestError(400, "The request body is not valid.", "invalid_value", null, error);
  const { issue, path } = deepest(first, []);
  const { message, code, param } = describe(issue, path);
  return new RequestError(400, message, code, param, error);
}

interface Problem {
  message: string;
  code: string;
  param: string | null;
}

function describe(issue: Issue, path: Path): Problem {
  const param = paramOf(path);
  const where = param === null ? "the request body" : `'${param}'`;
  if (issue.code === "unrecognized_keys") {
    const params = issue.keys.map((key) => paramOf([...path, key]) ?? key);
    const listed = params.map((name) => `'${name}'`).join(", ");
    const message = params.length === 1 ? `Unknown parameter: ${listed}.` : `Unknown parameters: ${listed}.`;
    return { message, code: "unknown_parameter", param: params[0] ?? param };
  }
  const value = offered(issue);
  if (value.missing)
    return { message: `Missing required parameter: ${where}.`, code: "missing_required_parameter", param };
  if (issue.message !== UNWORDED) {
    const code = wireCodeOf(issue) ?? "invalid_value";
    const lead = code === "unsupported_parameter" ? "Unsupported parameter" : "Invalid value for";
    return { message: `${lead} ${where}: ${issue.message}.`, code, param };
  }
  const expected = expectedForms(issue);
  if (expected?.typesOnly)
    return {
      message: `Invalid type for ${where}: expected ${expected.text}, but got ${kindOf(value.input)} instead.`,
      code: "invalid_type",
      param,
    };
  if (expected)
    return {
      message: `Invalid value for ${where}: expected ${expected.text}, but got ${shown(value.input)} instead.`,
      code: "invalid_value",
      param,
    };
  const supported = valueIssue(issue);
  if (supported) {
    const listed = supported.values.map(shown).join(", ");
    return {
      message: `Invalid value for ${where}: ${shown(supported.input)}. Supported values are: ${listed}.`,
      code: "invalid_value",
      param,
    };
  }
  if (issue.code === "invalid_key") {
    // The path ends with the key itself: the parameter is the object that holds it.
    const holder = paramOf(path.slice(0, -1));
    const inner = issue.issues[0];
    const bound = inner && expectation(inner);
    const reason = bound ? `: expected a key of ${bound}, but got ${shown(inner.input)}` : "";
    return { message: `Invalid key in '${holder ?? "body"}'${reason}.`, code: "invalid_value", param: holder };
  }
  const bound = expectation(issue);
  const message = bound
    ? `Invalid value for ${where}: expected ${bound}, but got ${shown(value.input)} instead.`
    : `Invalid value for ${where}: it matches none of the accepted forms.`;
  return { message, code: "invalid_value", param };
}

/** The value the client sent where the issue is, and whether it sent none. */
function offered(issue: Issue): { input: unknown; missing: boolean } {
  const values = valueIssue(issue);
  if (values) return { input: values.input, missing: values.input === undefined };
  const missing = issue.code === "invalid_type" && issue.input === undefined;
  return { input: issue.input, missing };
}

/** A wire code the schema attached to its own message (`params: { code }`). */
function wireCodeOf(issue: Issue): string | undefined {
  const code = issue.code === "custom" ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
  return typeof code === "string" ? code : undefined;
}

/**
 * What a wrong type, or a union refused on the spot, expected: "a string or an array",
 * "'auto', 'none', 'required' or an object"; `typesOnly` when no value would have done.
 */
function expectedForms(issue: Issue): { text: string; typesOnly: boolean } | undefined {
  if (issue.code === "invalid_type") return { text: typeName(issue.expected), typesOnly: true };
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return undefined;
  const forms: string[] = [];
  let typesOnly = true;
  for (const branch of issue.errors) {
    const first = branch[0];
    if (!first || first.path.length > 0) return undefined;
    if (first.code === "invalid_type") forms.push(typeName(first.expected));
    else if (first.code === "invalid_value") {
      forms.push(...first.values.map(shown));
      typesOnly = false;
    } else return undefined;
  }
  return { text: oneOf([...new Set(forms)]), typesOnly };
}

/** "a, b or c". */
function oneOf(forms: readonly string[]): string {
  return forms.length <= 2 ? forms.join(" or ") : `${forms.slice(0, -1).join(", ")} or ${forms.at(-1)}`;
}

function typeName(expected: string): string {
  return TYPE_NAMES[expected] ?? expected;
}

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "a boolean",
  object: "an object",
  record: "an object",
  array: "an array",
  null: "null",
};

/** The values an enum, a literal or a union's discriminator takes, and the one that came. */
function valueIssue(issue: Issue): { values: readonly unknown[]; input: unknown } | undefined {
  if (issue.code === "invalid_value") return { values: issue.values, input: issue.input };
  if (issue.code === "invalid_union" && "discriminator" in issue && typeof issue.discriminator === "string") {
    const options = (issue as { options?: unknown[] }).options ?? [];
    const input = issue.input as Record<string, unknown> | undefined;
    return { values: options, input: input?.[issue.discriminator] };
  }
  return undefined;
}

/** What a size, range or format check wanted: "at most 2", "at least 1 character", "an http or https URL". */
function expectation(issue: Issue): string | undefined {
  switch (issue.code) {
    case "too_big":
      return `${issue.inclusive === false ? "less than" : "at most"} ${counted(issue.maximum, issue.origin)}`;
    case "too_small":
      if (issue.origin === "string" && Number(issue.minimum) === 1) return "a non-empty string";
      return `${issue.inclusive === false ? "more than" : "at least"} ${counted(issue.minimum, issue.origin)}`;
    case "not_multiple_of":
      return `a multiple of ${String(issue.divisor)}`;
    case "invalid_format":
      if (issue.format === "url") return "an http or https URL";
      if (issue.format === "regex" && "pattern" in issue) return `text matching ${String(issue.pattern)}`;
      return `a valid ${issue.format}`;
    default:
      return undefined;
  }
}

/** "2", "64 characters", "1 item". */
function counted(bound: number | bigint, origin: string): string {
  const noun = origin === "string" ? "character" : origin === "array" || origin === "set" ? "item" : undefined;
  if (noun === undefined) return String(bound);
  return `${String(bound)} ${noun}${Number(bound) === 1 ? "" : "s"}`;
}

/** A value as a message quotes it: a string in quotes (cut at 60), a number as is, else its kind. */
function shown(value: unknown): string {
  if (typeof value === "string") return `'${value.length > 60 ? `${value.slice(0, 60)}…` : value}'`;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return kindOf(value);
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a number";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/**
 * Where a union's failure really is: the branch whose problem lies deepest (an `input` array
 * whose item's content part has an unknown type is `input[0].content[0].type`, not `input`).
 * Branches that all refuse the same field's value (an item's `type`) are one problem, with
 * every value they take.
 */
function deepest(issue: Issue, prefix: Path): { issue: Issue; path: PropertyKey[] } {
  const path = [...prefix, ...issue.path];
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return { issue, path };
  const candidates = issue.errors.flatMap((branch) => (branch[0] ? [deepest(branch[0], path)] : []));
  const depth = Math.max(...candidates.map((candidate) => candidate.path.length));
  if (depth <= path.length) return { issue, path };
  const deepestOnes = candidates.filter((candidate) => candidate.path.length === depth);
  const first = deepestOnes[0]!;
  const merged = mergedValues(deepestOnes);
  return merged ? { issue: merged, path: first.path } : first;
}

/** One `invalid_value` issue for branches that each refuse the same field's value, or undefined. */
function mergedValues(candidates: ReadonlyArray<{ issue: Issue; path: PropertyKey[] }>): Issue | undefined {
  if (candidates.length < 2) return undefined;
  const key = JSON.stringify(candidates[0]!.path.map(String));
  const values = new Set<unknown>();
  let input: unknown;
  for (const candidate of candidates) {
    const found = valueIssue(candidate.issue);
    if (!found || JSON.stringify(candidate.path.map(String)) !== key) return undefined;
    for (const value of found.values) values.add(value);
    input = found.input;
  }
  const merged: z.core.$ZodIssueInvalidValue = {
    code: "invalid_value",
    values: [...values] as z.core.util.Primitive[],
    input,
    path: [],
    message: UNWORDED,
  };
  return merged;
}

/** `input[0].content[1].type`, as OpenAI names a parameter; null for the body itself. */
function paramOf(path: Path): string | null {
  if (path.length === 0) return null;
  return path
    .map((key, index) => (typeof key === "number" ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`))
    .join("");
}
