# Shared by scripts/demo.sh and scripts/e2e.sh; sourced, not run.

# wait_for_mock ADDR_FILE PID prints the base URL that cmd/videogen-mock writes to
# ADDR_FILE once it listens (-addr-file). It fails when the mock exits first or
# after 30 seconds, so a script never hangs on a mock that did not start.
wait_for_mock() {
  local addr_file=$1 pid=$2 url
  for _ in $(seq 300); do
    if [[ -s "$addr_file" ]]; then
      url="$(tr -d '[:space:]' <"$addr_file")"
      if [[ "$url" == http://* ]]; then
        printf '%s\n' "$url"
        return 0
      fi
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "the mock API exited before it was ready" >&2
      return 1
    fi
    sleep 0.1
  done
  echo "the mock API did not write $addr_file within 30 s" >&2
  return 1
}
