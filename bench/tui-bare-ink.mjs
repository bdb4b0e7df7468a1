// The bare Ink program tui.bench.mjs compares the interactive agent's start with: one box.
import { Box, render, Text } from "ink";
import { createElement as h } from "react";

const app = render(h(Box, { borderStyle: "round" }, h(Text, null, "bare ink ready")));
process.stdin.once("data", () => app.unmount());
