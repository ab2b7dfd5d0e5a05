#!/usr/bin/python3
"""A WebSocket client written with python3-websockets (Debian's, 10.4), for the
end-to-end test of the ws_echo examples (tests/examples/ws_echo_test.cpp): an
implementation of RFC 6455 and RFC 7692 that is not duet's.

  ws_echo_client.py PORT echo          text, binary, fragments, a ping, with and
                                       without permessage-deflate, then close 1000
  ws_echo_client.py PORT server-close  one echo, prints "ready", then expects the
                                       server's close (1001) once it is signalled

Exit status 0 when every check holds; a failed check prints why and exits 1.
"""
import asyncio
import sys

import websockets
from websockets.extensions.permessage_deflate import PerMessageDeflate

TIMEOUT = 10  # seconds any one step may take


def check(cond, what):
    if not cond:
        print("FAILED:", what, flush=True)
        sys.exit(1)


async def echoed(ws, message):
    await asyncio.wait_for(ws.send(message), TIMEOUT)
    return await asyncio.wait_for(ws.recv(), TIMEOUT)


async def echo_case(port, compression):
    uri = f"ws://127.0.0.1:{port}/echo"
    async with websockets.connect(uri, compression=compression, open_timeout=TIMEOUT,
                                  close_timeout=TIMEOUT, ping_interval=None) as ws:
        deflate = any(isinstance(e, PerMessageDeflate) for e in ws.extensions)
        check(deflate == (compression == "deflate"), f"deflate negotiated: {deflate}")
        check(await echoed(ws, "hello") == "hello", "text echoed as text")
        data = bytes(range(256)) * 40
        check(await echoed(ws, data) == data, "binary echoed as binary")
        big = "compressible text " * 5000  # 90 KB: compressed on the wire when deflate is on
        check(await echoed(ws, big) == big, "a large text message")
        check(await echoed(ws, ["frag", "ment", "ed"]) == "fragmented", "a fragmented text message, whole")
        check(await echoed(ws, [b"\x00\x01", b"\x02"]) == b"\x00\x01\x02", "a fragmented binary message")
        pong = await ws.ping(b"are you there")
        await asyncio.wait_for(pong, TIMEOUT)  # the server's automatic pong
        await asyncio.wait_for(ws.close(code=1000, reason="bye"), TIMEOUT)
        check(ws.close_code == 1000, f"the server echoed 1000, got {ws.close_code}")


async def server_close_case(port):
    uri = f"ws://127.0.0.1:{port}/"
    async with websockets.connect(uri, open_timeout=TIMEOUT, close_timeout=TIMEOUT, ping_interval=None) as ws:
        check(await echoed(ws, "one") == "one", "an echo before the close")
        print("ready", flush=True)
        try:
            message = await asyncio.wait_for(ws.recv(), 3 * TIMEOUT)
            check(False, f"a message instead of the close: {message!r}")
        except websockets.ConnectionClosed as closed:
            check(closed.rcvd is not None and closed.rcvd.code == 1001,
                  f"the server's close with 1001, got {closed.rcvd}")
        await asyncio.wait_for(ws.wait_closed(), TIMEOUT)


def main():
    port, case = int(sys.argv[1]), sys.argv[2]
    if case == "echo":
        asyncio.run(echo_case(port, "deflate"))
        asyncio.run(echo_case(port, None))
    elif case == "server-close":
        asyncio.run(server_close_case(port))
    else:
        check(False, f"unknown case {case}")
    print("ok", flush=True)


if __name__ == "__main__":
    main()
