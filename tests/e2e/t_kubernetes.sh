#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_kubernetes.sh: examples/kubernetes holds together. Every manifest parses with the expected
# kind and apiVersion, and they agree (tests/e2e/k8s_check.py: selectors, the port named
# metrics = the --http port, probes on /readyz and /healthz, scrape annotations, non-root,
# read-only root fs, the grace period, the jobs file and the secret mounted where the
# arguments and the SQL say). The ConfigMap's jobs file runs clean against a throwaway catalog
# (CREATE JOB plans each job), with the Secret's value at the path its ${file:} reference
# names; the catalog keeps the reference, not the value. The container's arguments, run here
# with the paths moved, serve /healthz 200 and /readyz 503 (no broker) on the --http port and
# drain on SIGTERM well within the grace period. The Dockerfile: debian:12-slim, ENTRYPOINT
# rocketsql (exec form), a USER that is not root, build dependencies from scripts/setup, and
# runtime packages that hold every library this build links. Needs python3 with yaml; no broker.
set -e
. "$RSQL_SRCDIR/tests/e2e/lib.sh"
command -v curl >/dev/null || fail "curl is needed"
python3 -c 'import yaml' 2>/dev/null || fail "python3 yaml is needed (Debian package python3-yaml)"
K8S="$RSQL_SRCDIR/examples/kubernetes"

# ---- 1. the manifests
mkdir pod
python3 "$RSQL_SRCDIR/tests/e2e/k8s_check.py" "$K8S" "$T/pod" >check.out 2>&1 || { cat check.out; fail "manifests: $(grep FAIL check.out)"; }
ok "manifests: $(grep -c '^ok ' check.out) checks (tests/e2e/k8s_check.py)"

# ---- 2. the jobs file, its secret where the pod would see it
sed "s|/etc/rocketsql/secrets/|$T/pod/secrets/|g" pod/jobs.sql >jobs.sql
grep -q "\${file:$T/pod/secrets/" jobs.sql || fail "no secret reference moved: $(cat jobs.sql)"
rsql -f jobs.sql
expect_rc 0 "the ConfigMap's jobs.sql runs against a throwaway catalog"
rsql --tsv -e "SHOW JOBS"
same "$(printf '%s\n' "$OUT" | cut -f1)" big_orders "the jobs file creates its job"
rsql -e "SHOW CREATE TABLE orders"
secret=$(cat pod/secrets/rocketmq-secret-key)
case $OUT in *"\${file:$T/pod/secrets/rocketmq-secret-key}"*) ;; *) fail "the reference is not kept: $OUT" ;; esac
case $OUT in *"$secret"*) fail "the secret's value is in the catalog: $OUT" ;; esac
sqlite3 "$CAT" .dump | grep -q -- "$secret" && fail "the secret's value is in the catalog file"
ok "the catalog keeps \${file:...} as written, never the secret's value"
# the reference is read when a job is planned: without the file, CREATE JOB fails naming it
mv pod/secrets/rocketmq-secret-key pod/secret.away
CAT="$T/nosecret.db"
rsql -f jobs.sql
expect_rc 1 "without the Secret's file the jobs file fails"
case $ERR in *"cannot read file"*rocketmq-secret-key*) ;; *) fail "no file error: $ERR" ;; esac
mv pod/secret.away pod/secrets/rocketmq-secret-key
CAT="$T/catalog.db"
rsql apply --dry-run jobs.sql
expect_rc 0 "rocketsql apply --dry-run on the jobs file"

# ---- 3. the container's arguments, paths moved here
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mapfile -t args <pod/args
podport=$(cat pod/http_port)
run_args=()
for a in "${args[@]}"; do
    case $a in
        /var/lib/rocketsql/rocketsql.db) run_args+=("$T/pod.db") ;;
        /etc/rocketsql/jobs.sql) run_args+=("$T/jobs.sql") ;;
        0.0.0.0:"$podport") run_args+=("127.0.0.1:$PORT") ;;
        *) run_args+=("$a") ;;
    esac
