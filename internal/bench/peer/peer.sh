#!/usr/bin/env bash
# The peer of `make bench`: how a clip is usually generated without a provider.
# Terraform runs this from a terraform_data resource's local-exec provisioner;
# it submits one task with curl, then polls with curl every 5 seconds ("poll
# every few seconds", as the API spec says) until the task is final, and prints
# the clip URL. Only bash, curl and sleep are used.
#
# Environment: VIDEOGEN_BASE_URL (with or without /v1), VIDEOGEN_API_KEY,
# PROMPT, MODEL (default videogen-1), POLL_SECONDS (default 5), TIMEOUT_SECONDS
# (default 1800). PEER_SELF_CHECK=1 only checks the tools and exits; the
# benchmark times that as the peer's start-up.
set -euo pipefail

if [[ "${PEER_SELF_CHECK:-}" == 1 ]]; then
  curl --version >/dev/null
  exit 0
fi

: "${VIDEOGEN_BASE_URL:?set VIDEOGEN_BASE_URL}" "${VIDEOGEN_API_KEY:?set VIDEOGEN_API_KEY}" "${PROMPT:?set PROMPT}"
model="${MODEL:-videogen-1}"
poll="${POLL_SECONDS:-5}"
timeout="${TIMEOUT_SECONDS:-1800}"
base="${VIDEOGEN_BASE_URL%/}"
[[ "$base" == */v1 ]] || base="$base/v1"

# JSON string escaping for the two characters a prompt is likely to contain.
prompt="${PROMPT//\\/\\\\}"
prompt="${prompt//\"/\\\"}"

api() {
  curl --silent --show-error --fail-with-body --retry 3 --max-time 60 \
    -H "Authorization: Bearer $VIDEOGEN_API_KEY" -H "Accept: application/json" "$@"
}

body="$(api -X POST -H "Content-Type: application/json" \
  --data "{\"model\":\"$model\",\"prompt\":\"$prompt\"}" "$base/video/generations")"
if [[ ! "$body" =~ \"task_id\":\"([^\"]+)\" ]]; then
  echo "peer: no task_id in the submission response: $body" >&2
  exit 1
fi
task_id="${BASH_REMATCH[1]}"

deadline=$((SECONDS + timeout))
while :; do
  body="$(api "$base/video/generations/$task_id")"
  [[ "$body" =~ \"status\":\"([a-z_]+)\" ]] && status="${BASH_REMATCH[1]}" || status=unknown
  case "$status" in
    succeeded)
      [[ "$body" =~ \"url\":\"([^\"]+)\" ]] && echo "${BASH_REMATCH[1]}"
      exit 0
      ;;
    failed)
      echo "peer: task $task_id failed: $body" >&2
      exit 1
      ;;
  esac
  if ((SECONDS >= deadline)); then
    echo "peer: task $task_id still $status after ${timeout}s" >&2
    exit 1
  fi
  sleep "$poll"
done
