"""Keyspace notifications (Redis 7.0's notify.c): see run.py, MULTI_SCRIPTS.

Connection 0 subscribes to the keyspace and keyevent channels; connection 1
runs commands of every type; after each step both connections' bytes (the
events as message/pmessage pushes, the replies) must be those redis-server
sends. Steps marked "sorted" fire events on several shards at once (a key per
shard: MSET, DEL, RENAME across shards) whose order between shards is not
defined with --threads 2; they compare as sorted lines. Expiry is left to the
unit tests (tests/kv/notify_test.cpp), which control the clock: here active
expiry would race the reads.
"""

CONNECTIONS = 2


def flags(value):
    return (1, ["CONFIG", "SET", "notify-keyspace-events", value])


OFF = flags("")

# Commands of every type, each event Redis fires for them (t_string.c,
# t_list.c, t_hash.c, t_set.c, bitops.c, db.c, expire.c).
STRINGS = [
    (1, ["SET", "a", "1"]), (1, ["SET", "a", "2", "EX", "100"]), (1, ["SET", "b", "1", "GET"]),
    (1, ["SET", "b", "2", "NX"]), (1, ["SET", "c", "1", "XX"]), (1, ["SETNX", "b", "x"]), (1, ["SETNX", "c", "x"]),
    (1, ["SETEX", "d", "100", "v"]), (1, ["PSETEX", "d", "100000", "v"]), (1, ["GETSET", "d", "w"]),
    (1, ["GET", "nokey"]), (1, ["GETDEL", "d"]), (1, ["GETDEL", "d"]), (1, ["GETEX", "a", "EX", "50"]),
    (1, ["GETEX", "a", "PERSIST"]), (1, ["GETEX", "a", "PERSIST"]), (1, ["GETEX", "a", "PXAT", "1"]),
    (1, ["APPEND", "e", "x"]), (1, ["APPEND", "e", "yz"]), (1, ["SETRANGE", "f", "2", "ab"]),
    (1, ["SETRANGE", "f", "0", ""]), (1, ["INCR", "n"]), (1, ["DECR", "n"]), (1, ["INCRBY", "n", "5"]),
    (1, ["DECRBY", "n", "2"]), (1, ["INCRBYFLOAT", "n", "1.5"]), (1, ["INCR", "e"]), (1, ["STRLEN", "nokey"]),
    (1, ["GETRANGE", "nokey", "0", "1"]), (1, ["MGET", "a", "nokey"]), (1, ["MSET", "m1", "1", "m2", "2"], "sorted"),
    (1, ["MSETNX", "m3", "1", "m4", "2"], "sorted"), (1, ["MSETNX", "m3", "1", "m5", "2"]),
]

KEYSPACE = [
    (1, ["SET", "k1", "v"]), (1, ["SET", "k2", "v"]), (1, ["DEL", "k1", "k2", "nokey"], "sorted"),
    (1, ["SET", "k1", "v"]), (1, ["UNLINK", "k1"]), (1, ["SET", "r1", "v"]), (1, ["RENAME", "r1", "r2"], "sorted"),
    (1, ["RENAME", "r2", "r2"]), (1, ["SET", "r3", "x"]), (1, ["RENAMENX", "r2", "r3"]),
    (1, ["RENAME", "r2", "r3"], "sorted"), (1, ["RENAME", "nokey", "r4"]), (1, ["EXISTS", "r3", "nokey"]),
    (1, ["TYPE", "nokey"]), (1, ["TTL", "nokey"]), (1, ["PTTL", "r3"]), (1, ["EXPIRE", "r3", "100"]),
    (1, ["PEXPIRE", "r3", "100000", "NX"]), (1, ["EXPIREAT", "r3", "99999999999"]), (1, ["PERSIST", "r3"]),
    (1, ["PERSIST", "r3"]), (1, ["EXPIRE", "nokey", "10"]), (1, ["PEXPIREAT", "r3", "1"]),
    (1, ["SET", "c1", "v"]), (1, ["COPY", "c1", "c2"]), (1, ["COPY", "c1", "c2"]), (1, ["COPY", "c1", "c2", "REPLACE"]),
    (1, ["COPY", "c1", "c3", "DB", "3"]), (1, ["MOVE", "c2", "2"]), (1, ["MOVE", "c1", "3"]),
    (1, ["SELECT", "3"]), (1, ["DEL", "c3"]), (1, ["SELECT", "0"]), (1, ["OBJECT", "ENCODING", "nokey"]),
    (1, ["FLUSHDB"]), (1, ["SET", "x", "1"]), (1, ["FLUSHALL"]),
]

