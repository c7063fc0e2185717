#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# tests/e2e/promql_names.py: the checks of tests/e2e/t_monitoring.sh over examples/monitoring.
#
#   promql_names.py KNOWN_NAMES_FILE OUT_RULES_FILE dashboard.json alerts.yml
#
# KNOWN_NAMES_FILE lists the series that exist, one a line. The script checks that the
# dashboard is a Grafana dashboard model (title, uid, schemaVersion, a `datasource` variable of
# type datasource for Prometheus, unique panel ids, every panel's and target's datasource that
# variable), takes every PromQL expression of its targets and variable queries and of the
# alerting rules, and fails naming each series name that is not in KNOWN_NAMES_FILE. It writes
# the dashboard's expressions, Grafana variables replaced, as recording rules into
# OUT_RULES_FILE for `promtool check rules` (their syntax). Exit 0 when all is well, 1 with one
# line per problem on stderr.
import json
import re
import sys

import yaml

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and",
            "or", "unless", "offset", "inf", "nan", "atan2", "start", "end"}
GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
IDENT = re.compile(r"[A-Za-z_:][A-Za-z0-9_:]*")


def grafana_to_promql(expr):
    """Grafana's variables and label_values() replaced, so promtool can parse the result."""
    expr = expr.replace("$__rate_interval", "5m").replace("$__interval", "1m")
    expr = expr.replace("$__range", "1h")
    expr = re.sub(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", ".*", expr)
    m = re.fullmatch(r"\s*label_values\((.*),\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*", expr, re.S)
    if m:
        expr = m.group(1)
    return expr


def series_names(expr):
    """The series names an expression selects: identifiers that are neither functions nor
    keywords nor labels (matchers, grouping lists) nor in strings or durations."""
    s = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'', '""', expr)
    s = re.sub(r"\{[^}]*\}", " ", s)
    s = re.sub(r"\[[^\]]*\]", " ", s)
    s = GROUPING.sub(" ", s)
    names = set()
    for m in IDENT.finditer(s):
        word = m.group(0)
        if m.start() > 0 and (s[m.start() - 1].isdigit() or s[m.start() - 1] == "."):
            continue  # a number's exponent or unit (1e3)
        rest = s[m.end():].lstrip()
        if rest.startswith("("):
            continue  # a function or an aggregation
        if word.lower() in KEYWORDS:
            continue
        names.add(word)
    return names


def main():
    known_file, rules_out, dash_file, alerts_file = sys.argv[1:5]
    known = {l.strip() for l in open(known_file) if l.strip()}
    problems = []
    try:
        dash = json.load(open(dash_file))
    except ValueError as e:
        print(f"{dash_file}: not JSON: {e}", file=sys.stderr)
        return 1
    for key in ("title", "uid", "schemaVersion", "panels", "templating"):
        if key not in dash:
            problems.append(f"{dash_file}: no {key}")
    tvars = {v.get("name"): v for v in dash.get("templating", {}).get("list", [])}
    dsv = tvars.get("datasource")
    if not dsv or dsv.get("type") != "datasource" or dsv.get("query") != "prometheus":
        problems.append(f"{dash_file}: no datasource variable of type datasource for prometheus")
    want_ds = {"type": "prometheus", "uid": "${datasource}"}
    exprs = []  # (where, expr)
    ids = set()
    for p in dash.get("panels", []):
        for k in ("id", "type", "title", "gridPos"):
            if k not in p:
                problems.append(f"{dash_file}: panel {p.get('title')!r} has no {k}")
        if p.get("id") in ids:
            problems.append(f"{dash_file}: panel id {p.get('id')} twice")
        ids.add(p.get("id"))
        if p.get("type") == "row":
            continue
        if p.get("datasource") != want_ds:
            problems.append(f"{dash_file}: panel {p.get('title')!r}: datasource {p.get('datasource')}")
        if not p.get("targets"):
            problems.append(f"{dash_file}: panel {p.get('title')!r} has no targets")
        for t in p.get("targets", []):
            if t.get("datasource") != want_ds:
                problems.append(f"{dash_file}: panel {p.get('title')!r} target {t.get('refId')}: "
                                f"datasource {t.get('datasource')}")
            if not t.get("expr"):
                problems.append(f"{dash_file}: panel {p.get('title')!r} target without expr")
                continue
            exprs.append((f"panel {p['title']!r} {t.get('refId')}", grafana_to_promql(t["expr"])))
    for name, v in tvars.items():
        if v.get("type") == "query":
            q = v.get("query")
            q = q.get("query") if isinstance(q, dict) else q
            exprs.append((f"variable {name}", grafana_to_promql(q)))
    rules = yaml.safe_load(open(alerts_file))
    alert_exprs = [(f"alert {r['alert']}", r["expr"]) for g in rules["groups"] for r in g["rules"]]
    for where, e in exprs + alert_exprs:
        names = series_names(e)
        if not names:
            problems.append(f"{where}: selects no series: {e}")
        for n in sorted(names - known):
            problems.append(f"{where}: no such series: {n}")
    with open(rules_out, "w") as f:
        yaml.safe_dump({"groups": [{"name": "dashboard", "rules": [
            {"record": f"dashboard:expr_{i}", "expr": e} for i, (_, e) in enumerate(exprs)]}]}, f)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(exprs)} dashboard expressions, {len(alert_exprs)} alert expressions, "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
