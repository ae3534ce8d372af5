#!/usr/bin/env bash
# `make demo`: applies examples/demo against the mock API, the way README's
# "Try it by hand" does: the provider installed as `make install-local`
# installs it (here into the implied mirror terraform.d/plugins of a
# temporary copy of examples/demo, not into your home), the mock started as
# `make mock` starts it (on a free port), and a plain `terraform init`.
# Needs no account and no network. The copy and the mock are removed on
# exit, also when a step fails.
set -euo pipefail

script=demo
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Terraform runs on a copy, so every run starts from empty state (the mock is
# new each time) and nothing is left in the repository: the clip files go to
# the copy too, and are shown before they are removed with it.
cfg="$work/demo"
out="$work/out"
mkdir -p "$cfg"
cp examples/demo/*.tf "$cfg/"
tf_vars=(-var "output_dir=$out")
color=()
[[ -t 1 ]] || color=(-no-color)
# In the copy rather than with -chdir: the CLI looks for the implied mirror
# terraform.d/plugins in the directory it was started in.
tf() { (cd "$cfg" && "$TERRAFORM" "$@" </dev/null); }
export TF_IN_AUTOMATION=1
# An empty CLI configuration: yours could send provider installation elsewhere.
: >"$work/terraformrc"
export TF_CLI_CONFIG_FILE="$work/terraformrc"

# The first build on a cold build cache compiles every dependency: about two
# minutes on a laptop, seconds afterwards. progress.sh says every 30 s that it
# is still going, so that no step is silent for longer.
header "Building the mock API and the provider (the first build takes about 2 minutes; later ones seconds)"
"$root/scripts/progress.sh" 'building the mock API' "$GO" build -o "$work/videogen-mock" ./cmd/videogen-mock
export VIDEOGEN_MOCK_BIN="$work/videogen-mock"

header "make install-local LOCAL_MIRROR=<copy of examples/demo>/terraform.d/plugins"
"$MAKE" --no-print-directory install-local LOCAL_MIRROR="$cfg/terraform.d/plugins" GO="$GO"

header "Starting the mock API on a free local port (scripts/mock.sh, as make mock)"
start_mock -duration 3s

header "terraform init"
tf_init

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
rm -rf "$out"
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

header "The clip file (removed with the temporary copy)"
ls -l "$out"

header "Done; the mock API is stopped and the temporary state removed on exit"
