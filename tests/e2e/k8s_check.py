#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# tests/e2e/k8s_check.py: the static checks of tests/e2e/t_kubernetes.sh over examples/kubernetes.
#
#   k8s_check.py EXAMPLE_DIR OUT_DIR
#
# Parses every manifest (kustomization.yaml's resources), checks kinds, apiVersions and what
# ties them together (labels and selectors, ports by name, probe paths, the --http port, the
# mounts of the jobs file and the secret, the security context, the grace period), and writes
# into OUT_DIR: jobs.sql (the ConfigMap's), secrets/<path> (the Secret's values at the paths the
# pod sees them under /etc/rocketsql), args (the container's arguments, one a line) and
# http_port. One "ok ..." line per check; exit 1 with "FAIL ..." lines on stderr.
import os
import re
import sys

import yaml

EXPECTED = {
    "configmap.yaml": ("v1", "ConfigMap"),
    "secret.yaml": ("v1", "Secret"),
    "deployment.yaml": ("apps/v1", "Deployment"),
    "pdb.yaml": ("policy/v1", "PodDisruptionBudget"),
    "service.yaml": ("v1", "Service"),
}
HTTP_PATHS = {"/metrics", "/healthz", "/readyz", "/jobs"}  # cli/serve_http.c
problems = []


def check(cond, what):
    if cond:
        print(f"ok {what}")
    else:
        problems.append(what)
        print(f"FAIL {what}", file=sys.stderr)
    return cond


