#!/usr/bin/env python3
"""Differential check: send the same commands to a real redis-server and to a
duet-kv server and compare the replies byte for byte.

Usage: tests/kv/compare_with_redis.py REDIS_PORT DUET_PORT
(start redis-server --port REDIS_PORT --save '' --appendonly no first). Both
servers are FLUSHALLed. Exits 1 and prints the differences if any.
"""
import socket
import sys
import time

# Each script is a list of commands run on one connection, in order.
SCRIPTS = [
    [["SET", "k", "v"], ["GET", "k"], ["SET", "k", "v", "EX", "0"], ["SET", "k", "v", "EX", "-5"],
     ["SET", "k", "v", "PX", "abc"], ["SET", "k", "v", "EX", "10", "PX", "10"], ["SET", "k", "v", "EX", "10", "EX", "20"],
     ["TTL", "k"], ["SET", "k", "v", "KEEPTTL"], ["TTL", "k"], ["SET", "k", "w", "NX", "GET"], ["SET", "z", "w", "XX", "GET"],
     ["SET", "k", "v", "GET", "GET"], ["SET", "k", "v", "PERSIST"], ["SET", "k"], ["SET", "k", "v", "EXAT"],
     ["SET", "k", "v", "EXAT", "99999999999999999"], ["SET", "k", "v", "EX", "9223372036854775807"]],
    [["GETEX", "nokey"], ["SET", "a", "1"], ["GETEX", "a", "EX", "100"], ["TTL", "a"], ["GETEX", "a", "PX", "0"],
     ["GETEX", "a", "KEEPTTL"], ["GETEX", "a", "PERSIST"], ["TTL", "a"], ["GETEX", "a", "EXAT", "1"], ["EXISTS", "a"],
     ["GETDEL", "a"], ["GETSET", "a", "2"], ["GETSET", "a", "3"], ["SETNX", "a", "4"], ["SETEX", "b", "abc", "v"],
     ["SETEX", "b", "-1", "v"], ["PSETEX", "b", "0", "v"], ["SETEX", "b", "100", "v"], ["TTL", "b"],
     ["MGET", "a", "b", "c"], ["MSET", "a"], ["MSET", "x", "1", "y", "2"], ["MSETNX", "x", "1", "q", "2"],
     ["MSETNX", "q", "1", "r", "2"], ["MGET", "q", "r"]],
    [["INCR", "n"], ["INCRBY", "n", "-5"], ["DECRBY", "n", "3"], ["DECR", "n"], ["INCRBY", "n", "1.5"],
     ["SET", "n", " 1"], ["INCR", "n"], ["SET", "n", "-0"], ["INCR", "n"], ["SET", "n", "-9223372036854775808"],
     ["DECR", "n"], ["INCRBY", "n", "-1"], ["SET", "f", "3.0"], ["INCRBYFLOAT", "f", "1.1"], ["INCRBYFLOAT", "f", "1e10"],
     ["INCRBYFLOAT", "f", "-1e10"], ["INCRBYFLOAT", "f", "inf"], ["INCRBYFLOAT", "f", " 1"], ["INCRBYFLOAT", "f", "0x10"],
     ["INCRBYFLOAT", "g", "3.00000000000000000001"], ["INCRBYFLOAT", "g", "-3"], ["SET", "h", "abc"], ["INCRBYFLOAT", "h", "1"],
     ["INCRBYFLOAT", "f2", "1.23e-5"], ["INCRBYFLOAT", "f3", "5e-20"]],
    [["APPEND", "s", "abc"], ["APPEND", "s", ""], ["STRLEN", "s"], ["GETRANGE", "s", "0", "-1"], ["GETRANGE", "s", "-100", "100"],
     ["GETRANGE", "s", "2", "1"], ["GETRANGE", "s", "-1", "-2"], ["GETRANGE", "s", "5", "10"], ["GETRANGE", "s", "0", "0"],
     ["SETRANGE", "s", "1", "XYZ"], ["GET", "s"], ["SETRANGE", "s", "10", ""], ["SETRANGE", "t", "0", ""], ["EXISTS", "t"],
     ["SETRANGE", "t", "2", "x"], ["GET", "t"], ["SETRANGE", "t", "abc", "x"], ["GETRANGE", "nokey", "0", "-1"]],
    [["MSET", "a", "1", "b", "2", "c", "3"], ["DEL", "a", "a", "zz"], ["UNLINK", "b"], ["EXISTS", "c", "c", "a"],
     ["TYPE", "c"], ["TYPE", "a"], ["RENAME", "c", "c"], ["RENAMENX", "c", "c"], ["RENAME", "nokey", "c"],
     ["RENAMENX", "nokey", "c"], ["SET", "d", "4"], ["RENAMENX", "c", "d"], ["RENAME", "c", "d"], ["GET", "d"],
     ["DBSIZE"], ["KEYS", "*"], ["KEYS", "[a-z]"], ["RANDOMKEY"], ["FLUSHDB", "ASYNC"], ["RANDOMKEY"], ["KEYS", "*"],
     ["SCAN", "0"], ["SCAN", "0", "COUNT", "-1"], ["SCAN", "0", "TYPE", "string"], ["SCAN", "+0"], ["SCAN", "-1"],
     ["SCAN", " 0"], ["SCAN", "0", "MATCH", "*", "COUNT", "5", "TYPE", "hash"]],
    [["SET", "e", "1"], ["EXPIRE", "e", "100", "XX"], ["EXPIRE", "e", "100", "NX"], ["EXPIRE", "e", "50", "GT"],
     ["EXPIRE", "e", "150", "GT"], ["TTL", "e"], ["EXPIRE", "e", "200", "LT"], ["EXPIRE", "e", "10", "LT"], ["TTL", "e"],
     ["EXPIRE", "e", "10", "nx", "gt"], ["EXPIRE", "e", "10", "bogus"], ["PEXPIRE", "e", "abc"], ["PERSIST", "e"],
     ["TTL", "e"], ["PTTL", "nokey"], ["EXPIRE", "e", "10", "LT"], ["PERSIST", "e"], ["EXPIRE", "e", "10", "GT"],
     ["EXPIREAT", "e", "1"], ["EXISTS", "e"], ["SET", "e", "1"], ["PEXPIREAT", "e", "99999999999999"], ["EXPIRE", "e", "0"],
     ["EXISTS", "e"], ["EXPIRE", "e", "-9223372036854775808"], ["PEXPIRE", "e", "9223372036854775807"]],
    [["PING"], ["PING", "x"], ["ECHO", ""], ["SELECT", "15"], ["SET", "k", "v"], ["SELECT", "0"], ["GET", "k"],
     ["SELECT", "-0"], ["SELECT", "1.0"], ["CLIENT", "GETNAME"], ["CLIENT", "SETNAME", "a\nb"], ["CLIENT", "SETNAME", "ok"],
     ["CLIENT", "GETNAME"], ["CLIENT", "SETNAME"], ["CLIENT", "NOPE", "x"], ["CLIENT", "LIST", "TYPE", "pubsub"],
     ["CLIENT", "LIST", "ID", "abc"], ["CLIENT", "LIST", "FOO"], ["AUTH", "a", "b", "c"], ["AUTH", "default", "x"],
     ["HELLO", "1"], ["HELLO", "2", "FOO"], ["HELLO", "2", "SETNAME"], ["HELLO", "2", "AUTH", "default"],
     ["CONFIG", "GET", "save"], ["CONFIG", "GET", "appendonly"], ["CONFIG", "SET", "save"], ["CONFIG", "SET", "nope", "1"],
     ["CONFIG"], ["COMMAND", "INFO", "get", "nosuch"], ["COMMAND", "COUNT", "x"], ["INFO", "nosuchsection"],
     ["FLUSHALL", "x", "y"], ["FLUSHDB", "x"], ["DBSIZE", "x"]],
    [["GET"], ["GET", "a", "b"], ["NOSUCH"], ["NOSUCH", "a" * 200, "b"], ["NOSUCH", "a\r\nb"], ["x" * 300],
     ["NOSUCH"] + ["arg%d" % i for i in range(40)], ["MGET"], ["DEL"], ["EXISTS"], ["KEYS"], ["SCAN"], ["TTL"],
     ["EXPIRE", "a"], ["SETRANGE", "a", "1"], ["GETRANGE", "a", "1"], ["INCRBYFLOAT", "a"], ["APPEND", "a"]],
    [["SET", "k", "v", "PX", "100", "KEEPTTL"], ["GETEX", "k", "EX", "10", "PERSIST"], ["EXPIRE", "k", "10", "xx", "xx"],
     ["SCAN", "18446744073709551616"], ["SCAN", "18446744073709551615"], ["SET", "f", "1e308"],
     ["INCRBYFLOAT", "f", "1e308"], ["INCRBYFLOAT", "f", "nan"], ["SET", "h[", "1"], ["KEYS", "h["], ["KEYS", "h\\["],
     ["KEYS", "[^a]"], ["KEYS", "h[[]"], ["KEYS", "*[\\"], ["SET", "", "empty"], ["GET", ""], ["KEYS", "*"], ["KEYS", "**"],
     ["EXISTS", ""], ["STRLEN", ""], ["APPEND", "", "x"], ["GETRANGE", "", "-1", "-1"], ["DEL", ""],
     ["SETEX", "s", "9223372036854775807", "v"], ["PSETEX", "s", "9223372036854775807", "v"], ["GETEX", "k", "PXAT", "0"],
     ["SET", "n", "00"], ["INCR", "n"], ["SET", "n", "18446744073709551615"], ["INCR", "n"], ["SET", "n", "+1"], ["INCR", "n"]],
    # Issue 11 item 8: CONFIG SET rules and the run-time parameters, CLIENT LIST
    # filters, SCAN cursors. The last commands put the settings back.
    [["CONFIG", "SET", "loglevel", "notice", "loglevel", "warning"], ["CONFIG", "GET", "loglevel"],
     ["CONFIG", "SET", "loglevel", "warning", "LOGLEVEL", "debug"], ["CONFIG", "SET", "LOGLEVEL", "bogus"],
     ["CONFIG", "SET", "loglevel", "bogus", "nope", "1"], ["CONFIG", "SET", "hz", "0"], ["CONFIG", "GET", "hz"],
     ["CONFIG", "SET", "hz", "1000"], ["CONFIG", "GET", "hz"], ["CONFIG", "SET", "hz", "-1"], ["CONFIG", "SET", "hz", "1.5"],
     ["CONFIG", "SET", "timeout", "30"], ["CONFIG", "GET", "timeout"], ["CONFIG", "SET", "timeout", "2147483648"],
     ["CONFIG", "SET", "timeout", "+5"], ["CONFIG", "SET", "maxmemory", "100mb"], ["CONFIG", "GET", "maxmemory"],
     ["CONFIG", "SET", "maxmemory", "1.5"], ["CONFIG", "SET", "maxmemory", "-1"], ["CONFIG", "SET", "maxmemory", "01Kb"],
     ["CONFIG", "GET", "maxmemory"], ["CONFIG", "SET", "maxmemory", "18446744073709551616"], ["CONFIG", "GET", "maxmemory"],
     ["CONFIG", "SET", "maxmemory", ""], ["CONFIG", "GET", "maxmemory"], ["CONFIG", "SET", "maxmemory", "1"],
     ["SET", "k", "v"], ["INCR", "n"], ["GET", "k"], ["DEL", "k"], ["CONFIG", "SET", "maxmemory", "0"], ["SET", "k", "v"],
     ["CONFIG", "GET", "maxmemory-policy"], ["CONFIG", "SET", "maxmemory-policy", "noeviction"],
     ["CONFIG", "SET", "maxmemory-policy", "bogus"], ["CONFIG", "SET", "maxclients", "0"],
     ["CONFIG", "SET", "appendfsync", "x"], ["CONFIG", "SET", "appendonly", "maybe"],
     ["CLIENT", "LIST", "TYPE", "normal", "ID", "999999"], ["CLIENT", "LIST", "ID", "999999", "TYPE", "normal"],
     ["CLIENT", "LIST", "ID", "0"], ["CLIENT", "LIST", "ID", "-1"], ["CLIENT", "LIST", "ID", "01"], ["CLIENT", "LIST", "ID"],
     ["CLIENT", "LIST", "TYPE"], ["CLIENT", "LIST", "TYPE", "master"], ["CLIENT", "LIST", "TYPE", "normal", "TYPE", "normal"],
     ["SCAN", "0" * 32], ["SCAN", "0" * 300], ["SCAN", "-0"], ["SCAN", ""], ["SCAN", "0\0x"], ["SCAN", "\0x"], ["SCAN", "\t0"],
     ["SCAN", "+"], ["SCAN", "-18446744073709551616"], ["SCAN", "0" * 300 + "18446744073709551615"],
     ["CONFIG", "SET", "hz", "10", "timeout", "0", "maxmemory", "0", "loglevel", "notice"]],
]

