/**
 * The policy of the login page: no script at all, and its form may post only to this server.
 * Its referrer policy lets the browser name the page's origin on that post (`no-referrer`
 * would send `Origin: null`), so that the server can refuse a post from another site's page.
 */
export const LOGIN_PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "referrer-policy": "same-origin",
} as const;

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * A small form that asks for an API key and posts it (`key`) to `login` beside the page (a
 * browser cannot send `Authorization` when it opens a page); `problem`, shown above it.
 */
export function loginPage(problem?: string): string {
  const note = problem === undefined ? "" : `<p role="alert">${problem.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!)}</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>gyre ui: sign in</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; max-width: 26rem; margin: 15vh auto; padding: 0 1rem; }
input { font: inherit; width: 100%; box-sizing: border-box; padding: .4rem; margin: .3rem 0 .8rem; }
button { font: inherit; padding: .35rem 1rem; }
[role=alert] { color: #c33; }
</style>
</head>
<body>
<h1>gyre ui</h1>
<p>The responses of your API key, as this server ran them.</p>
${note}
<form method="post" action="login">
<label for="key">API key</label>
<input id="key" name="key" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form>
</body>
</html>
`;
}
