#!/usr/bin/env bash
# Batched sends (sink.batch-size) against the real proxy: 400 rows from a file go out as
# NORMAL messages several to a SendMessage request; the official Java client receives each
# exactly once with its own body, tag and key (tags differ within a batch: the proxy keeps each
# message's own properties). EXPLAIN shows the batching. A message the proxy refuses (a blank
# tag: ILLEGAL_MESSAGE_TAG) fails its batch as a whole; rocketsql sends that batch again one
# message at a time, so only the bad row fails and the other rows of its batch land.
. "$(dirname "$0")/lib.sh"
require_server
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
W=$(mktemp -d /tmp/t_batch_send.XXXXXX)
trap 'rm -rf "$W"' EXIT
P=$(uniq_name batch)
N=400
run "$RMQ" topic "${P}_n" normal
run "$RMQ" group "${P}_gn"

python3 - "$W/in.json" "$N" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(int(sys.argv[2])):
        f.write(json.dumps({"id": i, "k": "key-%d" % i, "note": "row %d of the batch test" % i}) + "\n")
PY
sql() { # TOPIC FILE
  cat <<SQL
CREATE TABLE src (id BIGINT, k VARCHAR, note VARCHAR)
  WITH ('connector'='filesystem', 'path'='$2', 'format'='json');
CREATE TABLE out (id BIGINT, k VARCHAR, note VARCHAR, tag VARCHAR METADATA)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$RMQ_ENDPOINT', 'topic'='$1',
        'sink.keys-column'='k', 'sink.batch-size'='32', 'sink.linger'='5ms');
SQL
}
{ sql "${P}_n" "$W/in.json"; echo "EXPLAIN INSERT INTO out SELECT id, k, note, 'tag-' || CAST(id % 3 AS VARCHAR) FROM src;"; } >"$W/x.sql"
run "$BIN" --catalog "$W/cx.db" -f "$W/x.sql"
expect_line "batching.*up to 32 messages per SendMessage, linger 5 ms"
{ sql "${P}_n" "$W/in.json"; echo "INSERT INTO out SELECT id, k, note, 'tag-' || CAST(id % 3 AS VARCHAR) FROM src;"; } >"$W/w.sql"
run "$BIN" --catalog "$W/c.db" -f "$W/w.sql"
# ---- one row the proxy refuses (a blank tag) in a batch of 10: only that row fails
python3 - "$W/ten.json" "$N" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(int(sys.argv[2]), int(sys.argv[2]) + 10):
        f.write(json.dumps({"id": i, "k": "key-%d" % i, "note": "row %d of the batch test" % i}) + "\n")
PY
{ sql "${P}_n" "$W/ten.json"; echo "INSERT INTO out SELECT id, k, note, CASE WHEN id = $((N + 4)) THEN ' ' ELSE 'ok' END FROM src;"; } >"$W/b.sql"
rc=0
"$BIN" --catalog "$W/cb.db" -f "$W/b.sql" >"$W/b.out" 2>&1 || rc=$?
cat "$W/b.out"
[ $rc = 2 ] || fail "a refused row: exit $rc, want 2"
grep -q "ILLEGAL_MESSAGE_TAG" "$W/b.out" || fail "no broker message for the blank tag"
grep -q " failed=1 " "$W/b.out" || fail "not exactly the one row failed"
# one consume for both: it ends 5 s after the last message and must report exactly the
# refused row missing
M=$((N + 10))
rc=0
OUT=$("$INTEROP" consume --endpoint "$RMQ_ENDPOINT" --topic "${P}_n" --group "${P}_gn" --count "$M" \
  --timeout 5 --print --print-meta) || rc=$?
printf '%s\n' "$OUT" | grep -v '^{' | grep -v '^meta' || true
[ $rc = 1 ] || fail "consume: exit $rc, want 1 (one id missing)"
expect_line "^received=$((M - 1)) distinct=$((M - 1)) missing=1 duplicates=0$"
expect_line "^missing_ids=$((N + 4))$"
printf '%s\n' "$OUT" >"$W/got.txt"
python3 - "$W/got.txt" "$N" <<'PY' || fail "a message arrived with the wrong body, tag or keys"
import json, re, sys
n = int(sys.argv[2])
bodies, metas = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"meta id=(\d+) topic=\S+ tag=(\S+) keys=(\S+) ", line)
    if m:
        metas[int(m.group(1))] = (m.group(2), m.group(3))
        continue
    line = line.strip()
    if line.startswith("{"):
        b = json.loads(line)
        bodies[b["id"]] = b
bad = 0
ids = [i for i in range(n + 10) if i != n + 4]
for i in ids:
    if bodies.get(i) != {"id": i, "k": "key-%d" % i, "note": "row %d of the batch test" % i}:
        print("id %d: body %r" % (i, bodies.get(i))); bad += 1
    tag = "tag-%d" % (i % 3) if i < n else "ok"
    if metas.get(i) != (tag, "key-%d" % i):
        print("id %d: tag/keys %r" % (i, metas.get(i))); bad += 1
print("checked %d bodies, %d tag/keys lines, %d wrong" % (len(bodies), len(metas), bad))
sys.exit(1 if bad or len(bodies) != len(ids) or len(metas) != len(ids) else 0)
PY
echo "ok: $N batched rows each received once with its own body, tag and key"
echo "ok: the refused row failed alone; the other 9 rows of its batch landed once"
