#!/usr/bin/env python3
# Slow HTTP clients against rocketsql serve --http (tests/integration/t_serve_http_slow.sh).
#
#   slow_clients.py PORT N FROM_ADDR
#
# Opens N connections to 127.0.0.1:PORT from FROM_ADDR (another loopback address), each
# sending half a request line, and one more from 127.0.0.3 that sends its request a byte every
# 0.5 s (never idle, never done). Prints "connected C failed F" once all N were tried, then
# follows the connections until each is closed by the server (or 15 s pass) and prints
#   open_after_1s K       connections of the N still open 1 s after the last connect
#   last_closed_s S       seconds from the last connect to the last of the N closed (-1: some
#                         still open after 15 s)
#   dribbler_closed_s D   seconds from its first byte to its close (-1: still open)
import select
import socket
import sys
import time


def main():
    port, n, addr = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    socks, failed = [], 0
    for _ in range(n):
        s = socket.socket()
        s.bind((addr, 0))
        s.settimeout(1.0)
        try:
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET /heal")
            socks.append(s)
        except OSError:
            failed += 1
            s.close()
    t0 = time.monotonic()
    print("connected %d failed %d" % (len(socks), failed), flush=True)

    drib = socket.create_connection(("127.0.0.1", port), timeout=1.0,
                                    source_address=("127.0.0.3", 0))
    request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 100
    sent, d0, dribbler_closed = 0, time.monotonic(), -1.0
    next_byte = d0

    open_ = set(socks)
    last_closed, open_after_1s = 0.0, None
    end = t0 + 15
    while time.monotonic() < end and (open_ or dribbler_closed < 0):
        now = time.monotonic()
        if open_after_1s is None and now - t0 >= 1.0:
            open_after_1s = len(open_)
        if dribbler_closed < 0 and now >= next_byte:
            try:
                drib.send(request[sent % len(request):sent % len(request) + 1])
                sent += 1
            except OSError:
                dribbler_closed = now - d0
            next_byte = now + 0.5
        watch = list(open_) + ([drib] if dribbler_closed < 0 else [])
        r, _, _ = select.select(watch, [], [], 0.1)
        for s in r:
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if data:
                continue
            if s is drib:
                dribbler_closed = time.monotonic() - d0
            else:
                open_.discard(s)
                last_closed = time.monotonic() - t0
    if open_after_1s is None:
        open_after_1s = len(open_)
    print("open_after_1s %d" % open_after_1s)
    print("last_closed_s %.1f" % (last_closed if not open_ else -1))
    print("dribbler_closed_s %.1f" % dribbler_closed, flush=True)


main()
