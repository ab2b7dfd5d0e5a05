"""ZPOPMIN ZPOPMAX ZMPOP and the blocking BZPOPMIN BZPOPMAX BZMPOP (issue 28)
against redis-server: reply shapes in RESP2 and RESP3 (flat, pairs, keyed
pairs), counts, errors and their order, WRONGTYPE, both encodings; blocked
connections served by ZADD from another one, first come first served, a
list's and a sorted set's waiters on one key, timeouts, and MULTI (where
nothing blocks)."""

BIG = [x for i in range(200) for x in (str(i % 37), "m%03d" % i)]  # past zset-max-listpack-entries

SCRIPTS = [
    # ZPOPMIN/ZPOPMAX: plain, with counts, past the end, errors
    [["ZADD", "z", "1", "a", "2", "b", "3", "c", "-inf", "lo", "inf", "hi", "2", "bb"],
     ["ZPOPMIN", "z"], ["ZPOPMAX", "z"], ["ZPOPMIN", "z", "2"], ["ZPOPMAX", "z", "1"], ["ZPOPMIN", "z", "0"],
     ["ZPOPMAX", "z", "10"], ["EXISTS", "z"], ["ZPOPMIN", "z"], ["ZPOPMIN", "z", "3"], ["ZPOPMIN", "none", "0"],
     ["ZPOPMIN", "z", "-1"], ["ZPOPMIN", "z", "x"], ["ZPOPMIN", "z", "1.5"], ["ZPOPMIN", "z", "1", "2"],
     ["ZPOPMAX", "z", "9223372036854775807"], ["ZPOPMIN"], ["SET", "s", "v"], ["ZPOPMIN", "s"],
     ["ZPOPMAX", "s", "2"], ["ZPOPMIN", "s", "x"]],
    # the tree encoding: pops from both ends, ties by member, down to the last
    [["ZADD", "big", *BIG], ["OBJECT", "ENCODING", "big"], ["ZPOPMIN", "big", "5"], ["ZPOPMAX", "big", "5"],
     ["ZPOPMIN", "big"], ["ZPOPMAX", "big"], ["ZCARD", "big"], ["ZPOPMIN", "big", "150"], ["ZPOPMAX", "big", "100"],
     ["EXISTS", "big"]],
    # ZMPOP: keys in order, the first non-empty one, counts, errors in Redis's order
    [["ZADD", "a", "1", "x", "2", "y"], ["ZADD", "b", "5", "p", "6", "q", "7", "r"],
     ["ZMPOP", "2", "none", "b", "MIN"], ["ZMPOP", "3", "none", "a", "b", "MAX", "COUNT", "5"],
     ["ZMPOP", "1", "none", "MIN"], ["ZMPOP", "2", "a", "b", "max", "count", "1"], ["ZMPOP", "1", "b", "MIN", "COUNT", "9"],
     ["EXISTS", "a", "b"], ["ZMPOP", "0", "a", "MIN"], ["ZMPOP", "-1", "a", "MIN"], ["ZMPOP", "x", "a", "MIN"],
     ["ZMPOP", "2", "a", "MIN"], ["ZMPOP", "1", "a", "LEFT"], ["ZMPOP", "1", "a", "MIN", "COUNT"],
     ["ZMPOP", "1", "a", "MIN", "COUNT", "0"], ["ZMPOP", "1", "a", "MIN", "COUNT", "-2"],
     ["ZMPOP", "1", "a", "MIN", "COUNT", "1", "COUNT", "1"], ["ZMPOP", "1", "a", "MIN", "FOO"],
     ["SET", "s", "v"], ["ZMPOP", "2", "none", "s", "MIN"], ["ZMPOP", "1", "a"]],
    # the blocking forms answered at once, bad timeouts and arguments, WRONGTYPE, a list in the way
    [["ZADD", "z", "1", "a", "2", "b", "3", "c"], ["BZPOPMIN", "none", "z", "0"], ["BZPOPMAX", "z", "0"],
     ["BZMPOP", "0", "2", "none", "z", "MAX", "COUNT", "5"], ["EXISTS", "z"], ["ZADD", "z", "1", "a"],
     ["BZPOPMIN", "z", "-1"], ["BZPOPMIN", "z", "abc"], ["BZMPOP", "abc", "1", "z", "MIN"],
     ["BZMPOP", "0", "0", "z", "MIN"], ["BZMPOP", "0", "1", "z", "UP"], ["BZMPOP", "0", "1", "z", "MIN", "COUNT", "0"],
     ["SET", "s", "x"], ["BZPOPMIN", "s", "0"], ["BZMPOP", "0", "2", "s", "z", "MIN"], ["RPUSH", "l", "v"],
     ["BZPOPMAX", "l", "z", "0"], ["BZPOPMIN", "none", "0.01"], ["BZPOPMAX", "none", "0.01"],
     ["BZMPOP", "0.01", "1", "none", "MAX"], ["BZPOPMIN", "z", "1e400"], ["BZPOPMIN", "z", "inf"]],
    # the keyspace commands see the type: TYPE, SCAN TYPE, OBJECT ENCODING, MEMORY USAGE, COPY, RENAME, WRONGTYPE
    [["ZADD", "z", "1", "a"], ["ZADD", "big", *BIG], ["GEOADD", "g", "13.36", "38.11", "p"], ["PFADD", "h", "x"],
     ["SADD", "s", "m"], ["TYPE", "z"], ["TYPE", "g"], ["TYPE", "h"], ("scan", ["SCAN", "0", "TYPE", "zset"]),
     ("scan", ["SCAN", "0", "TYPE", "ZSET", "COUNT", "100"]), ["OBJECT", "ENCODING", "z"], ["OBJECT", "ENCODING", "big"],
     ["OBJECT", "ENCODING", "h"], ("type", ["MEMORY", "USAGE", "big"]), ("type", ["MEMORY", "USAGE", "z"]),
     ["COPY", "big", "big2"], ["ZCARD", "big2"], ["OBJECT", "ENCODING", "big2"], ["RENAME", "z", "z2"],
     ["ZSCORE", "z2", "a"], ["LPUSH", "z2", "x"], ["GET", "z2"], ["ZADD", "s", "1", "m"], ["ZCARD", "s"]],
    # inside MULTI nothing blocks: a timeout's null array
    [["MULTI"], ["BZPOPMIN", "none", "0"], ["BZMPOP", "0", "1", "none", "MIN"], ["ZADD", "z", "4", "d"],
     ["BZPOPMAX", "z", "0"], ["EXEC"]],
]

