/**
 * State that lives as long as a session and is shared by its tools: which files were read
 * (so Write/Edit can refuse stale overwrites), background shells, the todo list. Each tool
 * module keeps its own entry under a private key; `dispose()` runs when the session ends,
 * so background processes die with it.
 */
export class ToolSession {
  readonly id: string;
  readonly #values = new Map<unknown, unknown>();
  readonly #disposers: Array<() => void | Promise<void>> = [];

  constructor(id: string) {
    this.id = id;
  }

  /** The value under `key`, created with `create()` on first use. */
  get<T>(key: symbol | string, create: () => T): T {
    if (!this.#values.has(key)) this.#values.set(key, create());
    return this.#values.get(key) as T;
  }

  /** Register cleanup to run when the session is disposed (last registered runs first). */
  onDispose(dispose: () => void | Promise<void>): void {
    this.#disposers.push(dispose);
  }

  async dispose(): Promise<void> {
    const disposers = this.#disposers.splice(0).reverse();
    for (const dispose of disposers) {
      try {
        await dispose();
      } catch {
        // Cleanup is best effort; one failing disposer must not keep the others from running.
      }
    }
    this.#values.clear();
  }
}
