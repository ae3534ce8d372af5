#!/usr/bin/env bash
# Runs the mock API (cmd/videogen-mock) until Ctrl-C or SIGTERM. Once it
# listens, it prints on stdout the two lines that point Terraform at it:
#
#   export VIDEOGEN_BASE_URL=http://127.0.0.1:8080
#   export VIDEOGEN_API_KEY=videogen-mock-key
#
# Arguments are the mock's own flags (`go run ./cmd/videogen-mock -help`);
# "-addr 127.0.0.1:0" picks a free port. `make mock` and scripts/demo.sh both
# start the mock this way.
set -euo pipefail

GO="${GO:-go}"
key="videogen-mock-key"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
work="$(mktemp -d "${TMPDIR:-/tmp}/videogen-mock.XXXXXX")"
pid=""

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [[ -n "$pid" ]]; then
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 131' QUIT
trap 'exit 143' TERM

# VIDEOGEN_MOCK_BIN names a mock already built (scripts/demo.sh builds it where
# its progress shows); otherwise it is built here, saying so while it takes.
mock="${VIDEOGEN_MOCK_BIN:-}"
if [[ -z "$mock" ]]; then
  mock="$work/videogen-mock"
  (cd "$root" && "$root/scripts/progress.sh" 'building the mock API' "$GO" build -o "$mock" ./cmd/videogen-mock)
fi
# The mock also stops by itself when this script or the one that started it
# ends, whatever ends it: `kill <PID of make mock>` signals only make, and
# SIGKILL cannot be trapped.
"$mock" -api-key "$key" "$@" -addr-file "$work/addr" -exit-with $$ -exit-with "$PPID" </dev/null &
pid=$!

# The mock writes its address once it listens; a mock that exits first (a
# flag it rejects, a port in use) ends this script with its status.
for _ in $(seq 300); do
  [[ -s "$work/addr" ]] && break
  kill -0 "$pid" 2>/dev/null || { wait "$pid" || exit; exit 1; }
  sleep 0.1
done
[[ -s "$work/addr" ]] || { echo "mock.sh: the mock did not listen within 30 s" >&2; exit 1; }
printf 'export VIDEOGEN_BASE_URL=%s\nexport VIDEOGEN_API_KEY=%s\n' "$(tr -d '[:space:]' <"$work/addr")" "$key"
wait "$pid"
