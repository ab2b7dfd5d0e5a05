#!/usr/bin/env python3
"""Resident bytes per idle TLS connection: starts a server (the rest of the command line),
opens N TLS connections that each send PING once, and reports the RSS growth per connection.
Usage: idle_tls_memory.py CERT_DIR PORT N SERVER ARGS... (the server on PORT with CERT_DIR/server.crt)."""
import os, socket, ssl, subprocess, sys, time
certs, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
argv = sys.argv[4:]
proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.5)
def rss(): return int(open(f"/proc/{proc.pid}/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
ctx = ssl.create_default_context(cafile=f"{certs}/ca.crt")
conns = []
try:
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
    s.sendall(b"PING\r\n"); s.recv(64); conns.append(s)
    time.sleep(0.2)
    before = rss()
    for _ in range(n):
        s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="localhost")
        s.sendall(b"PING\r\n")
        assert s.recv(64).startswith(b"+PONG")
        conns.append(s)
    time.sleep(0.5)
    print(f"{argv[0].split('/')[-1]} {' '.join(a for a in argv if a in ('io_uring','epoll'))}: {(rss() - before) / n:,.0f} bytes per idle TLS connection")
finally:
    for s in conns: s.close()
    proc.terminate(); proc.wait()
