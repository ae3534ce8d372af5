# Sourced by scripts/demo.sh and scripts/test-examples.sh, after they set
# `script` (their name in errors): the CLI they run (TERRAFORM, a path), GO and
# MAKE, a temporary directory `work` removed on exit, and start_mock and tf_init.
# The caller defines tf(), which runs the CLI in its working directory.

GO="${GO:-go}"
TERRAFORM="${TERRAFORM:-terraform}"
MAKE="${MAKE:-make}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$root"

header() { printf '\n==> %s\n' "$*"; }
die() { printf '%s: error: %s\n' "$script" "$*" >&2; exit 1; }
cli="$(command -v "$TERRAFORM")" || die "Terraform CLI '$TERRAFORM' not found (set TERRAFORM=/path/to/terraform)"
[[ "$cli" == /* ]] || cli="$root/$cli"
TERRAFORM="$cli"

work="$(mktemp -d "${TMPDIR:-/tmp}/videogen-$script.XXXXXX")"
mock_pid=""
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [[ -n "$mock_pid" ]]; then
    kill -TERM "$mock_pid" 2>/dev/null || true
    wait "$mock_pid" 2>/dev/null || true
  fi
  [[ $status -eq 0 || ! -s "$work/mock.log" ]] || { printf '\n--- mock API log ---\n' >&2; tail -n 40 "$work/mock.log" >&2; }
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# start_mock starts the mock API on a free local port as `make mock` does
# (scripts/mock.sh), with the mock's own flags as arguments, and exports the
# VIDEOGEN_BASE_URL and VIDEOGEN_API_KEY it prints. It stops on exit.
start_mock() {
  exec 3< <(GO="$GO" exec bash scripts/mock.sh -addr 127.0.0.1:0 -quiet "$@" 2>"$work/mock.log")
  mock_pid=$!
  local base_url_line key_line
  read -r base_url_line <&3 && read -r key_line <&3 || die "the mock API did not start"
  exec 3<&-
  eval "$base_url_line"
  eval "$key_line"
  echo "mock API listening at $VIDEOGEN_BASE_URL"
}

# tf_init runs init through tf() and shows its installation lines. On
# Terraform 1.2 and later, init warns on every fresh working directory that a
# provider from a local mirror has its checksum recorded for this platform
# only; that is true of any local build, so init's full output is kept for
# failures.
tf_init() {
  tf init -input=false -no-color >"$work/init.log" 2>&1 || { cat "$work/init.log" >&2; die "$(basename "$TERRAFORM") init failed"; }
  grep -E '^- Install(ing|ed) ' "$work/init.log"
}
