#!/usr/bin/env python3
"""debezium_gen.py SEED plain|schema: Debezium's PostgreSQL change events (3.x, pgoutput)
for a random workload on public.orders (id bigint key, name text, qty int, price
numeric(10, 2), updated timestamp, born date), as its JSON converter writes them: a snapshot
(op r), then inserts (c), updates (u; half of them with REPLICA IDENTITY FULL, the others
with a null before), deletes (d; half with the key-only before of the default identity) and
a tombstone (an empty line) after some deletes. "plain": no schema, decimal.handling.mode
string-like ("123.45") and timestamps as ISO-8601 strings (a timestamptz); "schema": the
schema envelope with Debezium's defaults: price a Connect Decimal (base64 bytes, scale 2),
updated a MicroTimestamp (epoch microseconds), born a Date (epoch days). Writes
events.jsonl, and final.csv (the table after the workload: id,name,qty,price,updated,born as
rocketsql writes them; NULL empty) in the current directory; prints the kinds a reader
should see ("+I=.. -U=.. +U=.. -D=..")."""
import json, random, sys, base64, datetime, csv
seed, schema = int(sys.argv[1]), sys.argv[2] == "schema"
r = random.Random(seed)
EPOCH = datetime.datetime(1970, 1, 1)
rows, out = {}, []
clock = 1772360130250
def b64dec(unscaled):
    n = (unscaled.bit_length() + 8) // 8
    return base64.b64encode(unscaled.to_bytes(n, "big", signed=True)).decode()
def row(k):
    ms = clock - r.randrange(0, 86400000 * 400)
    if r.random() < 0.15:  # before 1970: microseconds round down to the millisecond below
        ms = -r.randrange(1, 10**11)
    return {"id": k, "name": None if r.random() < 0.1 else "n%d\"\\%d" % (k, r.randrange(999)),
            "qty": r.randrange(-1000, 100000), "price": r.randrange(-10**7, 10**9),
            "updated": ms * 1000 + r.randrange(1000), "born": r.randrange(-3000, 30000)}
def image(v, key_only=False):
    if v is None: return None
    if key_only: return {"id": v["id"], "name": None, "qty": None, "price": None, "updated": None, "born": None}
    price = b64dec(v["price"]) if schema else "%.2f" % (v["price"] / 100)
    if schema: upd = v["updated"]
    else: upd = (EPOCH + datetime.timedelta(microseconds=v["updated"])).isoformat() + "Z"
    return {"id": v["id"], "name": v["name"], "qty": v["qty"], "price": price, "updated": upd, "born": v["born"]}
SCHEMA = {"type": "struct", "optional": False, "name": "shop.public.orders.Envelope", "fields": [
    {"type": "struct", "optional": True, "field": side, "fields": [
        {"type": "int64", "optional": False, "field": "id"},
        {"type": "string", "optional": True, "field": "name"},
        {"type": "int32", "optional": True, "field": "qty"},
        {"type": "bytes", "optional": True, "name": "org.apache.kafka.connect.data.Decimal", "version": 1,
         "parameters": {"scale": "2", "connect.decimal.precision": "10"}, "field": "price"},
        {"type": "int64", "optional": True, "name": "io.debezium.time.MicroTimestamp", "version": 1, "field": "updated"},
        {"type": "int32", "optional": True, "name": "io.debezium.time.Date", "version": 1, "field": "born"}]}
    for side in ("before", "after")] + [{"type": "string", "optional": False, "field": "op"}]}
def emit(op, before, after):
    global clock
    clock += r.randrange(1, 50)
    ev = {"before": before, "after": after, "source": {"version": "3.6.1.Final", "connector": "postgresql",
          "name": "shop", "ts_ms": clock, "snapshot": "false", "db": "shopdb", "schema": "public",
          "table": "orders", "txId": clock % 100000, "lsn": clock * 8, "xmin": None},
          "transaction": None, "op": op, "ts_ms": clock + 7}
    out.append(json.dumps({"schema": SCHEMA, "payload": ev} if schema else ev, separators=(",", ":")))
kinds = {"+I": 0, "-U": 0, "+U": 0, "-D": 0}
for k in range(1, 41):  # the snapshot
    rows[k] = row(k); emit("r", None, image(rows[k])); kinds["+I"] += 1
for _ in range(1500):
    k = r.randrange(1, 151)
    if k not in rows:
        rows[k] = row(k); emit("c", None, image(rows[k])); kinds["+I"] += 1
    elif r.random() < 0.25:
        emit("d", image(rows[k], key_only=r.random() < 0.5), None); del rows[k]; kinds["-D"] += 1
        if r.random() < 0.5: out.append("")  # the tombstone after a delete
    else:
        old, new = rows[k], row(k)
        full = r.random() < 0.5  # REPLICA IDENTITY FULL, else before is null
        emit("u", image(old) if full else None, image(new)); rows[k] = new
        kinds["+U"] += 1; kinds["-U"] += 1 if full else 0
open("events.jsonl", "w").write("\n".join(out) + "\n")
with open("final.csv", "w", newline="") as f:
    w = csv.writer(f)
    for k in sorted(rows):
        v = rows[k]
        w.writerow([k, "" if v["name"] is None else v["name"], v["qty"], "%.2f" % (v["price"] / 100),
                    (EPOCH + datetime.timedelta(milliseconds=v["updated"] // 1000)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3],
                    (datetime.date(1970, 1, 1) + datetime.timedelta(days=v["born"])).isoformat()])
print(" ".join("%s=%d" % kv for kv in kinds.items()))
