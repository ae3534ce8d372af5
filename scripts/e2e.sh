#!/usr/bin/env bash
# `make e2e`: the pipeline test on real remote state. It starts a throwaway
# PostgreSQL on loopback and the mock API, then drives examples/pipeline with
# Terraform's built-in `pg` backend from several working directories, the way
# CI runners share state:
#
#   runner A   applies examples/pipeline (clips via for_each, with their files);
#   runner B   a fresh directory with no local files: plan changes no video,
#              apply recreates only the files, with identical SHA-256, and the
#              mock's ledger shows no new submission;
#   C and D    two applies started at once: one holds the state lock, the other
#              fails cleanly on it (-lock-timeout=0), and exactly one task is
#              submitted; after the winner, the loser applies without
#              submitting another.
#
# Needs no account and no network: the provider is built from this checkout and
# installed from a local filesystem mirror. PostgreSQL's server binaries are
# used if present, otherwise Debian's postgresql package is installed. Every
# process it starts is stopped and every directory it creates removed on exit,
# also when a step fails.
set -euo pipefail

GO="${GO:-go}"
TERRAFORM="${TERRAFORM:-terraform}"
MOCK_KEY="videogen-mock-key"
# Upper bound of any single Terraform command; the mock finishes a task in
# seconds, so only a hang gets anywhere near it.
STEP_TIMEOUT="${E2E_STEP_TIMEOUT:-300}"
# The provider version the local mirror offers; any release version works, as
# the configuration has no version constraint.
PROVIDER_VERSION="0.0.1"
PROVIDER_ADDR="registry.terraform.io/videogen/videogen"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$root"

