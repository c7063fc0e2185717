#!/usr/bin/env python3
"""Drive `rocketsql` under a pseudo-terminal like a person would.

Types a CREATE TABLE over two lines, checks it ran, then presses the up
arrow and Enter: the recalled statement must run again (and fail with
"already exists", which proves it was the same statement). Then Ctrl-C in
the middle of a statement must discard it and keep the shell (the next
statement runs on its own), and non-ASCII input must reach the engine.
"""
import os
import pty
import select
import sys
import time

rsql, catalog = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm"
    os.environ["LANG"] = "C.UTF-8"
    os.environ.pop("LC_ALL", None)
    os.environ.pop("LC_CTYPE", None)
    os.execv(rsql, [rsql, "--catalog", catalog])

buf = b""


def read_until(needle, timeout=10.0):
    global buf
    end = time.time() + timeout
    while needle.encode() not in buf:
        left = end - time.time()
        if left <= 0:
            sys.stdout.write(buf.decode(errors="replace"))
            raise SystemExit(f"timed out waiting for {needle!r}")
        r, _, _ = select.select([fd], [], [], left)
        if r:
            try:
                data = os.read(fd, 4096)
            except OSError:
                data = b""
            if not data:
                sys.stdout.write(buf.decode(errors="replace"))
                raise SystemExit(f"shell exited before {needle!r}")
            buf += data
    idx = buf.index(needle.encode()) + len(needle)
    seen, buf = buf[:idx], buf[idx:]
    return seen.decode(errors="replace")


read_until("rocketsql> ")
os.write(fd, b"CREATE TABLE t2 (a INT)\r")
read_until("...> ")
os.write(fd, b"WITH ('connector'='blackhole');\r")
read_until("created table t2")
read_until("rocketsql> ")
os.write(fd, b"\x1b[A")  # up arrow
time.sleep(0.3)
os.write(fd, b"\r")
read_until("already exists")
read_until("rocketsql> ")
os.write(fd, b"SELECT nonsense +\r")
read_until("...> ")
os.write(fd, b"  FROM")
time.sleep(0.3)
os.write(fd, b"\x03")  # Ctrl-C: drop the statement, stay in the shell
read_until("^C")
read_until("rocketsql> ")
os.write(fd, b"SHOW TABLES;\r")
read_until("| t2 ")
read_until("rocketsql> ")
os.write(fd, "DESCRIBE t\u00e4\u00df;\r".encode())
read_until("no such table: t\u00e4\u00df")
read_until("rocketsql> ")
os.write(fd, b"quit\r")
_, status = os.waitpid(pid, 0)
sys.exit(0 if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else 1)
