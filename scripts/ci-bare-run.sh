#!/usr/bin/env bash
# The test suite as it runs on a machine with only Node.js: in a network namespace of its own,
# where nothing answers on 5432 or 6379 (no Postgres, no Redis: the tests start an embedded
# PostgreSQL and leave the redis leg out), with CI unset, and on a PATH without the optional
# tools (promtool, zsh, tmux, chromium: their tests skip and the last lines say what to install).
# Its own empty temp directory (TMPDIR) must be empty again at the end: nothing the suite creates
# is left behind, by the tests or by the processes they start (the harness hands those TMPDIR:
# test/harness/child-environment.ts; they used to write to /tmp, out of this check's sight, and
# tsx's compile cache, tsx-<uid>, stayed there). Exits with the suite's code (1 if it passed but
# left files).
#
#   scripts/ci-bare-run.sh                 # npm test: lint, typecheck, every suite
#   scripts/ci-bare-run.sh test/cli/…      # npx vitest run test/cli/… instead
#
# Needs root and iproute2 (`ip netns`), as test/hosts/ does.
set -euo pipefail
cd "$(dirname "$0")/.."

OPTIONAL_TOOLS=(promtool zsh tmux chromium)
ns="envd-bare-$$"
bin="$(mktemp -d)"
tmp="$(mktemp -d)"
cleanup() {
  # Whatever the suite left running in the namespace (a command of a timed-out test) goes too.
  ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
  ip netns delete "$ns" 2>/dev/null || true
  rm -rf "$bin" "$tmp"
}
trap cleanup EXIT

# A PATH of links to every program on this one but the optional tools (the first of a name wins,
# as on PATH).
declare -A seen=()
for tool in "${OPTIONAL_TOOLS[@]}"; do seen[$tool]=1; done
programs=()
IFS=: read -r -a path_dirs <<<"$PATH"
for dir in "${path_dirs[@]}"; do
  [ -d "$dir" ] || continue
  for program in "$dir"/*; do
    name="${program##*/}"
    if [ -n "${seen[$name]:-}" ] || [ ! -x "$program" ]; then continue; fi
    seen[$name]=1
    programs+=("$program")
  done
done
ln -s -t "$bin" "${programs[@]}"
# Readable by every user, as /usr/bin is: tests run the installed envdata as a normal user too.
chmod 755 "$bin"
# As root, the embedded PostgreSQL runs as the system user `envdata`: it must reach its directory.
chmod 755 "$tmp"

ip netns add "$ns"
ip netns exec "$ns" ip link set lo up

if [ $# -eq 0 ]; then command=(npm test); else command=(npx vitest run "$@"); fi
echo "== bare machine: ${command[*]} in network namespace $ns, CI unset, without ${OPTIONAL_TOOLS[*]}"
started=$SECONDS
code=0
ip netns exec "$ns" env -u CI PATH="$bin" TMPDIR="$tmp" "${command[@]}" || code=$?
echo "== bare machine: exit $code after $((SECONDS - started)) s"

left="$(ls -A "$tmp")"
if [ -n "$left" ]; then
  echo "== bare machine: the suite left in its temp directory:" >&2
  echo "$left" >&2
  [ "$code" -ne 0 ] || code=1
fi
exit "$code"
