#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_monitoring.sh: examples/monitoring holds together. The alerting rules pass `promtool check
# rules` and their unit tests (`promtool test rules alerts_test.yml`, every rule firing and not),
# prometheus.yml passes `promtool check config`; the Grafana dashboard is a dashboard model
# whose every PromQL expression parses (promtool) and names only series that exist: the
# rocketsql_* families of a real `rocketsql serve` /metrics scrape (a file -> file job) and the
# broker series documented in docs/ROCKETMQ-NOTES.md §13 (tests/rocketmq/t_broker_metrics.sh
# checks those on a real broker). The alert expressions too. A misspelt series in a copy of the
# dashboard or of the rules is caught. Needs promtool (Debian package prometheus); no broker.
set -e
. "$RSQL_SRCDIR/tests/e2e/lib.sh"
command -v promtool >/dev/null || fail "promtool is needed (Debian package prometheus; scripts/setup)"
command -v curl >/dev/null || fail "curl is needed"
MON="$RSQL_SRCDIR/examples/monitoring"
CHECK="$RSQL_SRCDIR/tests/e2e/promql_names.py"

# ---- 1. the rules and the configuration, with promtool
(cd "$MON" && promtool check rules alerts.yml) >rules.out 2>&1 || fail "promtool check rules: $(cat rules.out)"
grep -q "SUCCESS: 6 rules found" rules.out || fail "alerts.yml: $(cat rules.out)"
ok "promtool check rules alerts.yml: 6 rules"
(cd "$MON" && promtool test rules alerts_test.yml) >test.out 2>&1 || fail "promtool test rules: $(cat test.out)"
ok "promtool test rules alerts_test.yml passes"
(cd "$MON" && promtool check config prometheus.yml) >config.out 2>&1 || fail "promtool check config: $(cat config.out)"
ok "promtool check config prometheus.yml"
# every rule has a firing and a quiet case in the unit tests
python3 - "$MON/alerts.yml" "$MON/alerts_test.yml" <<'PY' || fail "alerts_test.yml does not test every rule both ways"
import sys, yaml
rules = [r["alert"] for g in yaml.safe_load(open(sys.argv[1]))["groups"] for r in g["rules"]]
fires, quiet = set(), set()
for t in yaml.safe_load(open(sys.argv[2]))["tests"]:
    for c in t.get("alert_rule_test", []):
        (fires if c.get("exp_alerts") else quiet).add(c["alertname"])
bad = [r for r in rules if r not in fires or r not in quiet]
for r in rules:
    print(f"{r}: fires {'yes' if r in fires else 'NO'}, quiet {'yes' if r in quiet else 'NO'}")
sys.exit(1 if bad else 0)
PY
ok "alerts_test.yml has a firing and a not-firing case for every rule"

# ---- 2. the series that exist: a real serve scrape, over a tiny file -> file job
printf '{"id":1,"v":"a"}\n{"id":2,"v":"b"}\n{"id":3,"v":"c"}\n' >in.json
rsql -e "
CREATE TABLE src (id INT, v VARCHAR) WITH ('connector'='filesystem', 'path'='$T/in.json',
  'scan.follow'='true', 'scan.poll-interval'='50ms');
CREATE TABLE dst (id INT, v VARCHAR) WITH ('connector'='filesystem', 'path'='$T/out.json');
CREATE JOB copy AS INSERT INTO dst SELECT id, v FROM src WHERE id > 1"
expect_rc 0 "catalog with one file job"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$RSQL" --catalog "$CAT" serve --http "127.0.0.1:$PORT" >serve.out 2>serve.err &
SPID=$!
e2e_pids="$SPID"
get() { curl -sf --max-time 5 -o "$2" "http://127.0.0.1:$PORT$1"; }
filtered_seen() { get /metrics m.txt && grep -q '^rocketsql_records_filtered_total{job="copy"} 1$' m.txt &&
    grep -q '^rocketsql_records_written_total{job="copy"} 2$' m.txt; }