CONNECTIONS = 4

MULTI_SCRIPTS = [
    # served by ZADD from another connection, first come first served, each shape
    [(0, ["BZPOPMIN", "q", "0"]), (1, ["BZPOPMAX", "q", "0"]), (3, ["BZMPOP", "0", "1", "q", "MAX", "COUNT", "2"]),
     (2, ["ZADD", "q", "1", "a", "2", "b"]), (2, ["ZADD", "q", "3", "c", "4", "d", "5", "e"]),
     (2, ["ZRANGE", "q", "0", "-1", "WITHSCORES"]), (0, ["PING"]), (1, ["PING"]), (3, ["PING"])],
    # a list's and a sorted set's waiters on one key: each served by its own type
    [(0, ["BLPOP", "k", "0"]), (1, ["BZPOPMIN", "k", "0"]), (2, ["ZADD", "k", "1", "m"]), (2, ["DEL", "k"]),
     (2, ["RPUSH", "k", "v"]), (0, ["PING"]), (1, ["PING"])],
    # several keys (on two shards with --threads 2), a timeout, then a wait on two keys served by the second
    [(0, ["BZPOPMIN", "k1", "k2", "0"]), (1, ["BZMPOP", "0", "2", "k2", "k1", "MIN"]),
     (2, ["ZADD", "k2", "1", "x"]), (2, ["ZADD", "k1", "2", "y"]), (3, ["BZPOPMAX", "k3", "0.2"]),
     (3, ["BZPOPMAX", "k3", "k4", "0"]), (2, ["ZADD", "k4", "1", "w", "2", "v"]), (3, ["PING"]),
     (2, ["EXISTS", "k1", "k2", "k4"])],
]
