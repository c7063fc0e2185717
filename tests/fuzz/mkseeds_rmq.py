#!/usr/bin/env python3
"""Write the seed corpus of fuzz_rmq_decode (tests/fuzz/corpus/fuzz_rmq_decode/).

Each seed is one selector byte (0 ReceiveMessageResponse, 1 Message, 2 a unary response with
the RPC in the next byte, 3 QueryRouteResponse, 4 TelemetryCommand, 5 inflate alone) and the
protobuf wire bytes, encoded here by hand (field numbers from proto/apache/rocketmq/v2/), so
the seeds need nothing but Python. Run from anywhere; rewrites the files it owns.
"""
import gzip
import os
import zlib

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "fuzz_rmq_decode")


def varint(n):
    n &= (1 << 64) - 1
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def f_varint(field, n):
    return varint(field << 3) + varint(n)


def f_bytes(field, data):
    if isinstance(data, str):
        data = data.encode()
    return varint(field << 3 | 2) + varint(len(data)) + data


def timestamp(seconds, nanos=0):
    return f_varint(1, seconds) + f_varint(2, nanos)


def status(code, msg=""):
    return f_varint(1, code) + f_bytes(2, msg)


def sysprops(msg_id, encoding=1, born=(1767225600, 5000000), store=None, tag=None,
             keys=(), handle="rh-1", group=None, lite=None, attempt=1, offset=42):
    p = b""
    if tag is not None:
        p += f_bytes(1, tag)
    for k in keys:
        p += f_bytes(2, k)
    p += f_bytes(3, msg_id) + f_varint(5, encoding) + f_varint(6, 1)
    p += f_bytes(7, timestamp(*born)) + f_bytes(8, "10.0.0.1")
    if store is not None:
        p += f_bytes(9, timestamp(*store))
    p += f_bytes(12, handle) + f_varint(13, 3) + f_varint(14, offset) + f_varint(16, attempt)
    if group is not None:
        p += f_bytes(17, group)
    if lite is not None:
        p += f_bytes(21, lite)
    return p


def message(body, props=None, user=(("k", "v"),), topic="orders"):
    m = f_bytes(1, f_bytes(1, "") + f_bytes(2, topic))
    for k, v in user:
        m += f_bytes(2, f_bytes(1, k) + f_bytes(2, v))
    if props is not None:
        m += f_bytes(3, props)
    return m + f_bytes(4, body)


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    body = b'{"order_id":"o-1","amount":12.5}'
    plain = message(body, sysprops("01AABBCCDDEEFF0011", tag="paid", keys=("o-1",),
                                   store=(1767225601, 0)))
    write("recv_message", b"\x00" + f_bytes(2, plain))
    write("recv_status", b"\x00" + f_bytes(1, status(40401, "no new message")))
    write("recv_delivery_ts", b"\x00" + f_bytes(3, timestamp(1767225600)))
    gz = message(gzip.compress(body * 4), sysprops("01GZ", encoding=2, group="g1"))
    write("message_gzip", b"\x01" + gz)
    zl = message(zlib.compress(body), sysprops("01ZL", encoding=2, lite="lite-7"))
    write("message_zlib", b"\x01" + zl)
    # a gzip-looking body whose encoding says IDENTITY (opaque bytes: kept as sent)
    write("message_identity_gzip_magic", b"\x01" + message(gzip.compress(b"x"), sysprops("01ID")))
    write("message_no_sysprops", b"\x01" + message(b"raw body", None, user=()))
    write("message_many_props", b"\x01" + message(b"", sysprops("01P", keys=("a", "b", "c")),
                                                 user=(("a", "1"), ("", ""), ("a", "2"))))
    send = f_bytes(1, status(20000, "OK")) + f_bytes(2, f_bytes(1, status(20000)) +
                                                     f_bytes(2, "01SEND") + f_varint(4, 7))
    write("resp_send", b"\x02" + bytes([2]) + send)
    ack = f_bytes(1, status(20000)) + f_bytes(2, f_bytes(1, "01ACK") + f_bytes(2, "rh") +
                                              f_bytes(3, status(40303, "invalid handle")))
    write("resp_ack", b"\x02" + bytes([4]) + ack)
    write("resp_change_invisible", b"\x02" + bytes([8]) + f_bytes(1, status(20000)) +
          f_bytes(2, "rh-2"))
    addr = f_bytes(2, f_bytes(1, "127.0.0.1") + f_varint(2, 8081))
    broker = f_bytes(1, "broker-a") + f_varint(2, 0) + f_bytes(3, f_varint(1, 1) + addr)
    queue = (f_bytes(1, f_bytes(2, "orders")) + f_varint(2, 0) + f_varint(3, 4) +
             f_bytes(4, broker) + f_varint(5, 1) + f_varint(5, 2))
    write("route", b"\x03" + f_bytes(1, status(20000)) + f_bytes(2, queue) + f_bytes(2, queue))
    sub = f_varint(3, 1) + f_varint(4, 32) + f_bytes(5, f_varint(1, 20)) + f_varint(6, 100)
    settings = f_bytes(3, f_varint(1, 16)) + f_bytes(6, sub)
    write("telemetry_settings", b"\x04" + f_bytes(1, status(20000)) + f_bytes(2, settings))
    write("telemetry_verify", b"\x04" + f_bytes(7, f_bytes(1, "nonce-1") + f_bytes(2, plain)))
    write("telemetry_unsubscribe_lite", b"\x04" + f_bytes(9, f_bytes(1, "lite-7")))
    write("inflate_gzip", b"\x05" + gzip.compress(b"hello " * 50))
    write("inflate_zlib", b"\x05" + zlib.compress(b"hello"))


if __name__ == "__main__":
    main()
