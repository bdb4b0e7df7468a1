// Builds the page of `gyre ui` (src/ui serves it) into dist/ui-page: Preact, bundled, nothing
// loaded from elsewhere at run time. `npm run build` runs it after the CLI's bundle.
import { defineConfig } from "vite";

export default defineConfig({
  root: import.meta.dirname,
  // Relative: the page works wherever it is mounted (gyre ui serves it at /).
  base: "./",
  logLevel: "warn",
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: "../dist/ui-page",
    emptyOutDir: true,
    target: "es2022",
    // One script and one stylesheet: the page is small, and a local server has no latency to hide.
    modulePreload: false,
    reportCompressedSize: false,
  },
});
