#!/usr/bin/python3
"""Clients of the WebSocket chat examples written with python3-websockets
(Debian's, 10.4), for tests/examples/ws_chat_test.cpp.

  ws_chat_client.py PORT room          three members: a line reaches the two
                                       others and never its sender; 200 lines
                                       arrive in order; a binary message gets
                                       1003, one past 4096 bytes 1009; the
                                       page is served at GET /
  ws_chat_client.py PORT server-close  one member joins, prints "ready", then
                                       expects the server's close (1001)

Exit status 0 when every check holds; a failed check prints why and exits 1.
"""
import asyncio
import sys
import urllib.request

import websockets

TIMEOUT = 10  # seconds any one step may take


def check(cond, what):
    if not cond:
        print("FAILED:", what, flush=True)
        sys.exit(1)


def member(port):
    return websockets.connect(f"ws://127.0.0.1:{port}/chat", open_timeout=TIMEOUT, close_timeout=TIMEOUT,
                              ping_interval=None)


async def recv(ws):
    return await asyncio.wait_for(ws.recv(), TIMEOUT)


async def closed_with(ws):
    try:
        while True:
            await recv(ws)  # lines still on their way to this member are dropped
    except websockets.ConnectionClosed as e:
        return e.rcvd.code if e.rcvd else None


async def room(port):
    page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=TIMEOUT)
    check(page.status == 200 and b"new WebSocket" in page.read(), "the page at GET /")
    async with member(port) as a, member(port) as b, member(port) as c:
        await a.send("hello from a")
        check(await recv(b) == "hello from a", "b gets a's line")
        check(await recv(c) == "hello from a", "c gets a's line")
        lines = [f"line {i}" for i in range(200)]
        for line in lines:
            await b.send(line)
        check([await recv(a) for _ in lines] == lines, "a gets b's 200 lines in order")
        check([await recv(c) for _ in lines] == lines, "c gets b's 200 lines in order")
        await c.send("from c")
        check(await recv(a) == "from c", "a gets c's line (b's never came back to b)")
        check(await recv(b) == "from c", "b's next is c's line: its own were not echoed")
        await c.send(b"\x00binary")
        check(await closed_with(c) == 1003, "a binary message is refused with 1003")
        await a.send("x" * 5000)
        check(await closed_with(a) == 1009, "a message past 4096 bytes is refused with 1009")
        await b.send("still here")  # the room goes on without a and c
        await b.close()
        check(b.close_code == 1000, "b closes with 1000")
    print("ok", flush=True)


async def server_close(port):
    async with member(port) as ws:
        await ws.ping()
        print("ready", flush=True)
        code = await closed_with(ws)
        check(code == 1001, f"the server's close when stopped: {code}")
    print("ok", flush=True)


def main():
    port, mode = int(sys.argv[1]), sys.argv[2]
    asyncio.run(room(port) if mode == "room" else server_close(port))


if __name__ == "__main__":
    main()