def main():
    d, out = sys.argv[1], sys.argv[2]
    kust = yaml.safe_load(open(os.path.join(d, "kustomization.yaml")))
    check(kust.get("apiVersion") == "kustomize.config.k8s.io/v1beta1"
          and kust.get("kind") == "Kustomization", "kustomization.yaml: a Kustomization")
    check(sorted(kust.get("resources", [])) == sorted(EXPECTED),
          f"kustomization.yaml lists the manifests: {kust.get('resources')}")
    docs = {}
    for f, (api, kind) in EXPECTED.items():
        all_docs = [x for x in yaml.safe_load_all(open(os.path.join(d, f))) if x]
        check(len(all_docs) == 1, f"{f}: one document")
        m = all_docs[0]
        check(m.get("apiVersion") == api and m.get("kind") == kind,
              f"{f}: {m.get('apiVersion')} {m.get('kind')}, expected {api} {kind}")
        docs[kind] = m
    cm, sec, dep, pdb, svc = (docs[k] for k in ("ConfigMap", "Secret", "Deployment",
                                                "PodDisruptionBudget", "Service"))
    app = {"app.kubernetes.io/name": "rocketsql"}
    spec = dep["spec"]
    tmpl = spec["template"]
    pod = tmpl["spec"]
    check(spec.get("replicas", 1) >= 2, f"Deployment: {spec.get('replicas')} replicas")
    check(spec["selector"]["matchLabels"] == app and tmpl["metadata"]["labels"] == app,
          "Deployment: selector matches the pod labels")
    check(pdb["spec"]["selector"]["matchLabels"] == app, "PodDisruptionBudget selects the pods")
    check(svc["spec"]["selector"] == app, "Service selects the pods")
    check(pdb["spec"].get("maxUnavailable") == 1 or pdb["spec"].get("minAvailable", 0) >= 1,
          "PodDisruptionBudget keeps replicas up")
    c = pod["containers"]
    check(len(c) == 1, "one container")
    c = c[0]
    args = c.get("args", [])
    check("command" not in c, "the container runs the image's ENTRYPOINT (no command)")
    check("serve" in args, f"args run serve: {args}")
    i = args.index("serve") if "serve" in args else 0
    check(args[i + 1:i + 3] == ["--apply", "/etc/rocketsql/jobs.sql"],
          "serve --apply /etc/rocketsql/jobs.sql")
    check("--catalog" in args[:i], "--catalog before serve")
    catalog = args[args.index("--catalog") + 1] if "--catalog" in args else ""
    http = args[args.index("--http") + 1] if "--http" in args else ""
    m = re.fullmatch(r"(0\.0\.0\.0|\[::\]):(\d+)", http)
    check(bool(m), f"--http {http} listens on every address (probes come from the kubelet)")
    port = int(m.group(2)) if m else 0
    ports = {p["name"]: p for p in c.get("ports", [])}
    check("metrics" in ports and ports["metrics"]["containerPort"] == port,
          f"port 'metrics' is the --http port {port}")
    for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")):
        g = c.get(probe, {}).get("httpGet", {})
        check(g.get("path") == path and g.get("path") in HTTP_PATHS,
              f"{probe} GETs {g.get('path')} (want {path})")
        check(g.get("port") in ("metrics", port), f"{probe} on the --http port ({g.get('port')})")
    ann = tmpl["metadata"].get("annotations", {})
    check(ann.get("prometheus.io/scrape") == "true" and ann.get("prometheus.io/port") == str(port)
          and ann.get("prometheus.io/path") == "/metrics",
          "pod annotated for scraping /metrics on the --http port")
    sp = svc["spec"]["ports"]
    check(len(sp) == 1 and sp[0]["name"] == "metrics" and sp[0]["targetPort"] in ("metrics", port),
          "Service: port 'metrics' to the container's metrics port")
    psc, csc = pod.get("securityContext", {}), c.get("securityContext", {})
    check(psc.get("runAsNonRoot") is True and psc.get("runAsUser", 0) != 0,
          "pod runs as non-root")
    check(csc.get("readOnlyRootFilesystem") is True and csc.get("allowPrivilegeEscalation") is False
          and csc.get("capabilities", {}).get("drop") == ["ALL"],
          "container: read-only root fs, no privilege escalation, no capabilities")
    grace = pod.get("terminationGracePeriodSeconds", 30)
    check(grace >= 60, f"terminationGracePeriodSeconds {grace} covers a drain (errors.retry.timeout 30s + a batch)")
    # mounts: the catalog on an emptyDir, the jobs file and the secret where args and SQL say
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    files = {}  # path in the pod -> (kind, object name, key)
    catalog_ok = False
    for vm in c.get("volumeMounts", []):
        v = vols.get(vm["name"], {})
        mp = vm["mountPath"].rstrip("/")
        if "emptyDir" in v and os.path.dirname(catalog) == mp:
            catalog_ok = True
        srcs = v.get("projected", {}).get("sources", [])
        if "configMap" in v:
            srcs = [{"configMap": v["configMap"]}]
        if "secret" in v:
            srcs = [{"secret": {"name": v["secret"]["secretName"], "items": v["secret"].get("items")}}]
        for s in srcs:
            for kind in ("configMap", "secret"):
                if kind in s:
                    for it in s[kind].get("items") or []:
                        files[f"{mp}/{it['path']}"] = (kind, s[kind]["name"], it["key"])
        if vm["mountPath"].startswith("/etc/rocketsql"):
            check(vm.get("readOnly") is True, f"{vm['mountPath']} mounted read-only")
    check(catalog_ok, f"--catalog {catalog} is on an emptyDir")
    check(files.get("/etc/rocketsql/jobs.sql") == ("configMap", cm["metadata"]["name"], "jobs.sql"),
          "/etc/rocketsql/jobs.sql is the ConfigMap's jobs.sql")
    sql = cm["data"]["jobs.sql"]
    refs = re.findall(r"\$\{file:([^}]*)\}", sql)
    check(len(refs) >= 1, f"the jobs file references {len(refs)} secret file(s)")
    sdata = dict(sec.get("stringData", {}))
    for r in sorted(set(refs)):
        check(r.startswith("/etc/rocketsql/secrets/"), f"${{file:{r}}} under /etc/rocketsql/secrets")
        f = files.get(r)
        check(f is not None and f[0] == "secret" and f[1] == sec["metadata"]["name"]
              and f[2] in sdata, f"${{file:{r}}} is key {f[2] if f else '?'} of Secret "
              f"{sec['metadata']['name']}")
        if f and f[2] in sdata:
            p = os.path.join(out, "secrets", os.path.relpath(r, "/etc/rocketsql/secrets"))
            os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, "w").write(sdata[f[2]])
    check("${env:" not in sql, "no ${env:} references (the pod sets no environment)")
    with open(os.path.join(out, "jobs.sql"), "w") as f:
        f.write(sql)
    with open(os.path.join(out, "args"), "w") as f:
        f.write("\n".join(args) + "\n")
    with open(os.path.join(out, "http_port"), "w") as f:
        f.write(f"{port}\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
