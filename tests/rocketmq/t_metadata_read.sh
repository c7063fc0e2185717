#!/usr/bin/env bash
# METADATA columns read from RocketMQ: the official Java client sends messages with a tag,
# two keys, user properties, a message group (FIFO), a lite topic (LITE) and a delivery
# timestamp (DELAY); rocketsql reads every readable key of each into a file and each value
# is the one the client set (or the broker's, for ids, times, queue, attempt and type).
# (The four producers run at once: each is a JVM.)
. "$(dirname "$0")/lib.sh"
require_server
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
W=$(mktemp -d /tmp/t_metadata_read.XXXXXX)
trap 'rm -rf "$W"' EXIT
P=$(uniq_name md)
# bg NAME CMD...: run CMD in the background, output in $W/NAME.out; wait_all fails if one did
BGP=""
bg() { local n=$1; shift; "$@" >"$W/$n.out" 2>&1 & BGP="$BGP $!:$n"; }
wait_all() {
  local e
  for e in $BGP; do
    wait "${e%%:*}" || { cat "$W/${e#*:}.out"; fail "${e#*:} failed"; }
  done
  BGP=""
}
# (the admin calls one at a time: several at once can time out on a loaded broker)
run "$RMQ" topic "${P}_n" normal
run "$RMQ" topic "${P}_f" fifo
run "$RMQ" topic "${P}_l" lite
run "$RMQ" topic "${P}_d" delay
run "$RMQ" group "${P}_gn"
run "$RMQ" group "${P}_gf" --fifo
run "$RMQ" group "${P}_gl" --lite-bind "${P}_l"
run "$RMQ" group "${P}_gd"
T0=$(date +%s%3N) # before the producers build their messages (the delay producer: +2 s)
bg pn "$INTEROP" produce --endpoint "$RMQ_ENDPOINT" --topic "${P}_n" --count 5 --tag paid \
  --extra-key order- --props tenant=acme,region=eu
bg pf "$INTEROP" produce --endpoint "$RMQ_ENDPOINT" --topic "${P}_f" --count 4 --type fifo \
  --message-group grp-1 --tag f
bg pl "$INTEROP" produce --endpoint "$RMQ_ENDPOINT" --topic "${P}_l" --count 4 --type lite \
  --lite-topics 2 --lite-prefix lt-
bg pd "$INTEROP" produce --endpoint "$RMQ_ENDPOINT" --topic "${P}_d" --count 3 --delay-ms 2000 --tag d
wait_all
for x in n f l d; do
  grep -Eq '^sent=[0-9]+ failed=0$' "$W/p$x.out" || { cat "$W/p$x.out"; fail "produce $x"; }
done

# every readable key, as a VIRTUAL column
COLS="id BIGINT, topic VARCHAR METADATA VIRTUAL, lite_topic VARCHAR METADATA VIRTUAL,
  message_id VARCHAR METADATA VIRTUAL, tag VARCHAR METADATA VIRTUAL,
  \"keys\" ARRAY<STRING> METADATA VIRTUAL, message_group VARCHAR METADATA VIRTUAL,
  properties MAP<STRING, STRING> METADATA VIRTUAL,
  born_timestamp TIMESTAMP(3) METADATA VIRTUAL, store_timestamp TIMESTAMP(3) METADATA VIRTUAL,
  delivery_timestamp TIMESTAMP(3) METADATA VIRTUAL, born_host VARCHAR METADATA VIRTUAL,
  delivery_attempt INT METADATA VIRTUAL, queue_id INT METADATA VIRTUAL,
  queue_offset BIGINT METADATA VIRTUAL, message_type VARCHAR METADATA VIRTUAL"
OUTCOLS="id BIGINT, topic VARCHAR, lite_topic VARCHAR, message_id VARCHAR, tag VARCHAR,
  \"keys\" ARRAY<STRING>, message_group VARCHAR, properties MAP<STRING, STRING>, born BIGINT,
  store BIGINT,
  delivery BIGINT, born_host VARCHAR, attempt INT, queue_id INT, queue_offset BIGINT,
  message_type VARCHAR"