done
echo "running: rocketsql ${run_args[*]}"
"$RSQL" "${run_args[@]}" >pod.out 2>pod.err &
SPID=$!
e2e_pids="$SPID"
code() { curl -s -o "$T/body" -w '%{http_code}' --max-time 5 "http://127.0.0.1:$PORT$1"; }
healthy() { [ "$(code /healthz)" = 200 ]; }
wait_until 30 healthy || fail "liveness path /healthz never 200: $(cat pod.err)"
same "$(cat body)" ok "livenessProbe's /healthz answers 200 ok on the --http port"
listed() { [ "$(code /jobs)" = 200 ] && grep -q '"name":"big_orders"' body; }
wait_until 30 listed || fail "/jobs never lists big_orders: $(cat body)"
same "$(code /readyz)" 503 "readinessProbe's /readyz answers 503 while the job cannot reach its broker"
json_logged() { grep -q '"level"' pod.err; } # the log thread writes lines soon after
wait_until 10 json_logged || fail "--log-format json: no JSON log line in $(head -3 pod.err)"
ok "the pod's log lines are JSON"
t0=$(date +%s%3N)
kill -TERM "$SPID"
wait_pid "$SPID" 90
same "$RC" 0 "SIGTERM: serve drains and exits 0"
drain_ms=$(($(date +%s%3N) - t0))
grace=$(python3 -c 'import sys,yaml; print(yaml.safe_load(open(sys.argv[1]))["spec"]["template"]["spec"]["terminationGracePeriodSeconds"])' "$K8S/deployment.yaml")
[ "$drain_ms" -lt $((grace * 1000)) ] || fail "drain took ${drain_ms} ms, grace is ${grace} s"
ok "drain took ${drain_ms} ms (grace ${grace} s)"
e2e_pids=""

# ---- 4. the Dockerfile
DF="$K8S/Dockerfile"
[ "$(grep -c '^FROM debian:12-slim' "$DF")" = 2 ] || fail "both stages FROM debian:12-slim"
user=$(awk '$1 == "USER" { u = $2 } END { print u }' "$DF")
case ${user%%:*} in ""|root|0) fail "the image's USER is '$user'" ;; esac
ok "USER $user (not root)"
ep=$(awk '$1 == "ENTRYPOINT" { $1 = ""; e = $0 } END { print e }' "$DF")
same "$(echo $ep)" '["rocketsql"]' "ENTRYPOINT is rocketsql, exec form (PID 1 gets SIGTERM and SIGHUP)"
grep -q "^EXPOSE $podport\$" "$DF" || fail "EXPOSE $podport missing"
dfarg() { sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' "$DF" | sed -n "s/^ARG $1=\"\\(.*\\)\"\$/\\1/p"; }
read -r -a bdeps <<<"$(dfarg BUILD_DEPS)"
read -r -a rdeps <<<"$(dfarg RUNTIME_DEPS)"
[ "${#bdeps[@]}" -gt 5 ] && [ "${#rdeps[@]}" -gt 5 ] || fail "BUILD_DEPS/RUNTIME_DEPS not found"
setup_pkgs=$(sed -n '/^PKGS=(/,/^)/p' "$RSQL_SRCDIR/scripts/setup")
for p in "${bdeps[@]}"; do
    grep -qw -- "$p" <<<"$setup_pkgs" || fail "build dependency $p is not in scripts/setup"
done
for p in "${rdeps[@]}"; do
    case $p in *-dev) fail "runtime stage installs $p" ;; esac
done
ok "build dependencies all from scripts/setup (${#bdeps[@]}); no -dev package at runtime"
for lib in $(objdump -p "$RSQL" | awk '$1 == "NEEDED" { print $2 }'); do
    path=$(ldd "$RSQL" | awk -v l="$lib" '$1 == l { print $3 }')
    pkg=$(dpkg-query -S "$path" 2>/dev/null || dpkg-query -S "/usr$path" 2>/dev/null ||
        dpkg-query -S "$(readlink -f "$path")" 2>/dev/null || true)
    pkg=${pkg%%:*}
    [ -n "$pkg" ] || fail "$lib ($path): no Debian package"
    case " ${rdeps[*]} libc6 " in *" $pkg "*) ;; *) fail "$lib ($pkg) is not in RUNTIME_DEPS" ;; esac
done
ok "every library this build links comes from a RUNTIME_DEPS package"
bash -n "$K8S/build-image.sh" || fail "build-image.sh does not parse"
ok "build-image.sh parses (it is run by hand or by CI: a full build)"
echo "PASS"
