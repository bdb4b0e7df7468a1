import { relative } from "node:path";
import { errorMessage } from "../errors/index.js";
import type { QueryOptions } from "../run/index.js";
import { findTrustedFolder, type IgnoredProjectSettings, trustFolder, trustStorePath } from "../settings/index.js";
import type { AgentSession } from "./agent-session.js";
import { summarizeOffer, type TrustOffer, trustOfferFor } from "./trust-offer.js";
import type { TrustAnswer, TrustQuestion } from "./trust-prompt.js";
import type { TuiStore } from "./tui-store.js";

/** What {@link ProjectTrust} reaches of the terminal agent. */
export interface ProjectTrustHost {
  cwd: string;
  /**
   * Home of the user's files; defaults to the OS home. Given (tests), the trust record is its
   * `.gyre/trusted-folders.json`; else `gyre trust`'s, in Gyre's data folder.
   */
  home?: string;
  /** The options the agent was started with (before any trust for this session only). */
  options: QueryOptions;
  session: Pick<AgentSession, "options" | "trustProjectForSession">;
  store: TuiStore;
  notice(text: string, tone?: "info" | "error"): void;
}

/**
 * The terminal agent and a folder the person has not trusted: asks whether to trust it at
 * start and after "always allow", records the answer as `gyre trust` does (or for this session
 * only, or not at all), and says what is ignored while it is not trusted. Only the person's
 * keys answer; nothing the model or the folder does can.
 */
export class ProjectTrust {
  readonly #host: ProjectTrustHost;
  #questions = 0;
  /** The person answered no to trusting the folder (until they trust it). */
  #declined = false;
  /** What the transcript has said is ignored of the folder's files (`path` NUL `key`): said once. */
  readonly #reported = new Set<string>();

  constructor(host: ProjectTrustHost) {
    this.#host = host;
  }

