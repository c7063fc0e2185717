#!/usr/bin/env python3
"""The interactive shell given a NUL byte (Ctrl-@, or pasted), under a pseudo-terminal.

With line editing on, the NUL key would be an editing command and vanish; with it off
(EDITRC with "edit off") it would cut the line short. Either way the shell must report
"1:6: NUL byte (character 0) in SQL text", drop the statement and go on: the next
statement runs. argv: rocketsql catalog [editrc]
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptylib import Shell  # noqa: E402

rsql, catalog = sys.argv[1], sys.argv[2]
editrc = sys.argv[3] if len(sys.argv) > 3 else None
sh = Shell(rsql, catalog, {"EDITRC": editrc} if editrc else None)

sh.read_until("rocketsql> ")
sh.write(b"SHOW \x00TABLES;\r")
sh.read_until("1:6: NUL byte (character 0) in SQL text")
sh.read_until("rocketsql> ")  # a fresh statement, not "...>": the cut line was dropped
sh.write(b"SHOW TABLES;\r")
sh.read_until("0 rows")
sh.read_until("rocketsql> ")
sh.write(b"quit\r")
sys.exit(sh.wait())
