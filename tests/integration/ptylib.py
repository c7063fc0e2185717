"""Run `rocketsql` under a pseudo-terminal and read its screen (pty_shell.py, pty_nul.py)."""
import os
import pty
import select
import signal
import sys
import time


class Shell:
    """rocketsql --catalog CATALOG on a new pseudo-terminal, with TERM=xterm and a UTF-8
    locale (LC_ALL and LC_CTYPE unset) plus the given environment."""

    def __init__(self, rsql, catalog, env=None):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["TERM"] = "xterm"
            os.environ["LANG"] = "C.UTF-8"
            os.environ.pop("LC_ALL", None)
            os.environ.pop("LC_CTYPE", None)
            os.environ.update(env or {})
            os.execv(rsql, [rsql, "--catalog", catalog])
        self.buf = b""

    def write(self, data):
        os.write(self.fd, data)

    def read_until(self, needle, timeout=30.0):
        """The screen up to and including needle (consumed); exits the test, printing what
        was seen, when the shell ends or timeout seconds pass first."""
        end = time.time() + timeout
        while needle.encode() not in self.buf:
            left = end - time.time()
            if left <= 0:
                sys.stdout.write(self.buf.decode(errors="replace"))
                raise SystemExit(f"timed out waiting for {needle!r}")
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                try:
                    data = os.read(self.fd, 4096)
                except OSError:
                    data = b""
                if not data:
                    sys.stdout.write(self.buf.decode(errors="replace"))
                    raise SystemExit(f"shell exited before {needle!r}")
                self.buf += data
        idx = self.buf.index(needle.encode()) + len(needle)
        seen, self.buf = self.buf[:idx], self.buf[idx:]
        return seen.decode(errors="replace")

    def wait(self, timeout=30.0):
        """0 when the shell exited with status 0, else 1 (also when it has not exited within
        timeout seconds: it is killed then, and what it printed meanwhile is shown)."""
        end = time.time() + timeout
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid == self.pid:
                return 0 if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else 1
            left = end - time.time()
            if left <= 0:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                sys.stdout.write(self.buf.decode(errors="replace"))
                sys.stdout.write("\nthe shell did not exit\n")
                return 1
            r, _, _ = select.select([self.fd], [], [], min(left, 0.5))
            if r:
                try:
                    self.buf += os.read(self.fd, 4096)
                except OSError:
                    pass