  /**
   * At start, before any prompt runs: when the folder is not trusted and its files ask for
   * something (allow rules, hooks, env, MCP servers, agents), the person is asked whether to
   * trust it. Resolves once answered, or at once when there is nothing to ask. Until then no
   * query has started, so none of the folder's hooks or servers has run.
   */
  async checkAtStart(): Promise<void> {
    const offer = await this.#offer(this.#host.session.options);
    if (!offer) return;
    const answer = await this.#ask(offer);
    if (answer === "session") {
      this.#host.session.trustProjectForSession();
      return this.#host.notice(
        `Trusted ${offer.folder} for this session only: its settings, hooks, agents and MCP servers (.mcp.json) apply until you quit. Gyre asks again next time.`,
      );
    }
    if (answer === "trust" && (await this.#trust(offer.folder))) {
      return this.#host.notice(
        `Trusted ${offer.folder} and its subfolders (recorded in ${trustStorePath({ home: this.#host.home })}; gyre untrust undoes it): its settings, hooks, agents and MCP servers (.mcp.json) apply.`,
      );
    }
    this.#declined = true;
    this.#markReported(offer.ignored);
    this.#host.store.status.untrusted = true;
    this.#host.notice(
      `${offer.folder} is not trusted: Gyre ignores ${summarizeOffer(offer)}; the deny and ask rules of its settings still apply. ` +
        `To trust it: gyre trust ${offer.folder}, or answer yes when gyre asks at the next start.`,
    );
  }

  /**
   * After "always allow" saved `rules` in `file`: when the next session would ignore them (the
   * folder is not trusted, and local settings apply only in a trusted folder), the person is
   * offered to trust it. The rules apply to this session whatever the answer.
   */
  async afterAllowAlways(rules: string[], file: string): Promise<void> {
    const { options, cwd } = this.#host;
    if (!(options.settingSources ?? []).includes("local")) return;
    let offer: TrustOffer | undefined;
    try {
      if (options.requireProjectTrust !== true || (await findTrustedFolder(cwd, { home: this.#host.home }))) return;
      offer = await trustOfferFor({ cwd, home: this.#host.home, sources: options.settingSources ?? [] });
    } catch (error) {
      return this.#host.notice(`Cannot tell whether this folder is trusted: ${errorMessage(error)}`, "error");
    }
    if (!offer) return;
    const shown = relative(cwd, file);
    const answer = await this.#ask(offer, { rules, file: shown });
    if (answer === "trust" && (await this.#trust(offer.folder))) {
      return this.#host.notice(
        `Trusted ${offer.folder} and its subfolders (recorded in ${trustStorePath({ home: this.#host.home })}): ${rules.join(", ")} sticks, and the folder's settings, hooks, agents and MCP servers (.mcp.json) apply in full from the next session.`,
      );
    }
    this.#markReported({ folder: offer.folder, files: [{ path: file, ignored: ["permissions.allow"] }] });
    this.#host.notice(
      `${rules.join(", ")} is allowed for this session only: ${offer.folder} is not trusted, so the next session ignores ${shown}. To keep it: gyre trust ${offer.folder}`,
    );
  }

  /**
   * What a run says it ignored of a folder that is not trusted (its `init` message's
   * `ignored_settings`): shown in the transcript once (what the person was told already is not
   * said again), and as a mark on the status line while it lasts.
   */
  reportIgnored(ignored: IgnoredProjectSettings | undefined): void {
    this.#host.store.status.untrusted = ignored !== undefined || this.#declined;
    if (!ignored) return;
    const fresh = ignored.files
      .map((file) => ({ ...file, ignored: file.ignored.filter((key) => !this.#reported.has(`${file.path}\0${key}`)) }))
      .filter((file) => file.ignored.length > 0);
    if (fresh.length === 0) return;
    this.#markReported(ignored);
    const files = fresh.map((file) => `${relative(ignored.folder, file.path)} (${file.ignored.join(", ")})`).join(", ");
    this.#host.notice(
      `${ignored.folder} is not trusted: Gyre ignores ${files}; the deny and ask rules of its settings still apply. ` +
        `To trust it: gyre trust ${ignored.folder}, or answer yes when gyre asks at the next start.`,
    );
  }

  /** What trusting the folder would apply, when `options` need trust and the folder has not got it. */
  async #offer(options: QueryOptions): Promise<TrustOffer | undefined> {
    if (options.requireProjectTrust !== true) return undefined;
    try {
      return await trustOfferFor({ cwd: this.#host.cwd, home: this.#host.home, sources: options.settingSources ?? [] });
    } catch (error) {
      this.#host.notice(`Cannot tell whether this folder is trusted: ${errorMessage(error)}`, "error");
      return undefined;
    }
  }

  /** Shows the trust question (over everything else) and resolves with the person's answer. */
  #ask(offer: TrustOffer, saved?: TrustQuestion["saved"]): Promise<TrustAnswer> {
    const { store } = this.#host;
    return new Promise((resolve) => {
      const question: TrustQuestion = {
        id: ++this.#questions,
        offer,
        ...(saved && { saved }),
        answer: (choice) => {
          if (store.trust !== question) return;
          store.trust = undefined;
          store.changed();
          resolve(choice);
        },
      };
      store.trust = question;
      store.changed();
    });
  }

  /** Records the folder as trusted, as `gyre trust` does; false (and says why) when it cannot be. */
  async #trust(folder: string): Promise<boolean> {
    try {
      await trustFolder(folder, { home: this.#host.home });
    } catch (error) {
      this.#host.notice(`Not trusted: ${errorMessage(error)}`, "error");
      return false;
    }
    this.#declined = false;
    this.#host.store.status.untrusted = false;
    return true;
  }

  #markReported(ignored: IgnoredProjectSettings): void {
    for (const file of ignored.files) for (const key of file.ignored) this.#reported.add(`${file.path}\0${key}`);
  }
}
