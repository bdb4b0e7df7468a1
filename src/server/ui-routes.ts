import type { Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { SessionStore } from "../sessions/index.js";
import {
  createUiApp,
  defaultPageFolder,
  LOGIN_PAGE_HEADERS,
  loginPage,
  type UiAccess,
  type UiVariables,
} from "../ui/index.js";
import { type AuthVariables, authenticator, namesThisMachine } from "./auth.js";
import { limitBody } from "./middleware.js";
import { serveProject } from "./response-store.js";
import { UI_SIGN_IN_SECONDS, UiSignIns } from "./ui-sign-in.js";

const COOKIE = "gyre-serve-ui";
const BASE = "/ui";

export interface ServeUiOptions {
  store: SessionStore;
  apiKeys: readonly string[];
  /** Whether a request comes over a loopback socket (a keyless server answers only those). */
  isLoopback: (c: Context) => boolean;
  now?: () => number;
  /** Default the built page (dist/ui-page). */
  pageFolder?: string;
}

/**
 * Mounts `gyre ui`'s page and API at `/ui` (docs/ui.md): each API key reads the sessions of its
 * own responses only (their project, `serveProject`), another key's are a 404. A browser signs
 * in once with its key (`POST /ui/login`, from the form `GET /ui/` shows) and holds a cookie
 * (see {@link UiSignIns}); scripts may send `Authorization: Bearer KEY`. A server without keys
 * answers loopback clients only, as its API does, and shows them the responses of owner `local`.
 */
export function mountUi(app: Hono<{ Variables: AuthVariables }>, options: ServeUiOptions): { close(): void } {
  const signIns = new UiSignIns(options.apiKeys, options.now);
  const check = authenticator(options.apiKeys);
  const keyless = options.apiKeys.length === 0;
  const ownerOfKey = (key: string): string | undefined => {
    try {
      return check(`Bearer ${key}`, () => false);
    } catch {
      return undefined;
    }
  };
  const localRequest = (c: Context) =>
    options.isLoopback(c) && namesThisMachine(c.req.header("host"), c.req.header("origin"));

  const access: UiAccess = async function serveUiAccess(c, next) {
    let owner: string | undefined;
    if (keyless) owner = localRequest(c) ? "local" : undefined;
    else {
      owner = signIns.ownerOf(getCookie(c, COOKIE));
      const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1]?.trim();
      if (owner === undefined && bearer !== undefined) owner = ownerOfKey(bearer);
    }
    if (owner !== undefined) {
      c.set("uiScope", { project: serveProject(owner) });
      return next();
    }
    if (!keyless && c.req.method === "GET" && (c.req.path === `${BASE}/` || c.req.path === `${BASE}/index.html`))
      return c.html(loginPage(), 401, LOGIN_PAGE_HEADERS);
    return c.text(
      keyless
        ? "gyre ui: this server has no API keys and answers only loopback clients\n"
        : "gyre ui: sign in at /ui/ with an API key (or send Authorization: Bearer KEY)\n",
      401,
    );
  };

  const ui = createUiApp({
    store: options.store,
    access,
    pageFolder: options.pageFolder ?? defaultPageFolder(),
    basePath: BASE,
    // Keys read what their runs said, not files' contents their runs were not shown.
    fileHistory: false,
  });
  // The page's addresses are relative to its folder: /ui must be /ui/.
  app.get(BASE, (c) => c.redirect(`${BASE}/`, 301));
  app.use(`${BASE}/login`, limitBody(8 * 1024));
  app.post(`${BASE}/login`, async (c) => {
    if (!sameSite(c)) return c.text("gyre ui: a sign-in must come from this server's own page\n", 403);
    if (keyless) return c.redirect(`${BASE}/`, 303);
    const form = await c.req.parseBody();
    const key = typeof form.key === "string" ? form.key.trim() : "";
    const owner = key === "" ? undefined : ownerOfKey(key);
    const cookie = owner === undefined ? undefined : signIns.issue(owner);
    if (cookie === undefined)
      return c.html(loginPage("That is not an API key of this server."), 401, LOGIN_PAGE_HEADERS);
    setCookie(c, COOKIE, cookie, {
      httpOnly: true,
      sameSite: "Strict",
      path: BASE,
      maxAge: UI_SIGN_IN_SECONDS,
      secure: isHttps(c),
    });
    return c.redirect(`${BASE}/`, 303);
  });
  app.post(`${BASE}/logout`, (c) => {
    if (!sameSite(c)) return c.text("gyre ui: a sign-out must come from this server's own page\n", 403);
    deleteCookie(c, COOKIE, { path: BASE, secure: isHttps(c) });
    return c.redirect(`${BASE}/`, 303);
  });
  (app as unknown as Hono<{ Variables: UiVariables }>).route(BASE, ui.app);
  return { close: ui.close };
}

/**
 * Whether a post comes from this server's own page: a browser says where it was sent from
 * (`Sec-Fetch-Site`, and `Origin`); a client that says neither (curl, a script) is no other
 * site's page. Another site's page must not sign a browser in with a key of its choosing.
 */
function sameSite(c: Context): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined && site !== "same-origin" && site !== "none") return false;
  const origin = c.req.header("origin");
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === c.req.header("host");
  } catch {
    return false;
  }
}

/** Whether the browser reached this server over HTTPS (directly, or through a proxy that says so). */
function isHttps(c: Context): boolean {
  return new URL(c.req.url).protocol === "https:" || c.req.header("x-forwarded-proto") === "https";
}