SEL="id, topic, lite_topic, message_id, tag, \"keys\", message_group, properties,
  CAST(born_timestamp AS BIGINT), CAST(store_timestamp AS BIGINT),
  CAST(delivery_timestamp AS BIGINT), born_host, delivery_attempt, queue_id, queue_offset,
  message_type"
# the four reads run at once; a lite read waits for its first lite subscription sync
pids=""
for x in n f l d; do
  mode="" idle=4s
  [ "$x" = l ] && mode=", 'source.mode'='lite'" && idle=12s
  cat >"$W/read_$x.sql" <<SQL
CREATE TABLE s_$x ($COLS) WITH ('connector'='rocketmq-grpc', 'endpoints'='$RMQ_ENDPOINT',
  'topic'='${P}_$x', 'source.consumer-group'='${P}_g$x', 'scan.idle-timeout'='$idle'$mode);
CREATE TABLE o_$x ($OUTCOLS) WITH ('connector'='filesystem', 'path'='$W/$x.json', 'format'='json');
INSERT INTO o_$x SELECT $SEL FROM s_$x;
SQL
  "$BIN" --catalog "$W/c_$x.db" -f "$W/read_$x.sql" >"$W/read_$x.out" 2>&1 &
  pids="$pids $!"
done
for p in $pids; do
  wait "$p" || { cat "$W"/read_*.out; fail "a metadata read failed"; }
done
cat "$W"/read_*.out

python3 - "$W" "${P}" "$T0" <<'PY' || fail "metadata read from RocketMQ differs (see above)"
import json, sys
w, p, t0 = sys.argv[1], sys.argv[2], int(sys.argv[3])
bad = []
def rows(x):
    return sorted((json.loads(l) for l in open("%s/%s.json" % (w, x))), key=lambda r: r["id"])
def check(x, n, **want):
    rs = rows(x)
    if [r["id"] for r in rs] != list(range(n)):
        bad.append("%s: ids %s" % (x, [r["id"] for r in rs]))
    ids = set()
    for r in rs:
        i = r["id"]
        for k, v in want.items():
            v = v(i) if callable(v) else v
            if r[k] != v:
                bad.append("%s id %d: %s = %r, want %r" % (x, i, k, r[k], v))
        ids.add(r["message_id"])
        if not r["message_id"] or not r["born_host"]:
            bad.append("%s id %d: no message id or born host: %r" % (x, i, r))
        if r["born"] is None or r["store"] is None or r["store"] < r["born"] - 1000:
            bad.append("%s id %d: born %r store %r" % (x, i, r["born"], r["store"]))
        if r["attempt"] != 1 or r["queue_id"] is None or r["queue_id"] < 0 or r["queue_offset"] < 0:
            bad.append("%s id %d: attempt/queue %r" % (x, i, r))
    if len(ids) != n:
        bad.append("%s: message ids not distinct" % x)
    return rs
check("n", 5, topic=p + "_n", tag="paid", keys=lambda i: [str(i), "order-%d" % i],
      properties=lambda i: {"region": "eu-%d" % i, "tenant": "acme-%d" % i},
      message_group=None, lite_topic=None, delivery=None, message_type="NORMAL")
check("f", 4, topic=p + "_f", tag="f", keys=lambda i: [str(i)], message_group="grp-1",
      lite_topic=None, properties={}, message_type="FIFO")
check("l", 4, topic=p + "_l", tag=None, lite_topic=lambda i: "lt-%d" % (i % 2),
      message_group=None, message_type="LITE")
# the client set the delivery time when it built the message, 2 s ahead (before its producer
# started and stamped born: on a loaded machine that can be long after); the broker stores it
# in the topic's queue at that time, not before
for r in check("d", 3, topic=p + "_d", tag="d", message_type="DELAY"):
    if r["delivery"] is None or not (t0 + 2000 <= r["delivery"] <= r["store"] + 10):
        bad.append("d id %d: delivery %r born %r store %r" % (r["id"], r["delivery"], r["born"], r["store"]))
for b in bad:
    print(b)
print("metadata rows checked: %d problems" % len(bad))
sys.exit(1 if bad else 0)
PY
echo "ok: every readable key of NORMAL, FIFO, LITE and DELAY messages"