# Pub/sub (issue 13): steps (connection, command) over several connections at
# once; after each step every connection's bytes (replies and pushes) are read
# until the servers go quiet. Steps marked "sorted" have a hash-ordered reply
# (PUBSUB CHANNELS, UNSUBSCRIBE of every channel) and compare as sorted lines.
PUBSUB_SCRIPTS = [
    [(0, ["UNSUBSCRIBE"]), (0, ["PUNSUBSCRIBE"]), (0, ["UNSUBSCRIBE", "x"]), (0, ["SUBSCRIBE", "c1", "c2", "c1"]),
     (0, ["PING"]), (0, ["PING", "hi"]), (0, ["GET", "k"]), (0, ["CONFIG", "GET", "x"]), (0, ["PUBLISH", "c1", "m"]),
     (0, ["PSUBSCRIBE", "c*", "d?"]), (1, ["PUBLISH", "c1", "hello"]), (1, ["PUBLISH", "d7", ""]),
     (1, ["PUBLISH", "zz", "x"]), (1, ["PUBSUB", "CHANNELS"], "sorted"), (1, ["PUBSUB", "CHANNELS", "c1*"]),
     (1, ["PUBSUB", "NUMSUB", "c1", "zz"]), (1, ["PUBSUB", "NUMSUB"]), (1, ["PUBSUB", "NUMPAT"]), (1, ["PUBSUB", "HELP"]),
     (1, ["PUBSUB"]), (1, ["PUBSUB", "FOO"]), (1, ["PUBSUB", "NUMPAT", "x"]), (1, ["PUBSUB", "CHANNELS", "a", "b"]),
     (1, ["INFO", "stats"], "pubsub"), (0, ["UNSUBSCRIBE", "c2"]), (0, ["PUNSUBSCRIBE", "d?", "zz"]),
     (0, ["UNSUBSCRIBE"]), (0, ["PUNSUBSCRIBE"]), (0, ["PING"]), (0, ["GET", "k"])],
    [(0, ["SUBSCRIBE", "a"]), (1, ["PSUBSCRIBE", "*"]), (2, ["PUBLISH", "a", "x" * 100]), (0, ["RESET"]),
     (0, ["PING"]), (2, ["PUBLISH", "a", "y"]), (1, ["QUIT"]), (2, ["PUBLISH", "a", "z"]), (0, ["SUBSCRIBE"]),
     (0, ["PSUBSCRIBE"]), (2, ["PUBLISH", "a"]), (2, ["CLIENT", "SETNAME", "n"]), (2, ["SELECT", "2"]), (2, ["RESET"]),
     (2, ["CLIENT", "GETNAME"]), (2, ["RESET", "x"]),
     (2, ["COMMAND", "INFO", "subscribe", "unsubscribe", "psubscribe", "punsubscribe", "publish", "reset", "quit"])],
    [(0, ["SUNSUBSCRIBE"]), (0, ["SSUBSCRIBE", "s1", "s2", "s1"]), (0, ["PING"]), (0, ["GET", "k"]),
     (0, ["SUBSCRIBE", "c"]), (0, ["PSUBSCRIBE", "p*"]), (1, ["SPUBLISH", "s1", "hi"]), (1, ["PUBLISH", "s1", "x"]),
     (1, ["SPUBLISH", "c", "y"]), (1, ["PUBSUB", "SHARDCHANNELS"], "sorted"), (1, ["PUBSUB", "SHARDNUMSUB", "s1", "zz"]),
     (1, ["PUBSUB", "NUMSUB", "s1"]), (1, ["INFO", "stats"], "pubsub"), (0, ["SUNSUBSCRIBE", "s1"]),
     (0, ["SUNSUBSCRIBE"]), (0, ["UNSUBSCRIBE"]), (0, ["PUNSUBSCRIBE"]), (0, ["SSUBSCRIBE", "q"]), (0, ["GET", "k"]),
     (0, ["RESET"]), (0, ["SPUBLISH"]), (1, ["PUBSUB", "SHARDCHANNELS"])],
    [(0, ["CONFIG", "GET", "client-output-buffer-limit"]),
     (0, ["CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 512kb 10"]),
     (0, ["CONFIG", "GET", "client-output-buffer-limit"]), (0, ["CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb"]),
     (0, ["CONFIG", "SET", "client-output-buffer-limit", "foo 1 1 1"]),
     (0, ["CONFIG", "SET", "client-output-buffer-limit", "pubsub x 1 1"]),
     (0, ["CONFIG", "SET", "client-output-buffer-limit", "pubsub 1 1 -1"]),
     (0, ["CONFIG", "SET", "client-output-buffer-limit", ""]),
     (0, ["CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0 replica 1 2 3"]),
     (0, ["CONFIG", "GET", "client-output-buffer-limit"]),
     (0, ["CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 32mb 8mb 60"]),
     (0, ["CONFIG", "GET", "client-output-buffer-limit"])],
]


