import { GyreError } from "../errors/index.js";
import { PermissionMode } from "../protocol/index.js";

/** What a running loop lets `Query` change while it runs. */
export interface ControlTarget {
  setPermissionMode(mode: PermissionMode): void;
  switchModel(spec: string | undefined): Promise<void>;
  compact(request: { instructions?: string }): void;
}

/**
 * The bridge from `Query.setPermissionMode` / `Query.setModel` / `Query.compact` to the run: changes made
 * before the run is set up wait and are applied, in order, once it is; later ones apply at
 * once and take effect from the next tool call or model call.
 */
export class RunControls {
  #target: ControlTarget | undefined;
  #queued: Array<(target: ControlTarget) => Promise<void>> = [];

  async setPermissionMode(mode: PermissionMode): Promise<void> {
    const parsed = PermissionMode.safeParse(mode);
    if (!parsed.success) {
      throw new GyreError(
        "config_error",
        `Unknown permission mode "${String(mode)}". Modes: ${PermissionMode.options.join(", ")}.`,
      );
    }
    await this.#apply(async (target) => target.setPermissionMode(parsed.data));
  }

  async setModel(model?: string): Promise<void> {
    await this.#apply((target) => target.switchModel(model));
  }

  /** A manual compaction before the next model call (or the first one, when asked before the run is set up). */
  compact(instructions?: string): void {
    const request = instructions === undefined ? {} : { instructions };
    void this.#apply(async (target) => target.compact(request));
  }

  /** Called once the run is set up: queued changes apply now, in the order they were made. */
  async attach(target: ControlTarget): Promise<void> {
    this.#target = target;
    for (const change of this.#queued.splice(0)) await change(target);
  }

  async #apply(change: (target: ControlTarget) => Promise<void>): Promise<void> {
    if (this.#target) return change(this.#target);
    // Not set up yet: the change waits; an invalid model then fails the run's setup instead.
    this.#queued.push(change);
  }
}
