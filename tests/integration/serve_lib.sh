# Helpers for the `rocketsql serve` tests (sourced after lib.sh).
command -v curl >/dev/null || fail "curl is needed (scripts/setup installs it)"

# free_port: a TCP port nobody listens on right now.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# serve_start ARGS...: rocketsql serve in the background; sets SPID; stderr in $T/serve.err.
serve_start() {
    "$RSQL" --catalog "$CAT" "$@" >"$T/serve.out" 2>"$T/serve.err" &
    SPID=$!
}

# serve_wait_exit: waits for the serve process; sets SRC to its exit status.
serve_wait_exit() {
    set +e
    wait "$SPID"
    SRC=$?
    set -e
}

# http PATH [CURL ARGS...]: GET http://127.0.0.1:$PORT/PATH; body in BODY, status in CODE.
http() {
    local path=$1
    shift
    set +e
    CODE=$(curl -s -o "$T/body" -w '%{http_code}' --max-time 5 "$@" "http://127.0.0.1:$PORT$path")
    set -e
    BODY=$(cat "$T/body" 2>/dev/null || true)
}

# until_true SECONDS DESCRIPTION CMD...: polls CMD every 0.1 s until it succeeds; fails the
# test with DESCRIPTION when SECONDS pass first.
until_true() {
    local secs=$1 what=$2
    shift 2
    local end=$((SECONDS + secs))
    until "$@"; do
        [ "$SECONDS" -lt "$end" ] || fail "timed out after ${secs}s waiting for: $what"
        kill -0 "$SPID" 2>/dev/null || fail "serve exited while waiting for: $what ($(cat "$T/serve.err"))"
        sleep 0.1
    done
}

# job_field JOB FIELD: a field of a job in the last /jobs body (counts.* for counts).
job_field() {
    python3 -c 'import json,sys
try:
    d=json.loads(sys.argv[1])
except ValueError:
    print("(no answer)"); sys.exit(0)
f=sys.argv[3].split(".")
for j in d["jobs"]:
    if j["name"]==sys.argv[2]:
        v=j
        for k in f: v=v[k]
        print(v if v is not None else "")
        sys.exit(0)
print("(absent)")' "$BODY" "$1" "$2"
}

# metric NAME JOB: its value in the last /metrics body.
metric() {
    echo "$BODY" | awk -v n="$1{job=\"$2\"}" '$1==n {print $2}'
}
