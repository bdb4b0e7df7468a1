// `gyre ui`: a local page to watch and replay runs, over the session store (issue 34).
export { createUiApp, type SessionList, type UiAppOptions } from "./app.js";
export { defaultPageFolder, pageBuilt } from "./assets.js";
export { loopbackHosts, sameToken, type UiGuard, uiGuard } from "./guard.js";
export { SessionChanges } from "./live.js";
export { LOGIN_PAGE_HEADERS, loginPage } from "./login-page.js";
export { inScope, type UiAccess, type UiScope, type UiVariables } from "./scope.js";
export { type SessionView, sessionView, type TimelineEvent, type WriteBefore } from "./session-view.js";
export { stepDiff } from "./step-diff.js";
export { type RunningUi, startUi, type StartUiOptions } from "./start.js";