header() { printf '\n==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
die() { printf 'e2e: error: %s\n' "$*" >&2; exit 1; }
# shellcheck source=lib/mock.sh
. "$root/scripts/lib/mock.sh"

work=""
pg_dir=""
pg_bindir=""
pg_user=""
pg_pid=""
mock_pid=""
bg_pids=()
policy_rc_created=""

# Stops a process group started with setsid (its leader's PID is the group ID),
# politely first.
stop_group() {
  local pid=$1
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 100); do # 10 s
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# The server runs in the foreground as this script's child, in a process group
# of its own: SIGINT is PostgreSQL's fast shutdown, and waiting for it reaps it
# (pg_ctl would detach it, leaving it to whoever adopts orphans).
stop_postgres() {
  [[ -n "$pg_pid" ]] || return 0
  local pid=$pg_pid
  pg_pid=""
  kill -INT "$pid" 2>/dev/null || true
  for _ in $(seq 300); do # 30 s
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  local pid
  for pid in ${bg_pids[@]+"${bg_pids[@]}"}; do
    stop_group "$pid"
  done
  [[ -z "$mock_pid" ]] || stop_group "$mock_pid"
  stop_postgres
  if [[ $status -ne 0 ]]; then
    if [[ -n "$work" && -s "$work/mock.log" ]]; then
      printf '\n--- mock API log (last 30 lines) ---\n' >&2
      tail -n 30 "$work/mock.log" >&2 || true
    fi
    if [[ -n "$pg_dir" && -s "$pg_dir/server.log" ]]; then
      printf '\n--- PostgreSQL log (last 30 lines) ---\n' >&2
      tail -n 30 "$pg_dir/server.log" >&2 || true
    fi
  fi
  [[ -z "$policy_rc_created" ]] || as_root rm -f /usr/sbin/policy-rc.d || true
  [[ -z "$work" ]] || rm -rf "$work"
  [[ -z "$pg_dir" ]] || rm -rf "$pg_dir"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------------------
# Tools

is_root() { [[ "$(id -u)" -eq 0 ]]; }

# Runs a command as root: directly when root, else through password-less sudo
# (as on hosted CI runners); fails otherwise.
as_root() {
  if is_root; then
    "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo -n "$@"
  else
    return 1
  fi
}
can_be_root() { is_root || { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }; }

# Installs Debian packages when something the test needs is missing, if root
# (or password-less sudo) is available; otherwise says what to install.
apt_install() {
  can_be_root || die "missing $*; install the Debian package(s) $* (or run as root to let this script do it)"
  command -v apt-get >/dev/null 2>&1 || die "missing $* and no apt-get to install it"
  header "Installing Debian package(s): $*"
  as_root env DEBIAN_FRONTEND=noninteractive timeout 600 apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive timeout 900 \
    apt-get install -y -qq --no-install-recommends "$@" </dev/null
}

command -v "$GO" >/dev/null 2>&1 || die "Go toolchain '$GO' not found (set GO=/path/to/go)"
command -v "$TERRAFORM" >/dev/null 2>&1 || die "Terraform CLI '$TERRAFORM' not found (set TERRAFORM=/path/to/terraform)"
missing=()
for cmd in jq curl; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("$cmd")
done
[[ ${#missing[@]} -eq 0 ]] || apt_install "${missing[@]}"
for cmd in setsid timeout sha256sum; do
  command -v "$cmd" >/dev/null 2>&1 || die "'$cmd' not found (Debian: coreutils, util-linux)"
done

# Debian keeps the server binaries out of PATH, in /usr/lib/postgresql/<major>/bin.
find_pg_bindir() {
  local d
  if [[ -n "${PG_BINDIR:-}" ]]; then
    [[ -x "$PG_BINDIR/pg_ctl" && -x "$PG_BINDIR/initdb" ]] && { echo "$PG_BINDIR"; return 0; }
    return 1
  fi
  if d="$(command -v pg_ctl 2>/dev/null)" && command -v initdb >/dev/null 2>&1; then
    # pg_ctl finds `postgres` next to its resolved self, so resolve symlinks.
    d="$(dirname "$(readlink -f "$d")")"
    [[ -x "$d/initdb" && -x "$d/postgres" ]] && { echo "$d"; return 0; }
  fi
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
    [[ -x "$d/pg_ctl" && -x "$d/initdb" && -x "$d/postgres" ]] && { echo "$d"; return 0; }
  done
  return 1
}

if ! pg_bindir="$(find_pg_bindir)"; then
  # The package's maintainer scripts would create and start a cluster of their
  # own; a policy-rc.d that denies service starts keeps them from running one.
  if can_be_root && [[ ! -e /usr/sbin/policy-rc.d ]]; then
    as_root sh -c 'printf "#!/bin/sh\nexit 101\n" >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d'
    policy_rc_created=1
  fi
  apt_install postgresql
  [[ -z "$policy_rc_created" ]] || { as_root rm -f /usr/sbin/policy-rc.d; policy_rc_created=""; }
  pg_bindir="$(find_pg_bindir)" || die "PostgreSQL server binaries still not found after installing postgresql"
fi

# PostgreSQL refuses to run as root: run it as an unprivileged account, the
# package's own `postgres` when it exists.
if is_root; then
  pg_user="${E2E_PG_USER:-}"
  if [[ -z "$pg_user" ]]; then
    if id postgres >/dev/null 2>&1; then
      pg_user=postgres
    else
      pg_user=videogen-e2e
      if ! id "$pg_user" >/dev/null 2>&1; then
        note "creating the unprivileged system user $pg_user to run PostgreSQL"
        useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$pg_user"
      fi
    fi
  fi
  pg_group="$(id -gn "$pg_user")"
  command -v setpriv >/dev/null 2>&1 || die "'setpriv' not found (Debian: util-linux)"
  # setpriv execs the command, so the server stays this script's child.
  as_pg=(setpriv --reuid="$pg_user" --regid="$pg_group" --init-groups --)
else
  as_pg=()
fi

# ---------------------------------------------------------------------------
# Build and start the mock API and PostgreSQL

work="$(mktemp -d "${TMPDIR:-/tmp}/videogen-e2e.XXXXXX")"

header "Building terraform-provider-videogen and videogen-mock"
goos="$("$GO" env GOOS)"
goarch="$("$GO" env GOARCH)"
mirror="$work/mirror"
plugin_dir="$mirror/$PROVIDER_ADDR/$PROVIDER_VERSION/${goos}_${goarch}"
mkdir -p "$plugin_dir"
"$GO" build -ldflags "-X main.version=$PROVIDER_VERSION-e2e" \
  -o "$plugin_dir/terraform-provider-videogen_v$PROVIDER_VERSION" .
"$GO" build -o "$work/videogen-mock" ./cmd/videogen-mock

header "Starting the mock API on a free local port"
addr_file="$work/mock.addr"
setsid "$work/videogen-mock" -addr 127.0.0.1:0 -addr-file "$addr_file" -api-key "$MOCK_KEY" \
  -duration 2s </dev/null >"$work/mock.log" 2>&1 &
mock_pid=$!
base_url="$(wait_for_mock "$addr_file" "$mock_pid")" || die "the mock API did not start"
note "mock API at $base_url (pid $mock_pid)"

header "Starting a throwaway PostgreSQL on loopback ($pg_bindir)"
# Outside $work, in /tmp: the server's account must reach it, and the Unix
# socket path must stay short.
pg_dir="$(mktemp -d /tmp/videogen-e2e-pg.XXXXXX)"
pg_password="$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
printf '%s\n' "$pg_password" >"$pg_dir/pwfile"
[[ -z "$pg_user" ]] || chown -R "$pg_user" "$pg_dir"
# Password authentication over TCP; the socket, in the private $pg_dir, is only
# reachable by the server's own account anyway.
(cd "$pg_dir" && exec ${as_pg[@]+"${as_pg[@]}"} "$pg_bindir/initdb" -D "$pg_dir/data" -U videogen_e2e \
  --pwfile="$pg_dir/pwfile" --auth-host=scram-sha-256 --auth-local=peer -E UTF8 --locale=C) \
  >"$pg_dir/initdb.log" 2>&1 ||
  { cat "$pg_dir/initdb.log" >&2; die "initdb failed"; }
rm -f "$pg_dir/pwfile"
# True once the server says it accepts connections: line 8 of postmaster.pid
# (what `pg_ctl -w` waits for). False, at once, if the server has exited.
pg_ready() {
  for _ in $(seq 600); do # 60 s
    kill -0 "$pg_pid" 2>/dev/null || return 1
    [[ "$(sed -n 8p "$pg_dir/data/postmaster.pid" 2>/dev/null)" == ready* ]] && return 0
    sleep 0.1
  done
  return 1
}
pg_port=""
for _ in $(seq 10); do
  # A random high port; a port taken meanwhile just makes this start fail, and
  # the next attempt picks another.
  port=$((20000 + RANDOM % 40000))
  (cd "$pg_dir" && exec setsid ${as_pg[@]+"${as_pg[@]}"} "$pg_bindir/postgres" -D "$pg_dir/data" \
    -p "$port" -c listen_addresses=127.0.0.1 -c unix_socket_directories="$pg_dir" -c fsync=off) \
    </dev/null >>"$pg_dir/server.log" 2>&1 &
  pg_pid=$!
  if pg_ready; then
    pg_port=$port
    break
  fi
  stop_postgres
  # A server killed outright leaves its PID file, whose "ready" would fool
  # the next attempt's check.
  rm -f "$pg_dir/data/postmaster.pid"
done
[[ -n "$pg_port" ]] || die "PostgreSQL did not start (see its log below)"
note "PostgreSQL on 127.0.0.1:$pg_port (data in $pg_dir, run as ${pg_user:-$(id -un)})"

# ---------------------------------------------------------------------------
# Terraform environment shared by every runner

cat >"$work/terraformrc" <<EOF
# Only the provider under test, from a local mirror; nothing is downloaded.
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = ["$PROVIDER_ADDR"]
  }
}
EOF
export TF_CLI_CONFIG_FILE="$work/terraformrc"
export TF_IN_AUTOMATION=1
export TF_INPUT=0
export CHECKPOINT_DISABLE=1
export VIDEOGEN_BASE_URL="$base_url"
export VIDEOGEN_API_KEY="$MOCK_KEY"
export PG_CONN_STR="postgres://videogen_e2e:$pg_password@127.0.0.1:$pg_port/postgres?sslmode=disable"
unset TF_DATA_DIR TF_WORKSPACE TF_LOG

# A runner is a fresh working directory holding nothing but the configuration.
new_runner() {
  local dir="$work/$1"
  mkdir -p "$dir"
  cp examples/pipeline/*.tf "$dir/"
  echo "$dir"
}

# tf DIR ARGS...: one Terraform command in a runner, bounded in time.
tf() {
  local dir=$1
  shift
  timeout --foreground -k 30 "$STEP_TIMEOUT" "$TERRAFORM" -chdir="$dir" "$@" </dev/null
}

ledger() { curl -fsS --max-time 10 "$base_url/_mock/ledger"; }
submissions() { ledger | jq '.requests["POST /v1/video/generations"] // 0'; }
task_count() { ledger | jq '.tasks | length'; }

# Checks that every file in a runner's `files` output exists with the recorded
# size and SHA-256.
check_files() {
  local dir=$1 outputs=$2 name path want size got
  while IFS=$'\t' read -r name path want size; do
    [[ "$path" == /* ]] || path="$dir/$path"
    [[ -f "$path" ]] || die "$name: $path does not exist"
    got="$(sha256sum "$path" | cut -d' ' -f1)"
    [[ "$got" == "$want" ]] || die "$name: $path has SHA-256 $got, but state says $want"
    [[ "$(stat -c %s "$path")" == "$size" ]] || die "$name: $path is not $size bytes"
    note "$name: $(basename "$path") $size bytes, sha256 $got"
  done < <(jq -r '.files.value | to_entries[] | [.key, .value.path, .value.sha256, (.value.size_bytes | tostring)] | @tsv' <<<"$outputs")
}

# ---------------------------------------------------------------------------
# Runner A

header "Runner A: terraform init and apply (examples/pipeline, state in PostgreSQL)"
a="$(new_runner runner-a)"
tf "$a" init -input=false -no-color
tf "$a" apply -auto-approve -input=false -no-color
[[ ! -e "$a/terraform.tfstate" ]] || die "runner A wrote local state; the pg backend was not used"
outputs_a="$(tf "$a" output -json)"
clips="$(jq '.task_ids.value | length' <<<"$outputs_a")"
[[ "$clips" -ge 2 ]] || die "examples/pipeline should build several clips, got $clips"
[[ "$(jq '.files.value | length' <<<"$outputs_a")" -eq "$clips" ]] || die "not every clip has a file"
check_files "$a" "$outputs_a"
subs_a="$(submissions)"
[[ "$subs_a" -eq "$clips" ]] || die "expected $clips submissions after runner A, the mock saw $subs_a"
note "$clips clips, $subs_a submissions"

# ---------------------------------------------------------------------------
# Runner B

header "Runner B: a fresh working directory on the same state"
b="$(new_runner runner-b)"
tf "$b" init -input=false -no-color
set +e
tf "$b" plan -out="$b/tfplan" -detailed-exitcode -input=false -no-color
plan_status=$?
set -e
[[ $plan_status -eq 2 ]] || die "runner B's plan should only recreate the missing files (exit 2), got exit $plan_status"
plan_json="$(tf "$b" show -json "$b/tfplan")"
jq -e --argjson n "$clips" '
  [.resource_changes[] | select(.type == "videogen_video")] as $videos
  | [.resource_changes[] | select(.type == "videogen_video_file")] as $files
  | ($videos | length) == $n and all($videos[]; .change.actions == ["no-op"])
    and ($files | length) == $n and all($files[]; .change.actions | index("create"))
    and all(.resource_changes[]; .type == "videogen_video" or .type == "videogen_video_file")' \
  <<<"$plan_json" >/dev/null || {
  jq -r '.resource_changes[] | "\(.address): \(.change.actions | join(","))"' <<<"$plan_json" >&2
  die "runner B's plan must change no video and recreate every file"
}
note "plan: every videogen_video no-op, every videogen_video_file created"
tf "$b" apply -input=false -no-color "$b/tfplan"
outputs_b="$(tf "$b" output -json)"
check_files "$b" "$outputs_b"
jq -e -n --argjson a "$outputs_a" --argjson b "$outputs_b" '
  ($a.files.value | map_values(.sha256)) == ($b.files.value | map_values(.sha256))
  and $a.task_ids.value == $b.task_ids.value' >/dev/null ||
  die "runner B's files or tasks differ from runner A's"
subs_b="$(submissions)"
[[ "$subs_b" -eq "$subs_a" ]] || die "runner B submitted $((subs_b - subs_a)) task(s); it must submit none"
note "same tasks and SHA-256 as runner A; the ledger shows no new submission"
tf "$b" plan -detailed-exitcode -input=false -no-color >/dev/null ||
  die "runner B's plan after apply is not empty"

# ---------------------------------------------------------------------------
# Runners C and D: two applies at once

header "Runners C and D: two applies started at once"
# Both add the same clip, which the mock takes 10 s to generate, so that the
# apply holding the lock holds it well past the other's attempt to take it.
probe='resource "videogen_video" "lock_probe" {
  model   = "videogen-1-fast"
  prompt  = "Lock probe: a metronome ticking on a piano [mock:duration=10s]"
  seconds = "2"
}'
c="$(new_runner runner-c)"
d="$(new_runner runner-d)"
for dir in "$c" "$d"; do
  printf '%s\n' "$probe" >"$dir/lock_probe.tf"
  tf "$dir" init -input=false -no-color >/dev/null
done
subs_before="$(submissions)"
for dir in "$c" "$d"; do
  # A process group of its own, so that cleanup can stop Terraform and its
  # provider processes together.
  setsid timeout -k 30 "$STEP_TIMEOUT" "$TERRAFORM" -chdir="$dir" apply -auto-approve -input=false \
    -no-color -lock-timeout=0 </dev/null >"$dir/apply.log" 2>&1 &
  bg_pids+=($!)
done
pid_c=${bg_pids[0]}
pid_d=${bg_pids[1]}
status_c="" status_d=""
wait "$pid_c" && status_c=0 || status_c=$?
wait "$pid_d" && status_d=0 || status_d=$?
bg_pids=()
note "runner C exited $status_c, runner D exited $status_d"
if [[ $status_c -eq 0 && $status_d -ne 0 ]]; then
  winner=$c loser=$d
elif [[ $status_d -eq 0 && $status_c -ne 0 ]]; then
  winner=$d loser=$c
else
  for dir in "$c" "$d"; do
    printf '\n--- %s ---\n' "$dir/apply.log" >&2
    tail -n 40 "$dir/apply.log" >&2
  done
  die "expected exactly one apply to succeed and the other to fail on the lock"
fi
grep -q "Error acquiring the state lock" "$loser/apply.log" || {
  cat "$loser/apply.log" >&2
  die "the failed apply did not fail on the state lock"
}
note "$(basename "$winner") held the lock; $(basename "$loser") failed on it:"
grep -A1 "Error acquiring the state lock" "$loser/apply.log" | sed 's/^/      /'
subs_after="$(submissions)"
[[ "$subs_after" -eq $((subs_before + 1)) ]] ||
  die "two concurrent applies submitted $((subs_after - subs_before)) tasks; exactly one expected"
[[ "$(ledger | jq '[.tasks[] | select(.prompt | startswith("Lock probe"))] | length')" -eq 1 ]] ||
  die "the lock probe clip was submitted more than once"
note "exactly one new task submitted"

header "The runner that lost the lock applies again: no second task"
tf "$loser" apply -auto-approve -input=false -no-color -lock-timeout=0
[[ "$(submissions)" -eq "$subs_after" ]] || die "re-running the losing apply submitted a task"
tf "$winner" plan -detailed-exitcode -input=false -no-color -lock-timeout=0 >/dev/null ||
  die "the winner's plan is not empty after both applies"
[[ "$(task_count)" -eq $((clips + 1)) ]] || die "the mock holds $(task_count) tasks; expected $((clips + 1))"
note "ledger: $((clips + 1)) tasks in total for $((clips + 1)) clips"

header "e2e passed; stopping PostgreSQL and the mock API"
