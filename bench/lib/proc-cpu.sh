# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# bench/lib/proc-cpu.sh: sourced by the benches that count CPU seconds from /proc
# (bench/changelog/run, bench/postgres/source-read, bench/cdc/run).
#
#   bench_proc_cpu PID            user + system CPU seconds of a live process so far (all its
#                                 threads: utime + stime of /proc/PID/stat)
#   bench_pg_server_cpu PM        a PostgreSQL server's CPU seconds so far: the postmaster PM's
#                                 own, its ended children's (cutime + cstime) and its live
#                                 children's (utime + stime: backends, WAL senders, ...)
#   bench_pg_backends PM          how many children PM has now
#   bench_pg_backends_gone PM N   wait (at most 5 s) until PM has at most N children again, so
#                                 that the CPU of the backends that ended is in its cutime + cstime

bench_proc_cpu() {
  awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$1/stat"
}

bench_pg_server_cpu() {
  local hz t p
  hz=$(getconf CLK_TCK)
  t=$(awk -v hz="$hz" '{print ($14 + $15 + $16 + $17) / hz}' "/proc/$1/stat")
  for p in $(pgrep -P "$1"); do
    t=$(awk -v t="$t" -v hz="$hz" '{print t + ($14 + $15) / hz}' "/proc/$p/stat" 2>/dev/null || echo "$t")
  done
  echo "$t"
}

bench_pg_backends() { pgrep -c -P "$1" || true; }

bench_pg_backends_gone() {
  local i=0
  while [ "$(bench_pg_backends "$1")" -gt "$2" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}
