#!/usr/bin/env python3
"""The interactive shell given a NUL byte (Ctrl-@, or pasted), under a pseudo-terminal.

With line editing on, the NUL key would be an editing command and vanish; with it off
(EDITRC with "edit off") it would cut the line short. Either way the shell must report
"1:6: NUL byte (character 0) in SQL text", drop the statement and go on: the next
statement runs. argv: rocketsql catalog [editrc]
"""
import os
import pty
import select
import sys
import time

rsql, catalog = sys.argv[1], sys.argv[2]
editrc = sys.argv[3] if len(sys.argv) > 3 else None
pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = "xterm"
    os.environ["LANG"] = "C.UTF-8"
    if editrc:
        os.environ["EDITRC"] = editrc
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
os.write(fd, b"SHOW \x00TABLES;\r")
read_until("1:6: NUL byte (character 0) in SQL text")
read_until("rocketsql> ")  # a fresh statement, not "...>": the cut line was dropped
os.write(fd, b"SHOW TABLES;\r")
read_until("0 rows")
read_until("rocketsql> ")
os.write(fd, b"quit\r")
_, status = os.waitpid(pid, 0)
sys.exit(0 if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else 1)
