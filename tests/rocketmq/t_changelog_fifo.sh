#!/usr/bin/env bash
# RocketMQ as a changelog carrier: a random changelog (inserts, updates, deletes over a few
# keys, debezium-json, written here) -> rocketsql -> a FIFO topic (message group and keys = the
# primary key) -> rocketsql (a FIFO consumer group) -> a sqlite table with a PRIMARY KEY. The
# replica's end state equals what sqlite computes by applying the same changes directly (the
# reference, built by Python's sqlite3 without rocketsql). Also: every message's group and keys
# are its row's id (read back with them as METADATA), EXPLAIN says the order per key is guaranteed,
# and a NORMAL topic is refused when the sink starts, before anything is sent.
. "$(dirname "$0")/lib.sh"
require_server
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
[ -x "$BIN" ] || fail "rocketsql binary $BIN not built"
W=$(mktemp -d /tmp/t_changelog_fifo.XXXXXX)
trap 'rm -rf "$W"' EXIT
P=$(uniq_name clf)
run "$RMQ" topic "${P}_f" fifo
run "$RMQ" topic "${P}_n" normal
run "$RMQ" group "${P}_g" --fifo
run "$RMQ" group "${P}_j" --fifo

# the changelog and the reference replica
python3 - "$W/changes.jsonl" "$W/ref.db" "$W/expected.json" <<'PY' || fail "cannot write the changelog"
import json, random, sqlite3, sys
rnd = random.Random(20261202)
state, out = {}, open(sys.argv[1], "w")
seq = {}  # per key: the messages it must give, in order: (op, n) as debezium-json writes them
ref = sqlite3.connect(sys.argv[2])
ref.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT, n INTEGER)")
for i in range(1500):
    k = rnd.randint(1, 40)
    new = {"id": k, "v": "v%d-%d" % (k, i), "n": i}
    if k not in state:
        ev = {"before": None, "after": new, "op": "c"}
        state[k] = new
    elif rnd.random() < 0.75:
        ev = {"before": state[k], "after": new, "op": "u"}
        state[k] = new
    else:
        ev = {"before": state.pop(k), "after": None, "op": "d"}
    out.write(json.dumps(ev) + "\n")
    s = seq.setdefault(str(k), [])
    if ev["before"]:
        s.append(["d", ev["before"]["n"]])  # -D, or the -U of an update
    if ev["after"]:
        s.append(["c", ev["after"]["n"]])  # +I, or the +U of an update
    if ev["op"] == "d":
        ref.execute("DELETE FROM t WHERE id = ?", (k,))
    else:
        ref.execute("INSERT OR REPLACE INTO t VALUES (?, ?, ?)", (k, new["v"], new["n"]))
ref.commit()
json.dump(seq, open(sys.argv[3], "w"))
PY

cat >"$W/tables.sql" <<SQL
CREATE TABLE src (id BIGINT, v VARCHAR, n BIGINT)
  WITH ('connector'='filesystem', 'path'='$W/changes.jsonl', 'format'='debezium-json');
CREATE TABLE mq (id BIGINT, v VARCHAR, n BIGINT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$RMQ_ENDPOINT', 'topic'='${P}_f',
        'format'='debezium-json');
CREATE TABLE mq_normal (id BIGINT, v VARCHAR, n BIGINT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$RMQ_ENDPOINT', 'topic'='${P}_n',
        'format'='debezium-json');
CREATE TABLE mq_in (id BIGINT, v VARCHAR, n BIGINT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$RMQ_ENDPOINT', 'topic'='${P}_f',
        'source.consumer-group'='${P}_g', 'scan.idle-timeout'='10s', 'format'='debezium-json');
CREATE TABLE rep (id BIGINT, v VARCHAR, n BIGINT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector'='sqlite', 'path'='$W/rep.db', 'table'='t');
SQL
run "$BIN" --catalog "$W/c.db" -f "$W/tables.sql"

# EXPLAIN: per-key order guaranteed, message group and keys from the key
run "$BIN" --catalog "$W/c.db" -e "EXPLAIN INSERT INTO mq SELECT * FROM src"
expect_line "producer: FIFO, message group = primary key, message key = primary key"
expect_line "per-key order: guaranteed \(message group = primary key"

# a NORMAL topic: refused when the sink starts, nothing sent
rc=0
ERR=$("$BIN" --catalog "$W/c.db" -e "INSERT INTO mq_normal SELECT * FROM src" 2>&1) || rc=$?
printf '%s\n' "$ERR"
[ "$rc" -ne 0 ] || fail "a changelog into a NORMAL topic was accepted"
grep -q "is a NORMAL topic" <<<"$ERR" || fail "the refusal does not name the topic's type"
grep -q "'sink.changelog-order' = 'none'" <<<"$ERR" || fail "the refusal does not say what to set"

# the changelog into the FIFO topic
run "$BIN" --catalog "$W/c.db" -e "INSERT INTO mq SELECT * FROM src"

# every message's group and keys are its row's id, and each key's messages come in the order
# of its changes (the stored messages read again by a FIFO consumer group, raw, with their
# message group and keys as METADATA)
cat >"$W/meta.sql" <<SQL
CREATE TABLE mq_raw (body VARCHAR, mg VARCHAR METADATA FROM 'message_group' VIRTUAL,
                     ks ARRAY<STRING> METADATA FROM 'keys' VIRTUAL)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$RMQ_ENDPOINT', 'topic'='${P}_f',
        'source.consumer-group'='${P}_j', 'scan.idle-timeout'='10s', 'format'='raw');
CREATE TABLE meta_out (body VARCHAR, mg VARCHAR, ks ARRAY<STRING>)
  WITH ('connector'='filesystem', 'path'='$W/meta.jsonl', 'format'='json');
INSERT INTO meta_out SELECT body, mg, ks FROM mq_raw;
SQL
run "$BIN" --catalog "$W/c.db" -f "$W/meta.sql"
python3 - "$W/meta.jsonl" "$W/expected.json" <<'PY' || fail "a key's messages are not its changes in order"
import json, sys
got = {}
for line in open(sys.argv[1]):
    m = json.loads(line)
    ev = json.loads(m["body"])
    row = ev["after"] if ev["op"] == "c" else ev["before"]
    key = str(row["id"])
    if m["mg"] != key or m["ks"] != [key]:
        sys.exit("bad group or keys: " + line.strip())
    got.setdefault(key, []).append([ev["op"], row["n"]])
want = json.load(open(sys.argv[2]))
for k in want:
    if got.get(k) != want[k]:
        sys.exit("key %s: got %s, want %s" % (k, got.get(k), want[k]))
if set(got) != set(want):
    sys.exit("unexpected keys: %s" % (set(got) - set(want)))
print("keys checked: %d, messages: %d" % (len(want), sum(map(len, want.values()))))
PY

# the topic applied to a sqlite replica, equal to the reference
run "$BIN" --catalog "$W/c.db" -e "INSERT INTO rep SELECT * FROM mq_in"

dump() { # DB
  python3 -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute("SELECT id, v, n FROM t ORDER BY id"):
    print("|".join(map(str, r)))' "$1"
}
dump "$W/ref.db" >"$W/ref.txt"
dump "$W/rep.db" >"$W/rep.txt"
[ -s "$W/ref.txt" ] || fail "the reference replica is empty"
diff "$W/ref.txt" "$W/rep.txt" || fail "the replica differs from the reference"
echo "replica = reference: $(wc -l <"$W/ref.txt") rows"

echo "ok: a changelog through a FIFO topic, grouped and keyed by its primary key"
