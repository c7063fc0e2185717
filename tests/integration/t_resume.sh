#!/usr/bin/env bash
# Positions belong to the tables as created: a statement run again after both tables were
# dropped and re-created (and the sink's database removed) reads everything again; an
# exactly-once sink whose rows are still there resumes after them (its own stored positions:
# never written twice) and says so; a resumed run says where it resumes (stderr, SHOW JOB
# RUNS, EXPLAIN); RESET POSITIONS and `run JOB --from-start` start over.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"

cd "$T"
seq 1 5 | sed 's/.*/{"id":&}/' >in.json
ddl="CREATE TABLE src (id BIGINT) WITH ('connector'='filesystem', 'path'='in.json', 'format'='json');
CREATE TABLE dst (id BIGINT) WITH ('connector'='sqlite', 'path'='out.db', 'table'='dst');"
ins="INSERT INTO dst SELECT id FROM src;"
rows() { sqlite3 out.db 'SELECT count(*) FROM dst'; }

run_rsql -e "$ddl $ins"
[ "$RC" = 0 ] && [ "$(rows)" = 5 ] || fail "first run: rc $RC, $(rows) rows: $ERR"
case "$ERR" in *resuming*) fail "a first run said it resumes: $ERR" ;; esac
ok "a first run reads from the start and says nothing about resuming"

run_rsql -e "EXPLAIN $ins"
case "$OUT" in
*"Resume: a run resumes where insert:src->dst left off: in.json at 45 (RESET POSITIONS 'insert:src->dst' starts over)"*) ;;
*) fail "EXPLAIN does not say it would resume: $OUT" ;;
esac
run_rsql -e "$ins SHOW JOB RUNS;"
[ "$RC" = 0 ] && [ "$(rows)" = 5 ] || fail "second run: rc $RC, $(rows) rows: $ERR"
case "$ERR" in
*"resuming insert:src->dst where it left off: in.json at 45 (RESET POSITIONS 'insert:src->dst' starts over)"*) ;;
*) fail "a resumed run does not say so on stderr: $ERR" ;;
esac
case "$OUT" in *"| in.json at 45 |"*) ;; *) fail "SHOW JOB RUNS has no resumed_from: $OUT" ;; esac
ok "a resumed run says where it resumes: stderr, SHOW JOB RUNS, and EXPLAIN before it"

# both tables dropped and re-created, the sink's database kept: the catalog forgot, but the
# exactly-once sink still holds the rows and the positions stored with them, so the run
# resumes after them (reading again would write each row a second time), and says so
run_rsql -e "DROP TABLE src; DROP TABLE dst; $ddl EXPLAIN $ins"
case "$OUT" in *"Resume: no positions of insert:src->dst in the catalog; a run resumes after what the sqlite sink holds of it"*) ;;
*) fail "EXPLAIN after re-creating: $OUT" ;; esac
[ "$(sqlite3 "$CAT" "SELECT count(*) FROM offsets WHERE pipeline LIKE 'insert:src->dst%'")" = 0 ] ||
    fail "the dropped tables' positions were kept: $(sqlite3 "$CAT" 'SELECT * FROM offsets')"
run_rsql -e "$ins"
[ "$RC" = 0 ] && [ "$(rows)" = 5 ] || fail "re-created tables, sink kept: rc $RC, $(rows) rows (want 5): $ERR"
case "$ERR" in *"resuming insert:src->dst where it left off: in.json at 45"*) ;;
*) fail "a run that resumed from the sink's positions did not say so: $ERR" ;; esac
ok "dropping the tables forgets the catalog's positions; the sink's rows are not written twice, and the run says it resumes"

# the sink's database removed too (the quickstart's start-over): everything is read again
rm -f out.db
run_rsql -e "DROP TABLE src; DROP TABLE dst; $ddl $ins"
[ "$RC" = 0 ] && [ "$(rows)" = 5 ] || fail "re-created tables, new sink: rc $RC, $(rows) rows (want 5): $ERR"
case "$ERR" in *resuming*) fail "a run of re-created tables into a new database resumed: $ERR" ;; esac
ok "dropping and re-creating the tables with a new sink database starts over"

# only the source re-created: the sink's stored positions still hold; the run says it resumes
run_rsql -e "DROP TABLE src; CREATE TABLE src (id BIGINT) WITH ('connector'='filesystem', 'path'='in.json', 'format'='json'); $ins"
[ "$RC" = 0 ] && [ "$(rows)" = 5 ] || fail "re-created source: rc $RC, $(rows) rows (want 5): $ERR"
case "$ERR" in *"resuming insert:src->dst where it left off"*) ;; *) fail "re-created source: $ERR" ;; esac
ok "a re-created source over the same sink resumes after the sink's rows, and says so"

run_rsql -e "RESET POSITIONS 'insert:src->dst'; $ins"
[ "$RC" = 0 ] && [ "$(rows)" = 10 ] || fail "RESET POSITIONS: rc $RC, $(rows) rows: $OUT $ERR"
case "$OUT" in *"forgot the positions of insert:src->dst ("*" saved); its next run starts from the beginning"*) ;;
*) fail "RESET POSITIONS says: $OUT" ;; esac
ok "RESET POSITIONS starts a statement over (the exactly-once sink's positions too)"

run_rsql -e "CREATE JOB j AS $ins RUN JOB j;"
[ "$(rows)" = 15 ] || fail "job: $(rows) rows: $ERR"
run_rsql run j
[ "$RC" = 0 ] && [ "$(rows)" = 15 ] || fail "job again: rc $RC, $(rows) rows: $ERR"
case "$ERR" in *"resuming j where it left off"*) ;; *) fail "run j: $ERR" ;; esac
run_rsql run j --from-start
[ "$RC" = 0 ] && [ "$(rows)" = 20 ] || fail "--from-start: rc $RC, $(rows) rows: $ERR"
case "$ERR" in *"forgot the positions of j (1 saved); this run starts from the beginning"*) ;;
*) fail "--from-start says: $ERR" ;; esac
case "$ERR" in *resuming*) fail "--from-start resumed: $ERR" ;; esac
run_rsql run j --from-the-start
[ "$RC" = 64 ] || fail "a bad run argument is not a usage error: $RC"
ok "rocketsql run JOB --from-start starts a job over"
