/**
 * The prompt `/init` sends: the agent looks at the project and writes AGENTS.md (or improves
 * the one there), as Claude Code's /init asks for its CLAUDE.md.
 */
export const INIT_PROMPT = `Please look at this project and write an AGENTS.md file at its root: the instructions a coding agent working in this repository will be given at the start of every session.

Find out, by reading the files that say it (README, package manifests, build and CI configuration, lint and format settings, the layout of the source folders):
1. The commands to build, lint, format and test, and how to run a single test.
2. The architecture in broad strokes: the main parts, where they live, and how they fit together, as far as it takes reading several files to see it.
3. Conventions a newcomer would get wrong: code style, naming, error handling, where tests go, anything the project's own guides or existing agent instructions (CLAUDE.md, .cursorrules, .github/copilot-instructions.md) insist on.

Keep it short and specific to this project: no generic advice, nothing that is obvious from one file, no invented sections. If AGENTS.md already exists, improve it rather than starting over. Start the file with:

# AGENTS.md

This file guides coding agents working in this repository.`;
