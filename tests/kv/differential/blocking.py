"""BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP, CLIENT UNBLOCK, WAIT (issue 27) over
several connections against redis-server: a blocked connection shows
nothing until a push, a timeout or CLIENT UNBLOCK answers it. A step with a
short timeout (0 < t <= 1 s) waits for it (run.py), so its null is its own."""

# Numbers that are timeouts to some parsers and not to others; on a full list they answer at once.
ODD_TIMEOUTS = ["1e400", "1e10000", "inf", "+inf", "-inf", "-0", "0x10", "1e3", " 1", "", "9223372036854775807",
                "9223372036854775.807", "9223372036854", "-0.0001", "0.0001", "1.5e-5", "0,5", "1 ", "- 1"]

CONNECTIONS = 4

SCRIPTS = [
    # answered at once, bad timeouts and arguments, WRONGTYPE
    [["RPUSH", "l", "a", "b", "c", "d"], ["BLPOP", "none", "l", "0"], ["BRPOP", "l", "0"],
     ["BLMOVE", "l", "m", "LEFT", "RIGHT", "0"], ["BRPOPLPUSH", "l", "m", "0"], ["LRANGE", "m", "0", "-1"],
     ["RPUSH", "l", "1", "2", "3"], ["BLMPOP", "0", "2", "none", "l", "RIGHT", "COUNT", "2"],
     ["BLPOP", "l", "-1"], ["BLPOP", "l", "abc"], ["BLPOP", "l", "nan"],
     ["BLMOVE", "l", "m", "UP", "LEFT", "0"], ["BLMPOP", "0", "0", "l", "LEFT"], ["BLMPOP", "0", "1", "l", "UP"],
     ["BLMPOP", "0", "1", "l", "LEFT", "COUNT", "0"], ["SET", "s", "x"], ["BLPOP", "s", "0"],
     ["BLMOVE", "s", "m", "LEFT", "LEFT", "0"], ["BLPOP", "none", "0.01"], ["BLMOVE", "none", "m", "LEFT", "LEFT", "0.01"],
     ["BLMPOP", "0.01", "1", "none", "LEFT"],
     ["WAIT", "0", "0"], ["WAIT", "1", "10"], ["WAIT", "1", "-1"], ["WAIT", "x", "0"]],
    # odd timeouts on a one-element list (each answers at once; DEL shows whether it popped), for each command
    [step for t in ODD_TIMEOUTS for step in (["RPUSH", "l", "v"], ["BLPOP", "l", t], ["DEL", "l"])]
    + [step for cmd in (["BRPOP", "l", "1e400"], ["BLMOVE", "l", "l", "LEFT", "RIGHT", "1e400"],
                        ["BRPOPLPUSH", "l", "l", "inf"], ["BLMPOP", "1e400", "1", "l", "LEFT"],
                        ["BLMPOP", "-1", "1", "l", "LEFT"], ["BLMPOP", "abc", "1", "l", "LEFT"],
                        ["BLMOVE", "l", "l", "LEFT", "RIGHT", "-1"], ["BRPOPLPUSH", "l", "l", "abc"])
       for step in (["RPUSH", "l", "v"], cmd, ["DEL", "l"])],
    # a full source and a destination of the wrong type: WRONGTYPE at once, the source unchanged
    [["RPUSH", "l", "a"], ["SET", "str", "v"], ["BLMOVE", "l", "str", "LEFT", "LEFT", "0"],
     ["BRPOPLPUSH", "l", "str", "0"], ["LRANGE", "l", "0", "-1"], ["BLMPOP", "0", "2", "str", "l", "LEFT"],
     ["BLPOP", "l", "str", "0"], ["BLPOP", "str", "l", "0"]],
]