LISTS = [
    (1, ["LPUSH", "l", "a", "b"]), (1, ["RPUSH", "l", "c"]), (1, ["LPUSHX", "nokey", "a"]), (1, ["RPUSHX", "l", "d"]),
    (1, ["LPOP", "l"]), (1, ["RPOP", "l", "2"]), (1, ["LPOP", "l", "0"]), (1, ["LLEN", "nokey"]),
    (1, ["LRANGE", "nokey", "0", "-1"]), (1, ["LINDEX", "l", "0"]), (1, ["LINSERT", "l", "BEFORE", "a", "z"]),
    (1, ["LINSERT", "l", "BEFORE", "nope", "z"]), (1, ["LSET", "l", "0", "q"]), (1, ["LREM", "l", "0", "nope"]),
    (1, ["LREM", "l", "0", "q"]), (1, ["LTRIM", "l", "0", "-1"]), (1, ["LTRIM", "l", "5", "10"]),
    (1, ["RPUSH", "s", "1", "2"]), (1, ["LMOVE", "s", "t", "LEFT", "RIGHT"]), (1, ["RPOPLPUSH", "s", "t"]),
    (1, ["LMOVE", "t", "t", "LEFT", "LEFT"]), (1, ["LMPOP", "2", "nokey", "t", "RIGHT", "COUNT", "5"]),
    (1, ["LPOS", "nokey", "a"]), (1, ["RPOP", "nokey"]),
]

HASHES = [
    (1, ["HSET", "h", "f", "v", "g", "w"]), (1, ["HSET", "h", "f", "v"]), (1, ["HSETNX", "h", "f", "x"]),
    (1, ["HSETNX", "h", "n", "1"]), (1, ["HMSET", "h", "x", "1"]), (1, ["HINCRBY", "h", "n", "2"]),
    (1, ["HINCRBYFLOAT", "h", "n", "0.5"]), (1, ["HINCRBY", "h2", "n", "1"]), (1, ["HGET", "nokey", "f"]),
    (1, ["HGETALL", "nokey"]), (1, ["HDEL", "h", "nope"]), (1, ["HDEL", "h", "f", "g"]),
    (1, ["HDEL", "h", "x", "n"]), (1, ["HLEN", "h"]),
]

SETS = [
    (1, ["SADD", "s", "a", "b", "c"]), (1, ["SADD", "s", "a"]), (1, ["SREM", "s", "nope"]), (1, ["SREM", "s", "a"]),
    (1, ["SMOVE", "s", "t", "b"]), (1, ["SMOVE", "s", "t", "b"]), (1, ["SMOVE", "s", "t", "c"]),
    (1, ["SADD", "n", "1", "2", "3"]), (1, ["SPOP", "n", "0"]), (1, ["SPOP", "n", "5"]), (1, ["SADD", "n", "7"]),
    (1, ["SPOP", "n"]), (1, ["SPOP", "nokey"]), (1, ["SCARD", "nokey"]),
    (1, ["SISMEMBER", "nokey", "a"]), (1, ["SADD", "x", "1", "2"]), (1, ["SADD", "y", "2", "3"]),
    (1, ["SINTERSTORE", "z", "x", "y"]), (1, ["SUNIONSTORE", "z", "x", "y"]), (1, ["SDIFFSTORE", "z", "x", "x"]),
    (1, ["SDIFFSTORE", "z", "x", "x"]), (1, ["SINTERSTORE", "z", "x", "nokey"]), (1, ["SINTER", "x", "nokey"]),
    (1, ["SMEMBERS", "nokey"]),
]

