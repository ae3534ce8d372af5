#!/usr/bin/env bash
# `make demo`: builds the provider and the mock API, starts the mock on a free
# local port and applies examples/demo against it. Needs no account, no network
# and no `terraform init` (the provider is installed through dev_overrides).
# Every run starts from empty state in a temporary directory; the mock and the
# directory are removed on exit, also when a step fails.
set -euo pipefail

GO="${GO:-go}"
TERRAFORM="${TERRAFORM:-terraform}"
MOCK_KEY="videogen-mock-key"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$root"

header() { printf '\n==> %s\n' "$*"; }
die() { printf 'demo: error: %s\n' "$*" >&2; exit 1; }
# shellcheck source=lib/mock.sh
. "$root/scripts/lib/mock.sh"

command -v "$GO" >/dev/null 2>&1 || die "Go toolchain '$GO' not found (set GO=/path/to/go)"
command -v "$TERRAFORM" >/dev/null 2>&1 || die "Terraform CLI '$TERRAFORM' not found (set TERRAFORM=/path/to/terraform)"

work="$(mktemp -d "${TMPDIR:-/tmp}/videogen-demo.XXXXXX")"
mock_pid=""

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  if [[ -n "$mock_pid" ]] && kill -0 "$mock_pid" 2>/dev/null; then
    kill -TERM "$mock_pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$mock_pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$mock_pid" 2>/dev/null || true
    wait "$mock_pid" 2>/dev/null || true
  fi
  if [[ $status -ne 0 && -s "$work/mock.log" ]]; then
    printf '\n--- mock API log (last 40 lines) ---\n' >&2
    tail -n 40 "$work/mock.log" >&2 || true
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

header "Building terraform-provider-videogen and videogen-mock"
mkdir -p "$work/plugins"
"$GO" build -ldflags "-X main.version=demo" -o "$work/plugins/terraform-provider-videogen" .
"$GO" build -o "$work/videogen-mock" ./cmd/videogen-mock

header "Starting the mock API on a free local port"
addr_file="$work/mock.addr"
"$work/videogen-mock" -addr 127.0.0.1:0 -addr-file "$addr_file" -api-key "$MOCK_KEY" \
  -duration 3s -quiet </dev/null >"$work/mock.log" 2>&1 &
mock_pid=$!

base_url="$(wait_for_mock "$addr_file" "$mock_pid")" || die "the mock API did not start"
echo "mock API listening at $base_url (pid $mock_pid)"

cat >"$work/terraformrc" <<EOF
provider_installation {
  dev_overrides {
    "videogen/videogen" = "$work/plugins"
  }
  direct {}
}
EOF

export TF_CLI_CONFIG_FILE="$work/terraformrc"
export TF_DATA_DIR="$work/tfdata"
export TF_IN_AUTOMATION=1
export CHECKPOINT_DISABLE=1
export VIDEOGEN_BASE_URL="$base_url"
export VIDEOGEN_API_KEY="$MOCK_KEY"

# Terraform runs on a copy of examples/demo, so every run starts from empty
# state (the mock is new each time) and nothing is left in the repository.
cfg="$work/demo"
mkdir -p "$cfg"
cp examples/demo/*.tf "$cfg/"
# The clip files go to examples/demo/out (git-ignored), not into the copy.
out_dir="$root/examples/demo/out"
tf_vars=(-var "output_dir=$out_dir")
color=()
[[ -t 1 ]] || color=(-no-color)
tf() { "$TERRAFORM" -chdir="$cfg" "$@" </dev/null; }

header "terraform apply (examples/demo, fresh state)"
tf apply -auto-approve -input=false "${tf_vars[@]}" ${color[@]+"${color[@]}"}

header "terraform plan again: the clip is not generated a second time"
set +e
tf plan -detailed-exitcode -input=false "${tf_vars[@]}" ${color[@]+"${color[@]}"}
plan_status=$?
set -e
case "$plan_status" in
  0) echo "No changes: the existing clip is kept." ;;
  2) die "the second plan wants changes; the provider is not idempotent" ;;
  *) die "terraform plan failed (exit $plan_status)" ;;
esac

header "A fresh runner: the state survives, the clip files do not"
rm -rf "$out_dir"
tf apply -auto-approve -input=false "${tf_vars[@]}" ${color[@]+"${color[@]}"} | tee "$work/fresh-apply.log"
grep -q 'Resources: 1 added, 0 changed, 0 destroyed' "$work/fresh-apply.log" ||
  die "the fresh-runner apply did more than download the file again"
echo "Only the file was downloaded again, from the same task: no new video was generated."

header "Checking the clip against its recorded SHA-256"
if command -v sha256sum >/dev/null 2>&1; then
  tf output -raw teaser_file | sha256sum -c -
elif command -v shasum >/dev/null 2>&1; then
  tf output -raw teaser_file | shasum -a 256 -c -
else
  echo "(no sha256sum or shasum here; skipped)"
fi

header "terraform output"
tf output ${color[@]+"${color[@]}"}

header "Done; the mock API is stopped and the temporary state removed on exit"
