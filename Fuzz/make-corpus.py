#!/usr/bin/env python3
"""Writes the seed corpus of the FrameFuzzer into Fuzz/corpus/frames/.

Each file is a byte stream as it arrives on a bridge socket: one or more
frames of docs/wire-protocol.md

    u32 length (big-endian; bytes after this field) | u8 flags | payload

whose payload is a protobuf farelens.wire.v1.Envelope (Protos/envelope.proto),
hand-encoded here so no protobuf package is needed. Deterministic: running it
twice writes identical files.
"""
import os
import struct
import sys
import zlib

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "frames")

# Envelope.Kind
HELLO, WELCOME, REQUEST, RESPONSE, EVENT, EVENT_ACK, ROUTES, GOODBYE = range(1, 9)


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def f_varint(field: int, value: int) -> bytes:
    return varint(field << 3 | 0) + varint(value)


def f_bytes(field: int, value) -> bytes:
    if isinstance(value, str):
        value = value.encode()
    return varint(field << 3 | 2) + varint(len(value)) + value


def f_fixed64(field: int, value: int) -> bytes:
    return varint(field << 3 | 1) + struct.pack("<Q", value)


def frame(payload: bytes, flags: int = 0) -> bytes:
    return struct.pack(">I", len(payload) + 1) + bytes([flags]) + payload


def zframe(payload: bytes) -> bytes:
    return frame(zlib.compress(payload, 9), flags=0x01)


def hello_msg(name: str, role: int = 1) -> bytes:
    return (f_varint(1, 1) + f_varint(2, role) + f_bytes(3, name)
            + f_bytes(4, "search") + f_bytes(4, "scoring")
            + f_bytes(5, "*") + f_varint(6, 4242) + f_bytes(7, "0.1.0")
            + f_varint(8, 1_732_000_000_000))