def encode(args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a.encode("latin1") if isinstance(a, str) else a
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def read_reply(f):
    line = f.readline()
    if not line:
        return b"<closed>"
    kind = line[:1]
    if kind in (b"+", b"-", b":"):
        return line
    if kind == b"$":
        n = int(line[1:])
        return line if n < 0 else line + f.read(n + 2)
    if kind == b"*":
        n = int(line[1:])
        return line + b"".join(read_reply(f) for _ in range(max(n, 0)))
    return line


def run(port, script):
    s = socket.create_connection(("127.0.0.1", port))
    f = s.makefile("rb")
    s.sendall(encode(["FLUSHALL"]))
    read_reply(f)
    replies = []
    for cmd in script:
        s.sendall(encode(cmd))
        replies.append(read_reply(f))
    s.close()
    return replies


def read_quiet(s, quiet=0.05):
    s.settimeout(quiet)
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out + b"<closed>"
            out += chunk
    except socket.timeout:
        return out


def run_pubsub(port, script):
    conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
    conns[0].sendall(encode(["FLUSHALL"]))
    read_quiet(conns[0])
    replies = []
    for step in script:
        conn, cmd = step[0], step[1]
        conns[conn].sendall(encode(cmd))
        time.sleep(0.01)
        got = [read_quiet(c) for c in conns]
        if len(step) > 2 and step[2] == "sorted":
            got = [b"\n".join(sorted(g.split(b"\r\n"))) for g in got]
        if len(step) > 2 and step[2] == "pubsub":  # only INFO's pub/sub lines
            got = [b"\n".join(l for l in g.split(b"\r\n") if l.startswith(b"pubsub")) for g in got]
        replies.append(got)
    for c in conns:
        c.close()
    return replies


def main():
    redis_port, duet_port = int(sys.argv[1]), int(sys.argv[2])
    bad = 0
    for script in SCRIPTS:
        a, b = run(redis_port, script), run(duet_port, script)
        for cmd, x, y in zip(script, a, b):
            if cmd[0] == "KEYS":  # order is unspecified
                x, y = sorted(x.split(b"\r\n")), sorted(y.split(b"\r\n"))
            if x != y:
                bad += 1
                print("DIFF %r\n  redis: %r\n  duet:  %r" % (cmd, x[:300], y[:300]))
    for script in PUBSUB_SCRIPTS:
        a, b = run_pubsub(redis_port, script), run_pubsub(duet_port, script)
        for step, x, y in zip(script, a, b):
            if x != y:
                bad += 1
                print("DIFF conn %d %r\n  redis: %r\n  duet:  %r" % (step[0], step[1], x, y))
    print("%d differences" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
