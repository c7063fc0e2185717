#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# tcp_forward.py TARGET_HOST:TARGET_PORT LOGFILE: a loopback TCP forwarder for the RocketMQ
# tests (t_secure.sh's failover case). Listens on 127.0.0.1 at a free port and copies bytes
# both ways between each accepted connection and a new connection to the target (TLS passes
# through untouched). LOGFILE gets "port P" once listening, then "open N" when connection N is
# accepted and "close N" when it ends, each line flushed at once, so a test can wait on
# them. Runs until killed.
import asyncio
import sys


async def pipe(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        try:
            writer.close()
        except OSError:
            pass


async def main():
    host, port = sys.argv[1].rsplit(":", 1)
    log = open(sys.argv[2], "a", buffering=1)
    count = 0

    async def handle(creader, cwriter):
        nonlocal count
        count += 1
        n = count
        log.write(f"open {n}\n")
        try:
            sreader, swriter = await asyncio.open_connection(host, int(port))
        except OSError:
            cwriter.close()
            log.write(f"close {n}\n")
            return
        await asyncio.gather(pipe(creader, swriter), pipe(sreader, cwriter))
        log.write(f"close {n}\n")

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    log.write(f"port {server.sockets[0].getsockname()[1]}\n")
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