def main() -> int:
    os.makedirs(OUT, exist_ok=True)
    trace = f_fixed64(1, 0x0123456789ABCDEF) + f_fixed64(2, 0xFEDCBA9876543210)
    request = (f_varint(1, REQUEST) + f_varint(2, 7) + f_bytes(3, "search")
               + f_bytes(5, "farelens.search.v1.SearchRequest")
               + f_varint(6, 2_000_000) + f_bytes(7, trace)
               + f_bytes(8, bytes(range(40))))
    response_big = (f_varint(1, RESPONSE) + f_varint(2, 7)
                    + f_bytes(5, "farelens.search.v1.SearchResponse")
                    + f_bytes(8, b"LHR-JFK 412.00 GBP;" * 200))
    error_resp = (f_varint(1, RESPONSE) + f_varint(2, 9)
                  + f_bytes(9, f_bytes(1, "remote") + f_bytes(2, "invalid-field") + f_bytes(3, "origin: empty")))
    event = (f_varint(1, EVENT) + f_varint(2, 101) + f_bytes(4, "search.fare-observed")
             + f_bytes(5, "farelens.search.v1.FareObserved") + f_bytes(8, b"\x08\x01\x12\x03LHR")
             + f_bytes(11, f_bytes(1, "edge#1a2b") + f_varint(2, 55) + f_varint(3, 1)))
    ack_packed = f_varint(1, EVENT_ACK) + f_bytes(12, b"".join(varint(t) for t in (101, 102, 2**63)))
    ack_unpacked = f_varint(1, EVENT_ACK) + f_varint(12, 101) + f_varint(12, 102)
    hello = f_varint(1, HELLO) + f_bytes(10, hello_msg("spoke-1"))
    welcome = (f_varint(1, WELCOME) + f_bytes(10, hello_msg("edge"))
               + f_bytes(13, f_bytes(1, hello_msg("edge")) + f_bytes(1, hello_msg("spoke-1"))))
    goodbye = f_varint(1, GOODBYE) + f_bytes(9, f_bytes(3, "shutting down"))
    admin_req = f_varint(1, REQUEST) + f_varint(2, 1) + f_bytes(3, "admin") + f_varint(14, 1)

    # A zlib bomb: ~1 KiB of zlib inflating to just over 1 MiB of zeros (deflate
    # cannot beat ~1032:1, so this is about as small as a 1 MiB bomb gets). The
    # fuzzer's inflation cap is 256 KiB; two more seeds sit exactly at the cap
    # and one byte over it.
    bomb = zlib.compress(b"\0" * ((1 << 20) + 1), 9)
    at_cap = zlib.compress(b"\0" * (256 << 10), 9)
    over_cap = zlib.compress(b"\0" * ((256 << 10) + 1), 9)

    seeds = {
        # Valid streams.
        "valid-request": frame(request),
        "valid-request-zlib": zframe(request),
        "valid-response-zlib-large": zframe(response_big),
        "valid-response-error": frame(error_resp),
        "valid-event": frame(event),
        "valid-event-ack-packed": frame(ack_packed),
        "valid-event-ack-unpacked": frame(ack_unpacked),
        "valid-hello": frame(hello),
        "valid-welcome": frame(welcome),
        "valid-goodbye": frame(goodbye),
        "valid-admin-request": frame(admin_req),
        "valid-session": frame(hello) + frame(request) + zframe(request) + frame(ack_packed) + frame(goodbye),
        # Envelope-level edge cases (valid frames).
        "envelope-empty-payload": frame(b""),
        "envelope-kind-missing": frame(f_varint(2, 7) + f_bytes(3, "search")),
        "envelope-kind-unknown": frame(f_varint(1, 99) + f_varint(2, 7)),
        "envelope-truncated-field": frame(f_varint(1, REQUEST) + varint(3 << 3 | 2) + varint(50) + b"sea"),
        "envelope-bad-utf8": frame(f_varint(1, REQUEST) + f_bytes(3, b"\xff\xfe\xc0")),
        "envelope-unknown-field": frame(f_varint(1, REQUEST) + f_bytes(99, b"future") + f_varint(100, 1)),
        "envelope-varint-overlong": frame(b"\x08" + b"\xff" * 11),
        "envelope-deep-nesting": frame(f_varint(1, ROUTES) + f_bytes(13, f_bytes(1, f_bytes(4, "x") * 50))),
        # Frame-level edge cases.
        "frame-length-zero": struct.pack(">I", 0),
        "frame-length-zero-then-more": struct.pack(">I", 0) + frame(request),
        "frame-length-one-flags-only": struct.pack(">I", 1) + b"\x00",
        "frame-length-over-cap": struct.pack(">I", (64 << 10) + 1) + b"\x00" + request,
        "frame-length-max-u32": b"\xff\xff\xff\xff\x00",
        "frame-unknown-flags-02": frame(request, flags=0x02),
        "frame-unknown-flags-ff": frame(request, flags=0xFF),
        "frame-truncated-header": struct.pack(">I", 20)[:3],
        "frame-truncated-body": frame(request)[:-5],
        "frame-valid-then-truncated": frame(hello) + frame(request)[:10],
        "zlib-bomb": frame(bomb, flags=0x01),
        "zlib-inflates-to-cap": frame(at_cap, flags=0x01),
        "zlib-inflates-cap-plus-one": frame(over_cap, flags=0x01),
        "zlib-corrupt": frame(b"\x78\x9c" + b"\xde\xad\xbe\xef" * 4, flags=0x01),
        "zlib-truncated": frame(zlib.compress(request, 9)[:-6], flags=0x01),
        "zlib-bad-checksum": frame(zlib.compress(request, 9)[:-1] + b"\x00", flags=0x01),
        "zlib-empty": frame(b"", flags=0x01),
        "zlib-trailing-garbage": frame(zlib.compress(request, 9) + b"garbage", flags=0x01),
        "zlib-raw-deflate-no-header": frame(zlib.compress(request, 9)[2:-4], flags=0x01),
    }
    for name, data in sorted(seeds.items()):
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    print(f"wrote {len(seeds)} seeds to {os.path.relpath(OUT)}; bomb frame {len(seeds['zlib-bomb'])} bytes "
          f"inflating to {(1 << 20) + 1} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
