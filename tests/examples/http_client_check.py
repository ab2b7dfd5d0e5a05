#!/usr/bin/python3
"""Python's http.client against an http_hello example: keep-alive reuse,
HEAD, 404, 405 with Allow, HTTP/1.0. Exits 0 and prints "ok", else raises."""
import http.client
import socket
import sys

port = int(sys.argv[1])
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
for _ in range(3):
    conn.request("GET", "/")
    r = conn.getresponse()
    assert (r.status, r.read()) == (200, b"hello"), r.status
    assert r.getheader("Content-Length") == "5"
    assert r.getheader("Date"), "no Date field"
first_sock = conn.sock
conn.request("HEAD", "/")
r = conn.getresponse()
assert r.status == 200 and r.read() == b"" and r.getheader("Content-Length") == "5"
conn.request("GET", "/missing")
r = conn.getresponse()
assert r.status == 404, r.status
r.read()
conn.request("POST", "/", body=b"x")
r = conn.getresponse()
assert r.status == 405 and r.getheader("Allow") == "GET, HEAD", (r.status, r.getheader("Allow"))
r.read()
assert conn.sock is first_sock, "the connection was not kept alive"
conn.close()

# HTTP/1.0 without keep-alive: answered, then closed by the server.
with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
    s.sendall(b"GET / HTTP/1.0\r\n\r\n")
    data = b""
    while chunk := s.recv(4096):
        data += chunk
    assert data.startswith(b"HTTP/1.1 200 OK\r\n") and data.endswith(b"\r\n\r\nhello"), data
    assert b"Connection: close\r\n" in data or b"connection: close" in data.lower()
print("ok")
