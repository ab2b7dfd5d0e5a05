"""MULTI/EXEC/DISCARD/WATCH/UNWATCH (issue 27): replies, errors and the
keyspace after each script, against redis-server. SCRIPTS run on one
connection; MULTI_SCRIPTS watch on one and write on another."""

CONNECTIONS = 2

# Keys a..d, k1..k8 and key:1..key:8 spread over both shards of the two-shard server.
KEYS = ["a", "b", "c", "d", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8"]
KEYS2 = ["key:%d" % i for i in range(1, 9)]

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
    # replies of every RESP3 type inside EXEC: map, set, nulls, nested arrays, errors among them (no doubles:
    # duet has no sorted sets yet, docs/KV.md)
    [["MULTI"], ["LMPOP", "1", "nope", "LEFT"],
     ["RPUSH", "l", "a", "b", "c"], ["LMPOP", "1", "l", "LEFT", "COUNT", "2"], ["LPOP", "l", "5"], ["LPOP", "l", "5"],
     ["SADD", "s", "m"], ["SMEMBERS", "s"], ["SMISMEMBER", "s", "m", "x"], ["HSET", "h", "f", "v"],
     ["HRANDFIELD", "h", "-1", "WITHVALUES"], ["HMGET", "h", "f", "g"], ["CONFIG", "GET", "maxmemory"],
     ["SET", "str", "v"], ["GETDEL", "str"], ["TTL", "nope"], ["TYPE", "h"], ["EXEC"]],
    # SUBSCRIBE inside EXEC subscribes (its reply inside EXEC's array); the connection is then in pub/sub mode
    [["MULTI"], ["SUBSCRIBE", "ch"], ["SET", "x", "1"], ["EXEC"], ["PING"], ["UNSUBSCRIBE"], ["GET", "x"]],
    # run-time errors do not abort: each errs in place and the rest run
    [["SET", "c", "str"], ["MULTI"], ["SET", "a", "b", "EX", "abc"], ["INCR", "c"], ["LSET", "nokey", "0", "x"],
     ["RENAME", "nokey", "x"], ["SELECT", "99"], ["HSET", "c", "f", "v"], ["SET", "ok", "1"], ["SADD", "c", "m"],
     ["INCRBYFLOAT", "c", "1"], ["GET", "ok"], ["EXEC"], ["GET", "ok"], ["GET", "a"]],
    # queue-time errors: arity, unknown command, commands never allowed inside; all answer EXECABORT, and
    # the client is out of MULTI afterwards; EXEC, DISCARD, MULTI with arguments; WATCH, UNWATCH arity
    [["MULTI", "x"], ["WATCH"], ["UNWATCH", "x"], ["EXEC", "x"], ["DISCARD", "x"],
     ["MULTI"], ["UNKNOWN"], ["SET", "q", "1"], ["EXEC"], ["EXISTS", "q"], ["EXEC"],
     ["MULTI"], ["SHUTDOWN", "NOSAVE"], ["SET", "q", "1"], ["DISCARD"], ["EXEC"],
     ["MULTI"], ["SET", "q", "1"], ["EXEC", "x"], ["EXEC"], ["EXISTS", "q"],
     ["MULTI"], ["DISCARD", "x"], ["DISCARD"], ["MULTI"], ["GET"], ["GET", "q"], ["DISCARD"], ["GET", "q"],
     ["MULTI"], ["sEt", "q", "lower"], ["ExEc"], ["GET", "q"]],
    # WATCH: the client's own write fails its EXEC; a successful EXEC, then the watch is gone
    [["SET", "x", "1"], ["WATCH", "x"], ["SET", "x", "2"], ["MULTI"], ["GET", "x"], ["EXEC"],
     ["MULTI"], ["GET", "x"], ["EXEC"], ["WATCH", "x", "y"], ["MULTI"], ["SET", "x", "3"], ["EXEC"], ["MULTI"],
     ["SET", "x", "4"], ["EXEC"], ["WATCH", "x"], ["WATCH", "x"], ["UNWATCH"], ["UNWATCH"], ["SET", "x", "5"],
     ["MULTI"], ["GET", "x"], ["EXEC"], ["WATCH", "x"], ["MULTI"], ["SET", "y", "1"], ["UNKNOWN"], ["EXEC"],
     ["SET", "x", "6"], ["MULTI"], ["GET", "x"], ["EXEC"]],
    # SELECT queued then discarded does not switch; SELECT inside EXEC does; MOVE inside
    [["MULTI"], ["SELECT", "2"], ["DISCARD"], ["SET", "k", "db0"], ["MULTI"], ["SELECT", "2"], ["SET", "k", "db2"],
     ["SELECT", "3"], ["EXEC"], ["GET", "k"], ["SELECT", "2"], ["GET", "k"], ["SELECT", "0"], ["GET", "k"],
     ["MULTI"], ["MOVE", "k", "5"], ["GET", "k"], ["SELECT", "5"], ["GET", "k"], ["EXEC"], ["DBSIZE"], ["SELECT", "0"]],
    # keys on both shards: MSET/MGET/DEL and friends over many keys, RENAME and RENAMENX across, COPY, MSETNX
    [["MULTI"], ["MSET"] + [x for k in KEYS2 for x in (k, "v" + k)], ["MGET"] + KEYS2, ["EXISTS"] + KEYS2,
     ["RENAME", "key:1", "key:2"], ["RENAMENX", "key:3", "key:4"], ["RENAMENX", "key:3", "key:9"], ["COPY", "key:5", "key:1"],
     ["MSETNX", "key:6", "x", "key:10", "y"], ["MSETNX", "key:11", "x", "key:12", "y"], ["DEL"] + KEYS2[4:],
     ["UNLINK", "key:5"], ["DBSIZE"], ["MGET"] + KEYS2 + ["key:9", "key:10", "key:11", "key:12"],
     ["SADD", "s:1", "a", "b"], ["SADD", "s:2", "b", "c"], ["SINTERSTORE", "s:3", "s:1", "s:2"],
     ["SUNIONSTORE", "s:4", "s:1", "s:2"], ["SMOVE", "s:1", "s:2", "a"], ["SCARD", "s:2"], ["SINTERCARD", "2", "s:1", "s:2"],
     ["RPUSH", "key:1", "x"], ["FLUSHDB"], ["SET", "after", "1"], ["DBSIZE"], ["EXEC"], ["KEYS", "*"]],
    # a queue-time error with keys on both shards: nothing of it runs anywhere
    [["MSET", "a", "1", "k5", "1"], ["MULTI"], ["INCR", "a"], ["INCR", "k5"], ["DEL", "k1"], ["INCR"], ["EXEC"],
     ["MGET", "a", "k5"]],
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
    # MULTI then QUIT: +OK, the connection closes, nothing of the queue runs
    [(0, ["MULTI"]), (0, ["SET", "q", "1"]), (0, ["QUIT"]), (1, ["EXISTS", "q"])],
    # RESET inside MULTI forgets the watches and the queue
    [(0, ["SET", "x", "1"]), (0, ["WATCH", "x"]), (0, ["MULTI"]), (0, ["SET", "y", "1"]), (0, ["RESET"]),
     (1, ["SET", "x", "2"]), (0, ["MULTI"]), (0, ["GET", "x"]), (0, ["EXEC"]), (0, ["EXISTS", "y"])],
    # writes that fail a watch: DEL of an existing key, INCR, SET of the same value, PERSIST of a TTL, APPEND,
    # FLUSHALL of an existing key, MOVE away
    [(0, ["SET", "x", "1"]), (0, ["WATCH", "x"]), (1, ["DEL", "x"]), (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"]),
     (0, ["WATCH", "x"]), (1, ["INCR", "x"]), (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"]),
     (0, ["WATCH", "x"]), (1, ["SET", "x", "1"]), (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"]),
     (1, ["EXPIRE", "x", "100"]), (0, ["WATCH", "x"]), (1, ["PERSIST", "x"]), (0, ["MULTI"]), (0, ["PING"]),
     (0, ["EXEC"]), (0, ["WATCH", "x"]), (1, ["APPEND", "x", ""]), (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"]),
     (0, ["WATCH", "x"]), (1, ["FLUSHALL"]), (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"]),
     (0, ["SET", "x", "1"]), (0, ["WATCH", "x"]), (1, ["MOVE", "x", "2"]), (0, ["MULTI"]),
     (0, ["PING"]), (0, ["EXEC"])],
    # writes that change nothing keep the watch: SET NX of an existing key, EXPIRE and DEL of a missing key,
    # PERSIST without a TTL, SADD of a member already there, LPOP of a missing list, FLUSHDB of an absent key,
    # a write of the same name in another db
    [(0, ["SET", "x", "1"]), (0, ["SADD", "s", "m"]), (0, ["WATCH", "x", "s", "none"]), (1, ["SET", "x", "2", "NX"]),
     (1, ["EXPIRE", "none", "10"]), (1, ["DEL", "none"]), (1, ["PERSIST", "x"]), (1, ["SADD", "s", "m"]),
     (1, ["LPOP", "none"]), (1, ["SELECT", "1"]), (1, ["FLUSHDB"]), (1, ["SET", "x", "other"]), (1, ["SELECT", "0"]),
     (0, ["MULTI"]), (0, ["GET", "x"]), (0, ["EXEC"]),
     (0, ["WATCH", "none"]), (1, ["FLUSHDB"]), (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"])],
    # a watch in db 3 sees writes in db 3 only
    [(0, ["SELECT", "3"]), (0, ["WATCH", "x"]), (1, ["SET", "x", "db0"]), (0, ["MULTI"]), (0, ["PING"]),
     (0, ["EXEC"]), (0, ["WATCH", "x"]), (1, ["SELECT", "3"]), (1, ["SET", "x", "db3"]), (0, ["MULTI"]),
     (0, ["PING"]), (0, ["EXEC"])],
    # watches on both shards: a multi-key write from the other connection, then one on a single shard
    [(0, ["WATCH"] + KEYS2), (1, ["MSET", "key:2", "x", "key:7", "y"]), (0, ["MULTI"]), (0, ["DEL"] + KEYS2),
     (0, ["EXEC"]), (0, ["MGET"] + KEYS2), (0, ["WATCH"] + KEYS2), (1, ["RENAME", "key:2", "key:3"]), (0, ["MULTI"]),
     (0, ["PING"]), (0, ["EXEC"]), (0, ["WATCH"] + KEYS2), (1, ["DEL", "key:8"]), (0, ["MULTI"]), (0, ["PING"]),
     (0, ["EXEC"])],
    # two transactions queued at once run whole, one after the other; KEYS inside EXEC (hash order: sorted)
    [(0, ["MULTI"]), (1, ["MULTI"]), (0, ["MSET"] + [x for k in KEYS for x in (k, "0")]), (1, ["INCR", "a"]),
     (1, ["INCR", "k8"]), (0, ["INCR", "k8"]), (1, ["EXEC"]), (0, ["KEYS", "*"]), (0, ["DBSIZE"]), (0, ["EXEC"], "sorted"),
     (1, ["MGET"] + KEYS)],
]
