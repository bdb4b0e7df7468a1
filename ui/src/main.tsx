import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { RunView } from "./run-view.js";
import { SessionList } from "./session-list.js";
import "./style.css";

/** `#/` is the list, `#/s/ID` a session. */
function useRoute(): string | undefined {
  const read = () => {
    const match = /^#\/s\/(.+)$/.exec(location.hash);
    return match?.[1] ? decodeURIComponent(match[1]) : undefined;
  };
  const [id, setId] = useState(read);
  useEffect(() => {
    const onHash = () => setId(read());
    addEventListener("hashchange", onHash);
    // The address may have changed between the first render and this effect.
    onHash();
    return () => removeEventListener("hashchange", onHash);
  }, []);
  return id;
}

type Theme = "light" | "dark" | "auto";

function useTheme(): [Theme, () => void] {
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem("gyre-ui-theme") as Theme | null) ?? "auto");
  useEffect(() => {
    if (theme === "auto") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
    localStorage.setItem("gyre-ui-theme", theme);
  }, [theme]);
  const next = () => setTheme((t) => (t === "auto" ? "dark" : t === "dark" ? "light" : "auto"));
  return [theme, next];
}

/**
 * j/k move between the page's rows (anything marked data-nav), Enter opens the one selected
 * (a session, a tool call, a subagent), Esc goes back to the list, / searches, t changes theme.
 */
function useKeys(toggleTheme: () => void) {
  useEffect(() => {
    let current = -1;
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (target.closest("input, select, textarea")) {
        if (event.key === "Escape") target.blur();
        return;
      }
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const rows = [...document.querySelectorAll<HTMLElement>("[data-nav]")];
      const selected = document.querySelector<HTMLElement>("[data-nav].selected");
      current = selected ? rows.indexOf(selected) : -1;
      const select = (index: number) => {
        selected?.classList.remove("selected");
        const row = rows[Math.max(0, Math.min(rows.length - 1, index))];
        row?.classList.add("selected");
        row?.scrollIntoView({ block: "nearest" });
      };
      if (event.key === "j") select(current + 1);
      else if (event.key === "k") select(current - 1);
      else if (event.key === "Enter" && selected?.hasAttribute("data-open")) selected.click();
      else if (event.key === "Escape" && location.hash.startsWith("#/s/")) location.hash = "#/";
      else if (event.key === "/") {
        document.getElementById("search")?.focus();
        event.preventDefault();
      } else if (event.key === "t") toggleTheme();
      else return;
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [toggleTheme]);
}

function App() {
  const id = useRoute();
  const [theme, toggleTheme] = useTheme();
  useKeys(toggleTheme);
  return (
    <>
      <nav class="top">
        <a href="#/" class="brand">
          gyre ui
        </a>
        <span class="muted keys">j/k move · enter open · esc back · / search · t theme</span>
        <button type="button" class="link" onClick={toggleTheme} data-testid="theme">
          theme: {theme}
        </button>
      </nav>
      <main>{id === undefined ? <SessionList /> : <RunView key={id} id={id} />}</main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
