import type { CompiledRule } from "./compiled-rule.js";
import { mergePathPatterns, type PathPattern } from "./path-pattern.js";
import { ruleAppliesTo } from "./tool-kinds.js";
import type { RuleBehavior } from "./types.js";

type Rules = Readonly<Record<RuleBehavior, readonly CompiledRule[]>>;

/**
 * The path patterns of the deny and ask rules that apply to a tool, merged by base
 * (`mergePathPatterns`), kept per tool until the rules change: `PermissionPolicy.mayRead` runs
 * for every file a search reports. A change is seen by the identity and length of the rule
 * lists, which every way of changing them alters (rules are added by pushing, removed or
 * replaced by a new list), also when a narrowed view of the policy shares them.
 */
export class ReadBlockers {
  #deny: readonly CompiledRule[] | undefined;
  #denyLength = 0;
  #ask: readonly CompiledRule[] | undefined;
  #askLength = 0;
  readonly #byTool = new Map<string, PathPattern[]>();

  /** The merged patterns of `rules`' deny and ask rules that apply to `toolName`. */
  patterns(rules: Rules, toolName: string): PathPattern[] {
    const { deny, ask } = rules;
    if (
      deny !== this.#deny ||
      deny.length !== this.#denyLength ||
      ask !== this.#ask ||
      ask.length !== this.#askLength
    ) {
      this.#byTool.clear();
      this.#deny = deny;
      this.#denyLength = deny.length;
      this.#ask = ask;
      this.#askLength = ask.length;
    }
    let patterns = this.#byTool.get(toolName);
    if (patterns === undefined) {
      const applying = [...deny, ...ask].flatMap((rule) =>
        rule.path !== undefined && ruleAppliesTo(rule.toolName, toolName) ? [rule.path] : [],
      );
      patterns = mergePathPatterns(applying);
      this.#byTool.set(toolName, patterns);
    }
    return patterns;
  }
}
