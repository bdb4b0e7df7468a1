/** How the Grep tool searches: the backend and the `rg` it runs. */
export interface GrepToolOptions {
  /**
   * `auto` (default) uses ripgrep when `rg` is on `PATH` and the JavaScript search
   * otherwise; `ripgrep` fails when `rg` is missing; `js` never runs `rg`.
   */
  backend?: "auto" | "ripgrep" | "js";
  /** The `rg` executable to run instead of looking it up on `PATH`. */
  ripgrepPath?: string;
}
