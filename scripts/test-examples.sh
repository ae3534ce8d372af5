#!/usr/bin/env bash
# `make test-examples`: runs `terraform test` (or `tofu test`, whichever
# TERRAFORM names) on examples/tests, whose .tftest.hcl files replace the
# provider with mock_provider "videogen". The provider is installed as
# `make install-local` installs it, into a filesystem mirror of a temporary
# copy, because a mock provider still takes its schema from the real one.
#
# The mock API runs beside it, with VIDEOGEN_BASE_URL and VIDEOGEN_API_KEY
# pointing the provider at it, and its ledger must be empty afterwards: a
# mock_provider configures nothing and calls nothing, so not even GET
# /v1/models may reach the service. The copy and the mock are removed on exit.
set -euo pipefail

script=test-examples
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

module="$work/tests"
cp -R examples/tests "$module"
# Only the mirror: init must never reach a registry.
cat >"$work/terraformrc" <<EOF
provider_installation {
  filesystem_mirror {
    path = "$work/plugins"
  }
}
EOF
export TF_CLI_CONFIG_FILE="$work/terraformrc"
export TF_IN_AUTOMATION=1
tf() { (cd "$module" && "$TERRAFORM" "$@" </dev/null); }

header "make install-local LOCAL_MIRROR=<temporary mirror>"
"$MAKE" --no-print-directory install-local LOCAL_MIRROR="$work/plugins" GO="$GO"

header "Starting the mock API on a free local port, to prove the tests call nothing"
start_mock

header "$(basename "$TERRAFORM") init"
tf_init

header "$(basename "$TERRAFORM") test (examples/tests)"
# The ledger is read whatever the outcome: a test that reached the service
# says so even when it also failed.
test_status=0
tf test -no-color || test_status=$?

header "The mock API's ledger: no request reached it"
ledger="$(curl -fsS "${VIDEOGEN_BASE_URL%/v1}/_mock/ledger")" || die "could not read the mock's ledger"
requests="$(jq -c '[.requests // {} | to_entries[] | select(.key != "GET /_mock/ledger")] | from_entries' <<<"$ledger")"
tasks="$(jq '.tasks | length' <<<"$ledger")"
echo "requests: $requests; tasks submitted: $tasks"
[[ "$requests" == "{}" && "$tasks" == 0 ]] || die "the tests reached the service: $requests, $tasks task(s) submitted"
[[ $test_status -eq 0 ]] || die "$(basename "$TERRAFORM") test failed (exit $test_status)"
echo "0 submissions, 0 requests: the tests ran on the mock provider alone."
