"""MULTI/EXEC/DISCARD/WATCH/UNWATCH (issue 27): replies, errors and the
keyspace after each script, against redis-server. SCRIPTS run on one
connection; MULTI_SCRIPTS watch on one and write on another."""

CONNECTIONS = 2

# Keys a..h and k1..k8 spread over both shards of the two-shard server.
KEYS = ["a", "b", "c", "d", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8"]

SCRIPTS = [
    # the basics, replies of every type inside EXEC
    [["MULTI"], ["SET", "a", "1"], ["INCR", "a"], ["GET", "a"], ["RPUSH", "l", "x", "y"], ["LRANGE", "l", "0", "-1"],
     ["HSET", "h", "f", "v"], ["HGETALL", "h"], ["SADD", "s", "m"], ["SISMEMBER", "s", "m"], ["GET", "nope"],
     ["INCRBYFLOAT", "fl", "1.5"], ["EXEC"], ["GET", "a"]],
    # errors: EXEC/DISCARD without MULTI, nested MULTI, WATCH inside, queue-time vs run-time errors
    [["EXEC"], ["DISCARD"], ["MULTI"], ["MULTI"], ["WATCH", "a"], ["SET", "a", "1"], ["EXEC"],
     ["MULTI"], ["SET", "a"], ["NOSUCHCOMMAND", "x"], ["SET", "b", "1"], ["EXEC"], ["EXISTS", "b"],
     ["MULTI"], ["SET", "c", "str"], ["LPUSH", "c", "x"], ["INCR", "c"], ["GET", "c"], ["EXEC"]],
    # commands not allowed inside, an empty transaction, DISCARD, UNWATCH and SELECT inside
    [["MULTI"], ["SHUTDOWN"], ["EXEC"], ["MULTI"], ["EXEC"], ["MULTI"], ["SET", "a", "1"], ["DISCARD"], ["GET", "a"],
     ["MULTI"], ["UNWATCH"], ["SELECT", "3"], ["SET", "x", "in3"], ["EXEC"], ["GET", "x"], ["SELECT", "0"], ["GET", "x"],
     ["MULTI"], ["PING"], ["ECHO", "hi"], ["EXEC"]],
    # keys on both shards: multi-key commands and whole-keyspace ones inside one EXEC
    [["MULTI"]] + [["SET", k, k] for k in KEYS] + [["MGET"] + KEYS, ["DEL", "k1", "k2", "k3"], ["EXISTS"] + KEYS,
     ["RENAME", "a", "k8"], ["RPUSH", "src", "1", "2"], ["LMOVE", "src", "dst", "LEFT", "RIGHT"], ["SADD", "s1", "m"],
     ["SMOVE", "s1", "s2", "m"], ["DBSIZE"], ["EXEC"], ["MGET"] + KEYS + ["dst", "s2"]],
    [["SET", "b", "1"], ["MULTI"], ["KEYS", "*"], ["FLUSHDB"], ["DBSIZE"], ["EXEC"]],
    # blocking commands inside MULTI answer at once
    [["MULTI"], ["BLPOP", "q", "0"], ["BRPOP", "q", "0"], ["BLMOVE", "q", "d", "LEFT", "LEFT", "0"],
     ["BRPOPLPUSH", "q", "d", "0"], ["BLMPOP", "0", "1", "q", "LEFT"], ["RPUSH", "q", "v"], ["BLPOP", "q", "0"],
     ["EXEC"]],
    # RESET inside MULTI, then COMMAND INFO of the family
    # (COMMAND INFO has no key specs in duet: docs/KV.md, Differences)
    [["MULTI"], ["SET", "a", "1"], ["RESET"], ["EXEC"], ["GET", "a"],
     ("known", ["COMMAND", "INFO", "multi", "exec", "discard", "watch", "unwatch", "blpop", "brpop", "blmove",
                "brpoplpush", "blmpop", "wait"]),
     ["COMMAND", "INFO", "multi", "exec", "discard", "unwatch"]],
]

MULTI_SCRIPTS = [
    # a watched key written by another connection fails EXEC; the watch is gone afterwards
    [(0, ["SET", "x", "30"]), (0, ["WATCH", "x"]), (1, ["SET", "x", "40"]), (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"]),
     (1, ["SET", "x", "50"]), (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"])],
    # writes that change nothing, another db, another key: the watch holds
    [(0, ["WATCH", "x", "y", "z"]), (1, ["DEL", "x"]), (1, ["SET", "y", "1", "XX"]), (1, ["SELECT", "1"]),
     (1, ["SET", "x", "1"]), (1, ["SELECT", "0"]), (1, ["SET", "other", "1"]), (0, ["MULTI"]), (0, ["INCR", "z"]),
     (0, ["EXEC"])],
    # writes of every kind fail it: EXPIRE, LPUSH, HSET, SADD, INCR, RENAME onto it
    [(0, ["SET", "e", "1"]), (0, ["WATCH", "e"]), (1, ["EXPIRE", "e", "100"]), (0, ["MULTI"]), (0, ["GET", "e"]),
     (0, ["EXEC"]), (0, ["WATCH", "l"]), (1, ["LPUSH", "l", "x"]), (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"]),
     (0, ["WATCH", "h"]), (1, ["HSET", "h", "f", "v"]), (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"]),
     (0, ["WATCH", "k8"]), (1, ["SET", "k1", "v"]), (1, ["RENAME", "k1", "k8"]), (0, ["MULTI"]), (0, ["PING"]),
     (0, ["EXEC"])],
    # FLUSHALL / FLUSHDB touch watched keys that exist, not absent ones; DISCARD and UNWATCH forget
    [(0, ["WATCH", "absent"]), (1, ["FLUSHALL"]), (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"]),
     (0, ["SET", "p", "1"]), (0, ["WATCH", "p"]), (1, ["FLUSHDB"]), (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"]),
     (0, ["WATCH", "p"]), (0, ["MULTI"]), (0, ["DISCARD"]), (1, ["SET", "p", "2"]), (0, ["MULTI"]), (0, ["PING"]),
     (0, ["EXEC"]), (0, ["WATCH", "p"]), (0, ["UNWATCH"]), (1, ["SET", "p", "3"]), (0, ["MULTI"]), (0, ["PING"]),
     (0, ["EXEC"])],
    # keys watched on both shards, one changed; CLIENT LIST's flags while in MULTI
    [(0, ["WATCH"] + KEYS), (1, ["SET", "k5", "changed"]), (0, ["MULTI"]), (0, ["SET", "a", "1"]), (0, ["EXEC"]),
     (0, ["EXISTS", "a"]), (0, ["WATCH"] + KEYS), (0, ["MULTI"]), (0, ["MSET"] + [x for k in KEYS for x in (k, "v")]),
     (0, ["EXEC"]), (1, ["MGET"] + KEYS)],
]
