"""BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP, CLIENT UNBLOCK, WAIT (issue 27) over
several connections against redis-server: a blocked connection shows
nothing until a push, a timeout (10 ms here, so it comes within the step)
or CLIENT UNBLOCK answers it."""

CONNECTIONS = 3

SCRIPTS = [
    # answered at once, bad timeouts and arguments, WRONGTYPE
    [["RPUSH", "l", "a", "b", "c", "d"], ["BLPOP", "none", "l", "0"], ["BRPOP", "l", "0"],
     ["BLMOVE", "l", "m", "LEFT", "RIGHT", "0"], ["BRPOPLPUSH", "l", "m", "0"], ["LRANGE", "m", "0", "-1"],
     ["RPUSH", "l", "1", "2", "3"], ["BLMPOP", "0", "2", "none", "l", "RIGHT", "COUNT", "2"],
     ["BLPOP", "l", "-1"], ["BLPOP", "l", "abc"], ["BLPOP", "l", "nan"],
     ["BLMOVE", "l", "m", "UP", "LEFT", "0"], ["BLMPOP", "0", "0", "l", "LEFT"], ["BLMPOP", "0", "1", "l", "UP"],
     ["BLMPOP", "0", "1", "l", "LEFT", "COUNT", "0"], ["SET", "s", "x"], ["BLPOP", "s", "0"],
     ["BLMOVE", "s", "m", "LEFT", "LEFT", "0"], ["BLPOP", "none", "0.01"], ("one_shard", ["BLMOVE", "none", "m", "LEFT", "LEFT", "0.01"]),
     ["BLMPOP", "0.01", "1", "none", "LEFT"],
     ["WAIT", "0", "0"], ["WAIT", "1", "10"], ["WAIT", "1", "-1"], ["WAIT", "x", "0"]],
]

MULTI_SCRIPTS = [
    # served by a push from another connection, first come first served
    [(0, ["BLPOP", "q", "0"]), (1, ["BRPOP", "q", "0"]), (2, ["RPUSH", "q", "a"]), (2, ["RPUSH", "q", "b", "c"]),
     (2, ["LRANGE", "q", "0", "-1"]), (0, ["PING"]), (1, ["PING"])],
    # keys on two shards: with --threads 2 such a command does not block (docs/KV.md, Differences)
    [(1, ["BRPOP", "other", "q", "0"], "one_shard"), (2, ["RPUSH", "q", "b", "c"], "one_shard"),
     (2, ["LRANGE", "q", "0", "-1"], "one_shard")],
    # commands sent while blocked run after the answer; BLMOVE and BLMPOP served (BLMOVE's two keys
    # may live on two shards, where it does not block: docs/KV.md, Differences)
    [(0, ["BLMOVE", "src", "dst", "RIGHT", "LEFT", "0"], "one_shard"), (0, ["PING"], "one_shard"),
     (0, ["ECHO", "later"], "one_shard"), (1, ["BLMPOP", "0", "1", "src", "LEFT", "COUNT", "5"]),
     (2, ["RPUSH", "src", "1", "2", "3"], "one_shard"), (2, ["LRANGE", "dst", "0", "-1"], "one_shard"),
     (2, ["LRANGE", "src", "0", "-1"], "one_shard")],
    # commands sent while blocked run after the answer, on one key
    [(0, ["BLPOP", "one", "0"]), (0, ["PING"]), (0, ["ECHO", "later"]), (2, ["RPUSH", "one", "1", "2"]),
     (2, ["LRANGE", "one", "0", "-1"])],
    # a push inside MULTI/EXEC serves after EXEC; LMOVE serves a waiter on its destination
    [(0, ["BLPOP", "t", "0"]), (1, ["MULTI"]), (1, ["RPUSH", "t", "x", "y"]), (1, ["LLEN", "t"]), (1, ["EXEC"]),
     (2, ["BLPOP", "u", "0"]), (1, ["RPUSH", "v", "1"]), (1, ["LMOVE", "v", "u", "LEFT", "LEFT"]), (1, ["LLEN", "u"])],
    # CLIENT UNBLOCK's errors, INFO's blocked_clients with one client blocked (timeouts are in SCRIPTS: a
    # step here reads for 50 ms, and Redis answers a timeout at its next cron, up to 100 ms late)
    [(1, ["CLIENT", "UNBLOCK", "999999"]), (1, ["CLIENT", "UNBLOCK", "abc"]), (1, ["CLIENT", "UNBLOCK", "1", "NOPE"]),
     (0, ["BLPOP", "w", "0"]), (2, ["INFO", "clients"], "blocked"), (1, ["RPUSH", "w", "x"]),
     (2, ["INFO", "clients"], "blocked")],
]
