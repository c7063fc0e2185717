#!/usr/bin/env python3
"""Drive `rocketsql` under a pseudo-terminal like a person would.

Types a CREATE TABLE over two lines, checks it ran, then presses the up
arrow and Enter: the recalled statement must run again (and fail with
"already exists", which proves it was the same statement). Then Ctrl-C in
the middle of a statement must discard it and keep the shell (the next
statement runs on its own), and non-ASCII input must reach the engine.
Ctrl-C while a line of statements runs stops the running INSERT (its summary
says interrupted) and the rest of the line, and the shell stays. Last, a print
sink's rows on the terminal never run into the live status line: the line is
cleared ("\\r" then clear to the end of the line) before each batch of rows.
"""
import os
import re
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptylib import Shell  # noqa: E402

rsql, catalog = sys.argv[1], sys.argv[2]
sh = Shell(rsql, catalog)

sh.read_until("rocketsql> ")
sh.write(b"CREATE TABLE t2 (a INT)\r")
sh.read_until("...> ")
sh.write(b"WITH ('connector'='blackhole');\r")
sh.read_until("created table t2")
sh.read_until("rocketsql> ")
sh.write(b"\x1b[A")  # up arrow
time.sleep(0.3)
sh.write(b"\r")
sh.read_until("already exists")
sh.read_until("rocketsql> ")
sh.write(b"SELECT nonsense +\r")
sh.read_until("...> ")
sh.write(b"  FROM")
time.sleep(0.3)
sh.write(b"\x03")  # Ctrl-C: drop the statement, stay in the shell
sh.read_until("^C")
sh.read_until("rocketsql> ")
sh.write(b"SHOW TABLES;\r")
sh.read_until("| t2 ")
sh.read_until("rocketsql> ")
sh.write("DESCRIBE t\u00e4\u00df;\r".encode())
sh.read_until("no such table: t\u00e4\u00df")
sh.read_until("rocketsql> ")
sh.write(b"CREATE TABLE gen (a INT) WITH ('connector'='datagen', 'rows-per-second'='100');\r")
sh.read_until("created table gen")
sh.read_until("rocketsql> ")
# Ctrl-C while a line of statements runs: the running INSERT stops (its summary says
# interrupted), the rest of the line does not run, and the shell stays
sh.write(b"INSERT INTO t2 SELECT a FROM gen; INSERT INTO t2 SELECT a FROM gen; SHOW TABLES;\r")
sh.read_until("read=")  # the live status line: the run handles the signal
sh.write(b"\x03")
sh.read_until(" interrupted")
sh.read_until("interrupted by SIGINT; the rest of the script was not run")
sh.read_until("rocketsql> ")
# rows printed while the status line is drawn start on a clean line
sh.write(b"CREATE TABLE pr (a INT) WITH ('connector'='print');\r")
sh.read_until("created table pr")
sh.read_until("rocketsql> ")
sh.write(b"SET 'status.interval'='100ms';\r")
sh.read_until("rocketsql> ")
sh.write(b"INSERT INTO pr SELECT a FROM gen;\r")
seen = sh.read_until(" rows/s")  # the first status line is drawn
seen += sh.read_until("+I[")  # a row after it
seen += sh.read_until(" rows/s")  # and the line drawn again after the row
sh.write(b"\x03")
seen += sh.read_until(" interrupted")
sh.read_until("rocketsql> ")
rows = [m.start() for m in re.finditer(re.escape("+I["), seen)]
after_status = [i for i in rows if "rows/s" in seen[:i]]
if not after_status:
    raise SystemExit(f"no row printed after the status line: {seen!r}")
for i in rows:
    if not (seen[:i].endswith("\n") or seen[:i].endswith("\r\x1b[K")):
        raise SystemExit(f"a row runs into the status line: {seen[max(0, i - 120):i + 20]!r}")
sh.write(b"quit\r")
sys.exit(sh.wait())
