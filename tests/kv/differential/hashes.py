"""Hashes: every hash command, its options and errors, and the listpack →
hashtable conversions at Redis's thresholds (and after CONFIG SET of them)."""

BIG = 600  # past hash-max-listpack-entries (512)


def hset_many(key, n, prefix="f", start=0):
    args = ["HSET", key]
    for i in range(start, start + n):
        args += ["%s%04d" % (prefix, i), "v%04d" % i]  # fixed width: random picks compare by length
    return args


SCRIPTS = [
    # the field commands on a small hash: replies and insertion order
    [["HSET", "h", "a", "1", "b", "2", "c", "3"], ["HSET", "h", "a", "10", "d", "4"], ["HGETALL", "h"],
     ["HKEYS", "h"], ["HVALS", "h"], ["HLEN", "h"], ["HGET", "h", "a"], ["HGET", "h", "zz"], ["HGET", "nokey", "a"],
     ["HMGET", "h", "a", "zz", "d"], ["HMGET", "nokey", "a", "b"], ["HSETNX", "h", "a", "x"], ["HSETNX", "h", "e", "5"],
     ["HSETNX", "new", "f", "v"], ["HMSET", "h", "b", "20", "f", "6"], ["HGETALL", "h"], ["HSTRLEN", "h", "b"],
     ["HSTRLEN", "h", "zz"], ["HSTRLEN", "nokey", "a"], ["HEXISTS", "h", "a"], ["HEXISTS", "h", "zz"],
     ["HEXISTS", "nokey", "a"], ["HDEL", "h", "a", "zz", "a"], ["HDEL", "nokey", "a"], ["HGETALL", "h"],
     ["HKEYS", "nokey"], ["HVALS", "nokey"], ["HGETALL", "nokey"], ["HLEN", "nokey"],
     ["HDEL", "h", "b", "c", "d", "e", "f"], ["EXISTS", "h"], ["HDEL", "new", "f"], ["EXISTS", "new"],
     ["HSET", "e", "", ""], ["HGET", "e", ""], ["HSTRLEN", "e", ""], ["HSET", "bin", "a\x00b", "\r\n\x01\xff"],
     ["HGETALL", "bin"], ["HSET", "h", "a", "1"], ["HSET", "h", "b", "22"], ["HSET", "h", "a", "333"],
     ["HGETALL", "h"], ["HSET", "h", "a", "x"], ["HGETALL", "h"], ["OBJECT", "ENCODING", "h"]],
    # arity, syntax and WRONGTYPE
    [["HSET", "h"], ["HSET", "h", "a"], ["HSET", "h", "a", "1", "b"], ["HMSET", "h", "a", "1", "b"], ["HMSET", "h"],
     ["HSETNX", "h", "a"], ["HGET", "h"], ["HMGET", "h"], ["HDEL", "h"], ["HLEN"], ["HLEN", "h", "x"],
     ["HSTRLEN", "h"], ["HEXISTS", "h"], ["HKEYS"], ["HVALS", "h", "x"], ["HGETALL"], ["HINCRBY", "h", "a"],
     ["HINCRBYFLOAT", "h", "a"], ["HRANDFIELD"], ["HSCAN", "h"], ["EXISTS", "h"],
     ["SET", "s", "x"], ["HSET", "s", "a", "1"], ["HSETNX", "s", "a", "1"], ["HMSET", "s", "a", "1"],
     ["HGET", "s", "a"], ["HMGET", "s", "a"], ["HDEL", "s", "a"], ["HLEN", "s"], ["HSTRLEN", "s", "a"],
     ["HEXISTS", "s", "a"], ["HKEYS", "s"], ["HVALS", "s"], ["HGETALL", "s"], ["HINCRBY", "s", "a", "1"],
     ["HINCRBYFLOAT", "s", "a", "1"], ["HRANDFIELD", "s"], ["HRANDFIELD", "s", "1"], ["HSCAN", "s", "0"],
     ["HSCAN", "s", "x"], ["HSCAN", "s", "0", "COUNT", "0"], ["HSET", "h", "a", "1"], ["GET", "h"],
     ["APPEND", "h", "x"], ["TYPE", "h"]],
    # HINCRBY and HINCRBYFLOAT
    [["HINCRBY", "h", "n", "5"], ["HINCRBY", "h", "n", "-12"], ["HINCRBY", "h", "n", "x"], ["HINCRBY", "h", "n", "1.5"],
     ["HINCRBY", "h", "n", ""], ["HINCRBY", "h", "n", "9223372036854775807"], ["HINCRBY", "h", "n", "-9223372036854775801"],
     ["HINCRBY", "h", "n", "-9223372036854775808"], ["HSET", "h", "big", "9223372036854775807"],
     ["HINCRBY", "h", "big", "1"], ["HINCRBY", "h", "big", "0"], ["HSET", "h", "s", "abc"], ["HINCRBY", "h", "s", "1"],
     ["HSET", "h", "z", "007"], ["HINCRBY", "h", "z", "1"], ["HSET", "h", "sp", " 1"], ["HINCRBY", "h", "sp", "1"],
     ["HINCRBYFLOAT", "h", "f", "1.5"], ["HINCRBYFLOAT", "h", "f", "0.1"], ["HINCRBYFLOAT", "h", "f", "-1.6"],
     ["HINCRBYFLOAT", "h", "f", "1e3"], ["HINCRBYFLOAT", "h", "f", "3.0e-2"], ["HINCRBYFLOAT", "h", "f", "x"],
     ["HINCRBYFLOAT", "h", "f", ""], ["HINCRBYFLOAT", "h", "f", "inf"], ["HINCRBYFLOAT", "h", "f", "-inf"],
     ["HINCRBYFLOAT", "h", "f", "nan"], ["HINCRBYFLOAT", "h", "f", " 1"], ["HINCRBYFLOAT", "h", "s", "1"],
     ["HINCRBYFLOAT", "h", "n", "2.5"], ["HINCRBYFLOAT", "h", "big", "1"], ["HSET", "h", "e", "1e308"],
     ["HINCRBYFLOAT", "h", "e", "1e308"], ["HINCRBYFLOAT", "h", "e", "-1e308"], ["HINCRBYFLOAT", "h", "new", "10"],
     ["HINCRBYFLOAT", "h", "new", "5.0000000000000001"], ["HINCRBY", "h", "new", "1"], ("pairs", ["HGETALL", "h"]),
     ["HINCRBY", "k2", "a", "3"], ["HINCRBYFLOAT", "k3", "a", "-0.25"], ["HGETALL", "k2"], ["HGETALL", "k3"],
     ["OBJECT", "ENCODING", "h"]],
    # HRANDFIELD: counts, WITHVALUES, errors, huge counts (random picks compare by length)
    [["HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5"], ["HRANDFIELD", "nokey"],
     ["HRANDFIELD", "nokey", "3"], ["HRANDFIELD", "nokey", "-3", "WITHVALUES"], ("length", ["HRANDFIELD", "h"]),
     ["HRANDFIELD", "h", "0"], ["HRANDFIELD", "h", "0", "WITHVALUES"], ("length", ["HRANDFIELD", "h", "1"]),
     ("length", ["HRANDFIELD", "h", "-1"]), ("length", ["HRANDFIELD", "h", "1", "WITHVALUES"]),
     ("length", ["HRANDFIELD", "h", "2"]), ("length", ["HRANDFIELD", "h", "4", "WITHVALUES"]),
     ("length", ["HRANDFIELD", "h", "-20"]), ("length", ["HRANDFIELD", "h", "-20", "WITHVALUES"]),
     ["HRANDFIELD", "h", "5"], ["HRANDFIELD", "h", "6", "WITHVALUES"], ["HRANDFIELD", "h", "9223372036854775807"],
     ["HRANDFIELD", "h", "4611686018427387903", "WITHVALUES"], ["HRANDFIELD", "h", "4611686018427387904", "WITHVALUES"],
     ["HRANDFIELD", "h", "-4611686018427387904", "WITHVALUES"], ["HRANDFIELD", "h", "-9223372036854775808"],
     ["HRANDFIELD", "h", "9223372036854775808"], ["HRANDFIELD", "h", "x"], ["HRANDFIELD", "h", "1", "WITHSCORES"],
     ["HRANDFIELD", "h", "1", "WITHVALUES", "x"], ["HRANDFIELD", "nokey", "1", "x"], ["HRANDFIELD", "h", "1.5"],
     hset_many("big", BIG), ("length", ["HRANDFIELD", "big"]), ("length", ["HRANDFIELD", "big", "10"]),
     ("length", ["HRANDFIELD", "big", "300", "WITHVALUES"]), ("length", ["HRANDFIELD", "big", "599"]),
     ("length", ["HRANDFIELD", "big", "-1000", "WITHVALUES"]), ("pairs", ["HRANDFIELD", "big", "1000", "WITHVALUES"]),
     ("unordered", ["HRANDFIELD", "big", "600"])],
    # HSCAN: a listpack answers all with cursor 0; options and errors
    [["HSET", "h", "a1", "1", "b1", "2", "a2", "3", "c", "4"], ["HSCAN", "h", "0"], ["HSCAN", "h", "0", "COUNT", "1"],
     ["HSCAN", "h", "17", "COUNT", "2"], ["HSCAN", "h", "0", "MATCH", "a*"], ["HSCAN", "h", "0", "MATCH", "*"],
     ["HSCAN", "h", "0", "match", "?1", "count", "100"], ["HSCAN", "h", "0", "MATCH", "zz*"],
     ["HSCAN", "h", "0", "COUNT", "0"], ["HSCAN", "h", "0", "COUNT", "-1"], ["HSCAN", "h", "0", "COUNT", "x"],
     ["HSCAN", "h", "0", "COUNT"], ["HSCAN", "h", "0", "MATCH"], ["HSCAN", "h", "0", "TYPE", "hash"],
     ["HSCAN", "h", "0", "NOVALUES"], ["HSCAN", "h", "x"], ["HSCAN", "h", "-1"], ["HSCAN", "h", " 1"],
     ["HSCAN", "h", "18446744073709551616"], ["HSCAN", "h", "007"], ["HSCAN", "nokey", "0"],
     ["HSCAN", "nokey", "0", "COUNT", "0"], ["HSCAN", "nokey", "x"],
     hset_many("big", BIG), ("length", ["HSCAN", "big", "0", "COUNT", "10000"]),
     ("length", ["HSCAN", "big", "0", "MATCH", "f1*", "COUNT", "100000"]), ["HSCAN", "big", "0", "MATCH", "zz*", "COUNT", "100000"],
     ["HSCAN", "big", "0", "MATCH", "zz*", "COUNT", "9223372036854775807"], ("length", ["HSCAN", "big", "4294967296", "MATCH", "zz*"])],
    # encodings: the entries threshold (512), the value threshold (64), one way
    [hset_many("h", 512), ["OBJECT", "ENCODING", "h"], ["HLEN", "h"], ["HSET", "h", "f0000", "changed"],
     ["OBJECT", "ENCODING", "h"], ["HSET", "h", "f0512", "v"], ["OBJECT", "ENCODING", "h"], ["HLEN", "h"],
     ["HDEL", "h", "f0512", "f0511", "f0510"], ["OBJECT", "ENCODING", "h"], ("pairs", ["HGETALL", "h"]),
     ("unordered", ["HKEYS", "h"]), ("unordered", ["HVALS", "h"]), ["HGET", "h", "f0000"], ["HSTRLEN", "h", "f0100"],
     ["HSET", "v", "a", "x" * 64], ["OBJECT", "ENCODING", "v"], ["HSET", "v", "b", "x" * 65], ["OBJECT", "ENCODING", "v"],
     ["HSET", "k", "f" * 65, "x"], ["OBJECT", "ENCODING", "k"], ["HSETNX", "n", "a", "1"], ["HSETNX", "n", "b", "y" * 65],
     ["OBJECT", "ENCODING", "n"], ["HSET", "i", "a", "1"], ["HINCRBYFLOAT", "i", "a", "0.1"], ["OBJECT", "ENCODING", "i"],
     ["HMSET", "m", "a", "1", "b", "z" * 100], ["OBJECT", "ENCODING", "m"], ("pairs", ["HGETALL", "m"]),
     hset_many("g", 300), hset_many("g", 300, "f", 300), ["OBJECT", "ENCODING", "g"], ["HLEN", "g"],
     ["HDEL", "v", "b"], ["OBJECT", "ENCODING", "v"], ["HGETALL", "v"], ["COPY", "h", "h2"], ["HLEN", "h2"],
     ["COPY", "v", "v2"], ("pairs", ["HGETALL", "v2"]), ["RENAME", "g", "g2"], ["HLEN", "g2"]],
    # CONFIG SET of the thresholds, read at each write; put back at the end
    [["CONFIG", "SET", "hash-max-listpack-entries", "4"], ["CONFIG", "SET", "hash-max-listpack-value", "8"],
     ["HSET", "a", "1", "1", "2", "2", "3", "3", "4", "4"], ["OBJECT", "ENCODING", "a"], ["HSET", "a", "5", "5"],
     ["OBJECT", "ENCODING", "a"], ["HSET", "b", "f", "12345678"], ["OBJECT", "ENCODING", "b"], ["HSET", "b", "g", "123456789"],
     ["OBJECT", "ENCODING", "b"], ["HINCRBY", "c", "f", "99999999"], ["OBJECT", "ENCODING", "c"],
     ["HINCRBY", "c", "f", "1"], ["OBJECT", "ENCODING", "c"], ["HINCRBYFLOAT", "d", "f", "0.25"], ["HINCRBYFLOAT", "d", "f", "0.125"],
     ["OBJECT", "ENCODING", "d"], ["HINCRBYFLOAT", "d", "f", "0.0001"], ["OBJECT", "ENCODING", "d"],
     ["CONFIG", "SET", "hash-max-listpack-entries", "0"], ["HSET", "z", "a", "1"], ["OBJECT", "ENCODING", "z"],
     ["CONFIG", "SET", "hash-max-ziplist-entries", "1000"], ["CONFIG", "SET", "hash-max-listpack-value", "1000"],
     ["HSET", "w", "a", "x" * 300, "b" * 200, "y"], ["OBJECT", "ENCODING", "w"], ["HGETALL", "w"], ["HSTRLEN", "w", "a"],
     ["HSET", "w", "a", "short"], ["HGETALL", "w"], hset_many("w", 700), ["OBJECT", "ENCODING", "w"], ["HLEN", "w"],
     ["HSCAN", "w", "0", "MATCH", "b*"], ["HSET", "w", "f0700", "v"], ["OBJECT", "ENCODING", "w"],
     ["CONFIG", "SET", "hash-max-listpack-entries", "512"], ["CONFIG", "SET", "hash-max-listpack-value", "64"],
     ("pairs", ["CONFIG", "GET", "hash-max-listpack-*"])],
]
