import type { SandboxViolation, SandboxWatch } from "../tools/builtin/index.js";

/** What a watch asks of its sandbox. */
export interface WatchedSandbox {
  /** Protected files (`.mcp.json`, …) missing now: a command must not create them. */
  missingFiles(): string[];
  /** Undo what sandboxed commands set up in the workspace, the `missing` files created included; what was undone. */
  settle(missing: readonly string[]): SandboxViolation[];
  /** What the output (of a command run in `cwd`) and the proxy show blocked since `from`, the proxy's refusal count; the count now. */
  blocked(output: string, from: number, cwd: string): { violations: SandboxViolation[]; to: number };
  /** The proxy's refusal count now. */
  blockedCount(): number;
  /** The command ended (its watch is kept while found violations wait for a report). */
  ended(watch: CommandWatch): void;
  /** Found violations wait for a report (or the close) / no longer do. */
  holding(watch: CommandWatch, held: boolean): void;
}

/** One command's watch (see SandboxWatch): the workspace checked after it ends, and whenever it is reported on. */
export class CommandWatch implements SandboxWatch {
  readonly #sandbox: WatchedSandbox;
  readonly #cwd: string;
  #from: number;
  #missing: string[];
  #running = true;
  #held: SandboxViolation[] = [];

  constructor(sandbox: WatchedSandbox, cwd: string) {
    this.#sandbox = sandbox;
    this.#cwd = cwd;
    this.#from = sandbox.blockedCount();
    this.#missing = sandbox.missingFiles();
  }

  end(): void {
    if (!this.#running) return;
    this.#running = false;
    this.#held.push(...this.#sandbox.settle(this.#missing));
    this.#sandbox.holding(this, this.#held.length > 0);
    this.#sandbox.ended(this);
  }

  report(output: string): SandboxViolation[] {
    const settled = this.#running ? this.#sandbox.settle(this.#missing) : [];
    if (this.#running) this.#missing = this.#sandbox.missingFiles();
    const { violations, to } = this.#sandbox.blocked(output, this.#from, this.#cwd);
    this.#from = to;
    const found = [...this.#held, ...settled, ...violations];
    this.#held = [];
    this.#sandbox.holding(this, false);
    return found;
  }

  finish(output: string): SandboxViolation[] {
    this.end();
    return this.report(output);
  }

  /** What was found after the command ended and never reported: the sandbox's close reports it. */
  takeHeld(): SandboxViolation[] {
    const held = this.#held;
    this.#held = [];
    return held;
  }
}