MULTI_SCRIPTS = [
    # served by a push from another connection, first come first served
    [(0, ["BLPOP", "q", "0"]), (1, ["BRPOP", "q", "0"]), (2, ["RPUSH", "q", "a"]), (2, ["RPUSH", "q", "b", "c"]),
     (2, ["LRANGE", "q", "0", "-1"]), (0, ["PING"]), (1, ["PING"])],
    # keys on two shards (with --threads 2: a MultiBlock) are served like keys on one
    [(1, ["BRPOP", "other", "q", "0"]), (2, ["RPUSH", "q", "b", "c"]), (2, ["LRANGE", "q", "0", "-1"])],
    # three clients blocked on keys of both shards, served first come first served, each by the key
    # pushed; an element already there is taken in the order the keys are named
    [(0, ["BLPOP", "k1", "k2", "0"]), (1, ["BRPOP", "k2", "k1", "0"]), (3, ["BLMPOP", "0", "2", "k1", "k2", "LEFT",
     "COUNT", "2"]), (2, ["RPUSH", "k2", "a"]), (2, ["RPUSH", "k1", "b", "c"]), (2, ["RPUSH", "k2", "d", "e", "f"]),
     (2, ["LRANGE", "k2", "0", "-1"]), (2, ["RPUSH", "k2", "g"]), (2, ["RPUSH", "k1", "h"]),
     (0, ["BLPOP", "k1", "k2", "0"]), (0, ["BLMPOP", "0", "2", "k2", "k1", "RIGHT", "COUNT", "5"]),
     (2, ["EXISTS", "k1", "k2"])],
    # commands sent while blocked run after the answer; BLMOVE and BLMPOP served (BLMOVE's two keys
    # may live on two shards)
    [(0, ["BLMOVE", "src", "dst", "RIGHT", "LEFT", "0"]), (0, ["PING"]),
     (0, ["ECHO", "later"]), (1, ["BLMPOP", "0", "1", "src", "LEFT", "COUNT", "5"]),
     (2, ["RPUSH", "src", "1", "2", "3"]), (2, ["LRANGE", "dst", "0", "-1"]),
     (2, ["LRANGE", "src", "0", "-1"])],
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
    # LPUSH serves (its last element first)
    [(0, ["BLPOP", "q", "0"]), (1, ["BRPOP", "q", "0"]), (2, ["LPUSH", "q", "a", "b", "c"]), (2, ["LRANGE", "q", "0", "-1"])],
    # a client blocked on two keys (on two shards with --threads 2) is served by the second
    [(0, ["BLPOP", "k1", "k2", "0"]), (2, ["RPUSH", "k2", "x"]), (0, ["PING"])],
    # three clients, three commands, first come first served; BLMPOP takes up to its count
    [(0, ["BLPOP", "f", "0"]), (1, ["BLMPOP", "0", "1", "f", "RIGHT", "COUNT", "2"]), (2, ["RPUSH", "f", "a", "b", "c"]),
     (0, ["BRPOP", "f", "0"]), (1, ["BLMPOP", "0", "1", "f", "LEFT", "COUNT", "5"]), (2, ["RPUSH", "f", "x", "y"]),
     (2, ["RPUSH", "f", "z"]), (2, ["EXISTS", "f"])],
    # timeouts that expire: each command's null (RESP3 too), then nothing is left blocked
    [(0, ["BLPOP", "x", "0.1"]), (0, ["BRPOP", "x", "y", "0.15"]), (0, ["BLMOVE", "x", "y", "LEFT", "LEFT", "0.1"]),
     (0, ["BRPOPLPUSH", "x", "y", "0.1"]), (0, ["BLMPOP", "0.1", "2", "x", "y", "LEFT"]),
     (1, ["BLPOP", "x", "0.05"]), (2, ["INFO", "clients"], "blocked"), (0, ["EXISTS", "x", "y"])],
    # a timeout not yet expired is served by a push
    [(0, ["BLPOP", "p", "5"]), (1, ["RPUSH", "p", "v"]), (0, ["PING"])],
    # a key that becomes a string does not serve (7.0: the client stays blocked); a list there later does
    [(0, ["BLPOP", "w", "0"]), (1, ["SET", "w", "str"]), (0, ["PING"]), (1, ["DEL", "w"]), (1, ["RPUSH", "w", "x"]),
     (1, ["EXISTS", "w"])],
    # served BLMOVE whose destination is of the wrong type: WRONGTYPE, unblocked, the element stays in the source
    # (src and dst, src2 and dst may live on two shards)
    [(1, ["SET", "dst", "str"]), (0, ["BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"]),
     (1, ["RPUSH", "src", "a"]), (1, ["LRANGE", "src", "0", "-1"]), (0, ["PING"]),
     (0, ["BRPOPLPUSH", "src2", "dst", "0"]), (1, ["RPUSH", "src2", "b"]),
     (1, ["LRANGE", "src2", "0", "-1"]), (2, ["INFO", "clients"], "blocked")],
    # a BLMOVE onto a key another client waits on serves it in turn (c1 and c2 may live on two shards);
    # a BLMOVE of a list onto itself
    [(0, ["BLMOVE", "c1", "c2", "LEFT", "LEFT", "0"]), (1, ["BLPOP", "c2", "0"]),
     (2, ["RPUSH", "c1", "x"]), (2, ["EXISTS", "c1", "c2"]),
     (0, ["BLMOVE", "r", "r", "RIGHT", "LEFT", "0"]), (2, ["RPUSH", "r", "1"]), (2, ["LRANGE", "r", "0", "-1"])],
    # a push and a pop inside one EXEC leave nothing: still blocked; a push in another db does not serve;
    # DEL and FLUSHALL leave it blocked; RENAME of a list onto the key serves it
    [(0, ["BLPOP", "e", "0"]), (1, ["MULTI"]), (1, ["RPUSH", "e", "a"]), (1, ["LPOP", "e"]), (1, ["EXEC"]),
     (1, ["SELECT", "1"]), (1, ["RPUSH", "e", "db1"]), (1, ["SELECT", "0"]), (1, ["DEL", "e"]), (1, ["FLUSHALL"]),
     (2, ["INFO", "clients"], "blocked"), (1, ["RPUSH", "tmp", "t"]), (1, ["RENAME", "tmp", "e"]), (1, ["EXISTS", "e", "tmp"])],
    # blocking commands inside MULTI answer at once: null on an empty list, popped from a full one
    [(0, ["MULTI"]), (0, ["BLPOP", "m", "0"]), (0, ["BLMOVE", "m", "n", "LEFT", "LEFT", "0"]),
     (0, ["BLMPOP", "0", "1", "m", "LEFT"]), (1, ["RPUSH", "m", "a", "b"]), (0, ["BRPOP", "m", "0"]),
     (0, ["BLPOP", "m", "0"]), (0, ["EXEC"]), (0, ["MULTI"]), (0, ["BLPOP", "m", "0.1"]), (0, ["EXEC"]),
     (1, ["INFO", "clients"], "blocked")],
    # two blocked, one timing out: INFO counts the one left
    [(0, ["BLPOP", "i", "0"]), (1, ["BLPOP", "j", "0.1"]), (2, ["INFO", "clients"], "blocked"), (2, ["RPUSH", "i", "x"]),
     (2, ["INFO", "clients"], "blocked")],
]
