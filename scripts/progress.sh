#!/usr/bin/env bash
# Usage: scripts/progress.sh WHAT COMMAND [ARG...]
#
# Runs COMMAND in the foreground (Ctrl-C reaches it as usual) and, while it
# runs, says on stderr every PROGRESS_EVERY seconds (default 30) that WHAT is
# still going and for how long: a step of minutes, such as the first build of
# a tool or a lint of the whole tree, is not silence. Exits with COMMAND's
# status.
set -euo pipefail

what="$1"
shift
every="${PROGRESS_EVERY:-30}"
start=$SECONDS
script=$$
(
  while sleep "$every"; do
    kill -0 "$script" 2>/dev/null || exit 0
    echo "  ... still $what ($((SECONDS - start)) s)" >&2
  done
) &
ticker=$!
trap 'kill "$ticker" 2>/dev/null || true' EXIT
"$@"
