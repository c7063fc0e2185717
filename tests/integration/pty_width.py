#!/usr/bin/env python3
"""SHOW OPTIONS in the shell on a terminal 132 columns wide (TIOCSWINSZ), COLUMNS unset:
the table takes the terminal's width (not the 100 of a pipe) and no line is wider."""
import fcntl
import os
import struct
import sys
import termios

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptylib import Shell  # noqa: E402

rsql, catalog = sys.argv[1], sys.argv[2]
os.environ.pop("COLUMNS", None)
sh = Shell(rsql, catalog)
fcntl.ioctl(sh.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 132, 0, 0))
sh.read_until("rocketsql> ")
sh.write(b"SHOW OPTIONS FOR CONNECTOR 'filesystem';\r")
screen = sh.read_until(" rows\r\n")  # the count line that ends the table
lines = [l for l in screen.replace("\r", "").split("\n") if l.startswith(("+", "|"))]
widths = sorted({len(l) for l in lines})
if not lines or widths != [132]:
    sys.stdout.write(screen)
    raise SystemExit(f"table line widths {widths}, want every line 132")
sh.read_until("rocketsql> ")
sh.write(b"quit\r")
raise SystemExit(sh.wait())