wait_until 30 get /readyz ready.txt || fail "serve never ready: $(cat serve.err)"
wait_until 30 filtered_seen || fail "the job's counts never reached the metrics: $(cat m.txt serve.err)"
ok "serve /metrics counts the file job (2 written, 1 filtered)"
promtool check metrics <m.txt >pm.out 2>&1 || fail "promtool check metrics: $(cat pm.out)"
kill -TERM "$SPID"
wait_pid "$SPID" 30
same "$RC" 0 "serve drains and exits 0 on SIGTERM"
e2e_pids=""

# every family the scrape declares; a histogram's as its _bucket, _sum and _count series
python3 - m.txt <<'PY' >known.txt
import sys
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 4 and p[0] == "#" and p[1] == "TYPE":
        print(p[2])
        if p[3] in ("histogram", "summary"):
            for s in ("_bucket", "_sum", "_count"):
                print(p[2] + s)
PY
[ "$(grep -c '^rocketsql_' known.txt)" -ge 40 ] || fail "too few rocketsql series in the scrape: $(cat known.txt)"
# the broker series the notes' table documents (§13), and Prometheus's own `up`
sed -n '/^## 13\./,/^## /p' "$RSQL_SRCDIR/docs/ROCKETMQ-NOTES.md" | grep '^ *| `rocketmq_' |
    cut -d'|' -f2 | grep -o 'rocketmq_[a-z_]*' | sort -u >broker.txt
[ "$(wc -l <broker.txt)" -ge 5 ] || fail "docs/ROCKETMQ-NOTES.md §13 documents too few broker series: $(cat broker.txt)"
cat broker.txt >>known.txt
echo up >>known.txt
grep -qx rocketsql_source_backlog known.txt || fail "the scrape has no rocketsql_source_backlog"
ok "known series: $(grep -c '^rocketsql_' known.txt) rocketsql_*, $(wc -l <broker.txt) broker"

# ---- 3. the dashboard and the alert expressions against them
python3 "$CHECK" known.txt dash_rules.yml "$MON/dashboard.json" "$MON/alerts.yml" >chk.out 2>&1 ||
    fail "dashboard/alerts: $(cat chk.out)"
grep -q ' 0 problem(s)$' chk.out || fail "checker: $(cat chk.out)"
ok "dashboard: $(cat chk.out)"
promtool check rules dash_rules.yml >dr.out 2>&1 || fail "a dashboard expression does not parse: $(cat dr.out)"
ok "every dashboard expression parses (promtool check rules over them as recording rules)"

# ---- 4. a typo is caught: in the dashboard, in an alert (by the checker and by the unit tests)
sed '0,/rate(rocketsql_records_written_total{/s//rate(rocketsql_records_writen_total{/' "$MON/dashboard.json" >typo.json
cmp -s typo.json "$MON/dashboard.json" && fail "the typo was not made"
if python3 "$CHECK" known.txt typo_rules.yml typo.json "$MON/alerts.yml" >typo.out 2>&1; then
    fail "a misspelt series in the dashboard passed: $(cat typo.out)"
fi
grep -q "no such series: rocketsql_records_writen_total" typo.out || fail "typo not named: $(cat typo.out)"
ok "a misspelt series in the dashboard is named"
mkdir typo && cp "$MON/alerts_test.yml" typo/
sed 's/rocketsql_records_dead_lettered_total/rocketsql_records_deadlettered_total/' "$MON/alerts.yml" >typo/alerts.yml
if python3 "$CHECK" known.txt typo_rules.yml "$MON/dashboard.json" typo/alerts.yml >typo2.out 2>&1; then
    fail "a misspelt series in an alert passed: $(cat typo2.out)"
fi
grep -q "alert RocketsqlDeadLetters: no such series: rocketsql_records_deadlettered_total" typo2.out ||
    fail "alert typo not named: $(cat typo2.out)"
(cd typo && promtool test rules alerts_test.yml) >typo3.out 2>&1 && fail "the unit tests passed a misspelt rule"
grep -q "RocketsqlDeadLetters" typo3.out || fail "unit tests failed elsewhere: $(cat typo3.out)"
ok "a misspelt series in an alert is named, and its unit test fails"
echo "PASS"
