#!/usr/bin/env bash
# The checks of `npm test` that read the code rather than run it: the API report (after the
# build), the type check, the lint and the format check. They run side by side (each is mostly
# one core's work, and together they took a minute one after another); each one's output is
# printed whole once it ends, and the script fails if any of them failed, naming it.
set -uo pipefail
cd "$(dirname "$0")/.."
out="$(mktemp -d "${TMPDIR:-/tmp}/gyre-checks-XXXXXX")"
trap 'rm -rf "$out"' EXIT
names=(api typecheck lint format)
commands=(
  "npm run --silent api:check"
  "npm run --silent typecheck"
  "npm run --silent lint"
  "npx prettier --check --cache --log-level warn ."
)
pids=()
for i in "${!names[@]}"; do
  bash -c "${commands[$i]}" >"$out/${names[$i]}" 2>&1 &
  pids+=($!)
done
failed=()
for i in "${!names[@]}"; do
  wait "${pids[$i]}" || failed+=("${names[$i]} (${commands[$i]})")
  cat "$out/${names[$i]}"
done
if [ ${#failed[@]} -gt 0 ]; then
  printf 'checks: failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
