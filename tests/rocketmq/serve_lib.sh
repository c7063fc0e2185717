# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# serve_lib.sh: helpers of the `rocketsql serve` tests against the real broker (t_serve.sh,
# manual/serve_proxy_restart.sh) and of t_proxy_restart.sh (mk, produce). Sourced once the
# caller has set BIN (rocketsql), RMQ (scripts/rocketmq), EP (the endpoint), P (the run's
# name prefix), WORK (its scratch dir), PORT (serve's HTTP port) and SPID (serve's pid, once
# started), and defined die and ok.
# Every table and group name starts with P; the topics ${P}in, ${P}out and the sqlite file
# $WORK/out.db with table out_s are the callers' common layout.

# mk ARGS...: scripts/rocketmq ARGS (topic/group creation), its output in $WORK/admin.log
mk() { "$RMQ" "$@" >>"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "scripts/rocketmq $*"; }; }

# produce FIRST_ID COUNT NAME: COUNT JSON messages with ids FIRST_ID.. onto ${P}in by rocketsql
# (datagen -> rocketmq-grpc, keys = id); dies unless all were written
produce() {
    cat >"$WORK/$3.sql" <<SQL
CREATE TABLE gen (id BIGINT NOT NULL, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='datagen', 'number-of-rows'='$2', 'seed'='11', 'fields.id.kind'='sequence',
        'fields.id.start'='$1', 'fields.id.end'='$(($1 + $2 - 1))');
CREATE TABLE inp (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}in', 'sink.keys-column'='id');
INSERT INTO inp SELECT * FROM gen;
SQL
    "$BIN" --catalog "$WORK/$3.db" -f "$WORK/$3.sql" >"$WORK/$3.out" 2>&1 &&
        grep -q "written=$2 " "$WORK/$3.out" ||
        { tail -3 "$WORK/$3.out"; die "producing $2 messages ($3)"; }
    ok "produced ids $1..$(($1 + $2 - 1))"
}

# rows: how many distinct ids sqlite's out_s holds (0 while it cannot be read)
rows() { sqlite3 -cmd ".timeout 3000" "$WORK/out.db" "select count(distinct id) from out_s" 2>/dev/null || echo 0; }

# http PATH: GET it from serve; the body in BODY, the status in CODE
http() {
    CODE=$(curl -s -o "$WORK/body" -w '%{http_code}' --max-time 5 "http://127.0.0.1:$PORT$1")
    BODY=$(cat "$WORK/body" 2>/dev/null)
}

# written JOB: the job's written count from /jobs (0 while serve does not answer)
written() {
    curl -s --max-time 5 "http://127.0.0.1:$PORT/jobs" | python3 -c 'import json,sys
try: d=json.load(sys.stdin)
except ValueError: print(0); sys.exit()
print(next((j["counts"]["written"] for j in d["jobs"] if j["name"]==sys.argv[1]), 0))' "$1"
}

# until_true SECONDS WHAT CMD...: checks CMD every 0.2 s until it succeeds; dies when SECONDS
# pass first or serve ($SPID) exits meanwhile
until_true() {
    local end=$((SECONDS + $1)) what=$2
    shift 2
    until "$@"; do
        [ "$SECONDS" -lt "$end" ] || die "timed out waiting for: $what"
        kill -0 "$SPID" 2>/dev/null || die "serve exited while waiting for: $what"
        sleep 0.2
    done
}

# serve_names: the topics ${P}in and ${P}out (NORMAL) and the groups ${P}gs (to sqlite),
# ${P}gr (the relay) and ${P}v (the Java verifier)
serve_names() {
    mk topic "${P}in" normal
    mk topic "${P}out" normal
    mk group "${P}gs"
    mk group "${P}gr"
    mk group "${P}v"
}