BITMAPS = [
    (1, ["SETBIT", "b", "3", "1"]), (1, ["SETBIT", "b", "3", "1"]), (1, ["SETBIT", "b", "3", "0"]),
    (1, ["SETBIT", "b", "20", "0"]), (1, ["GETBIT", "nokey", "0"]), (1, ["BITCOUNT", "nokey"]),
    (1, ["BITFIELD", "f", "SET", "u8", "0", "0"]), (1, ["BITFIELD", "f", "SET", "u8", "0", "0"]),
    (1, ["BITFIELD", "f", "INCRBY", "u8", "0", "1"]), (1, ["BITFIELD", "f", "OVERFLOW", "FAIL", "INCRBY", "u2", "0", "9"]),
    (1, ["BITFIELD", "f", "GET", "u8", "0"]), (1, ["SET", "src", "ab"]), (1, ["BITOP", "OR", "dst", "src", "nokey"]),
    (1, ["BITOP", "AND", "dst", "nokey"]),
]


def script(flag_value, subscribe, steps):
    return [flags(flag_value), (0, subscribe)] + steps + [OFF, (1, ["CONFIG", "GET", "notify-keyspace-events"])]


EVERYTHING = ["PSUBSCRIBE", "__key*__:*"]

MULTI_SCRIPTS = [
    script("KEA", EVERYTHING, STRINGS),
    script("KEA", EVERYTHING, KEYSPACE),
    script("KEA", EVERYTHING, LISTS),
    script("KEA", EVERYTHING, HASHES),
    script("KEA", EVERYTHING, SETS),
    script("KEA", EVERYTHING, BITMAPS),
    # new and keymiss are not in A; a class without K or E publishes nothing.
    script("KEAnm", EVERYTHING, STRINGS[:12] + LISTS[:8] + [(1, ["LCS", "nokey", "a"]), (1, ["COPY", "nokey", "x"]),
                                                             (1, ["SET", "x", "1"]), (1, ["COPY", "x", "y"])]),
    script("gm$", EVERYTHING, STRINGS[:6] + [(1, ["CONFIG", "GET", "notify-keyspace-events"])]),
    # One class, one kind of channel; a plain SUBSCRIBE to one event's channel.
    script("El", EVERYTHING, LISTS[:10] + STRINGS[:4]),
    script("Ksh", EVERYTHING, SETS[:8] + HASHES[:6]),
    script("E$g", ["SUBSCRIBE", "__keyevent@0__:set", "__keyevent@3__:del"],
           STRINGS[:8] + [(1, ["SET", "c1", "v"]), (1, ["COPY", "c1", "c3", "DB", "3"]), (1, ["SELECT", "3"]),
                          (1, ["DEL", "c3"]), (1, ["SELECT", "0"])]),
    script("Kg", ["SUBSCRIBE", "__keyspace@0__:k1"], KEYSPACE[:6]),
    # Off: nothing is published.
    script("", EVERYTHING, STRINGS[:6] + LISTS[:4]),
]

# Flag parsing and printing (keyspaceEventsStringToFlags / FlagsToString).
SCRIPTS = [
    [["CONFIG", "GET", "notify-keyspace-events"]]
    + [step for value in ["KEA", "AKE", "A", "An", "Anm", "KEg$lshzxetd", "g$lshzxetdn", "Em", "m", "n", "KEx", "e",
                          "d", "t", "KExe$", "gg", "AKEnm", "zK"]
       for step in (["CONFIG", "SET", "notify-keyspace-events", value], ["CONFIG", "GET", "notify-keyspace-events"])]
    + [["CONFIG", "SET", "notify-keyspace-events", "KEq"], ["CONFIG", "GET", "notify-keyspace-events"],
       ["CONFIG", "SET", "notify-keyspace-events", "Ka "], ["CONFIG", "SET", "notify-keyspace-events", "a"],
       ["CONFIG", "SET", "notify-keyspace-events", "KEA", "hz", "x"], ["CONFIG", "GET", "notify-keyspace-events"],
       ["CONFIG", "SET", "notify-keyspace-events", "", "hz", "10"], ["CONFIG", "GET", "notify-keyspace-events"],
       ["CONFIG", "GET", "notify-*"]],
]
