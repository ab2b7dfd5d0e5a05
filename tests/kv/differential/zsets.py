"""Sorted sets (Redis 7.0's t_zset.c): ZADD and its options, ZINCRBY ZREM ZCARD
ZSCORE ZMSCORE ZRANK ZREVRANK ZCOUNT ZLEXCOUNT, the ZRANGE family and
ZRANGESTORE, ZREMRANGEBY*: every option and error, both encodings and the
conversion thresholds (zset-max-listpack-entries/-value, OBJECT ENCODING after
each step), seeded random scores (integers, decimals, 1e300, -0.0, inf) with
ties, lexicographic ranges, WRONGTYPE, and the keyspace events (MULTI_SCRIPTS)."""
import random

rng = random.Random(28)

SCORES = ["0", "-0", "1", "-1", "2", "0.1", "0.2", "0.30000000000000004", "1.5", "-2.5", "1e300", "-1e300", "inf",
          "-inf", "+inf", "3", "3", "3", "7", "1e-5", "4.9e-324", "9007199254740993", "12345678901234567890"]
BOUNDS = ["-inf", "+inf", "inf", "0", "(0", "1", "(1", "-1", "(-1", "0.1", "(0.1", "3", "(3", "1e300", "(1e300",
          "-0", "(-0", "2", "(2", "7", "(inf", "(-inf", "1.5", "x", "(", "", " 1", "1e400", "nan"]
LEX = ["-", "+", "[a", "(a", "[b", "(b", "[m", "(m", "[zz", "(zz", "[", "(", "a", "[a\x00", "[ab", "(ab", "+x", "-x"]
RANKS = ["0", "1", "-1", "-2", "2", "5", "-5", "100", "-100", "9223372036854775807", "-9223372036854775808"]
LIMITS = [("0", "-1"), ("0", "1"), ("1", "2"), ("2", "0"), ("-1", "3"), ("3", "-5"), ("100", "1"),
          ("0", "9223372036854775807"), ("9223372036854775807", "1"), ("1", "x")]


def members(n, prefix="m"):
    return ["%s%03d" % (prefix, i) for i in range(n)]


def zadd_random(key, names):
    args = []
    for m in names:
        args += [rng.choice(SCORES), m]
    return ["ZADD", key] + args


def random_queries(key, n):
    """n random reads of every range shape over `key`."""
    out = []
    for _ in range(n):
        kind = rng.randrange(8)
        a, b = rng.choice(BOUNDS), rng.choice(BOUNDS)
        ws = ["WITHSCORES"] if rng.random() < 0.5 else []
        lim = ["LIMIT", *rng.choice(LIMITS)] if rng.random() < 0.4 else []
        if kind == 0:
            out.append(["ZRANGE", key, rng.choice(RANKS), rng.choice(RANKS)] + (["REV"] if rng.random() < 0.5 else []) + ws)
        elif kind == 1:
            out.append(["ZRANGEBYSCORE", key, a, b] + ws + lim)
        elif kind == 2:
            out.append(["ZREVRANGEBYSCORE", key, a, b] + lim + ws)
        elif kind == 3:
            out.append(["ZRANGE", key, a, b, "BYSCORE"] + (["REV"] if rng.random() < 0.5 else []) + lim + ws)
        elif kind == 4:
            out.append(["ZCOUNT", key, a, b])
        elif kind == 5:
            out.append(["ZREVRANGE", key, rng.choice(RANKS), rng.choice(RANKS)] + ws)
        elif kind == 6:
            out.append(["ZRANK" if rng.random() < 0.5 else "ZREVRANK", key, "m%03d" % rng.randrange(-2, 40)])
        else:
            out.append(["ZMSCORE", key] + ["m%03d" % rng.randrange(-2, 40) for _ in range(3)])
    return out


def random_lex_queries(key, n):
    out = []
    for _ in range(n):
        a, b = rng.choice(LEX), rng.choice(LEX)
        lim = ["LIMIT", *rng.choice(LIMITS)] if rng.random() < 0.4 else []
        out.append(rng.choice([["ZRANGEBYLEX", key, a, b] + lim, ["ZREVRANGEBYLEX", key, a, b] + lim,
                               ["ZLEXCOUNT", key, a, b], ["ZRANGE", key, a, b, "BYLEX"] + lim,
                               ["ZRANGE", key, a, b, "BYLEX", "REV"] + lim]))
    return out


def random_writes(key, n):
    """Updates, removals and range removals, with OBJECT ENCODING after each."""
    out = []
    for _ in range(n):
        kind = rng.randrange(6)
        if kind == 0:
            out.append(zadd_random(key, ["m%03d" % rng.randrange(40) for _ in range(rng.randrange(1, 4))]))
        elif kind == 1:
            out.append(["ZINCRBY", key, rng.choice(SCORES[:12]), "m%03d" % rng.randrange(40)])
        elif kind == 2:
            out.append(["ZREM", key] + ["m%03d" % rng.randrange(40) for _ in range(2)])
        elif kind == 3:
            out.append(["ZREMRANGEBYRANK", key, rng.choice(RANKS[:7]), rng.choice(RANKS[:7])])
        elif kind == 4:
            out.append(["ZREMRANGEBYSCORE", key, rng.choice(BOUNDS[:22]), rng.choice(BOUNDS[:22])])
        else:
            out.append(["ZADD", key, rng.choice(["NX", "XX", "GT", "LT", "CH"]), rng.choice(SCORES), "m%03d" % rng.randrange(40)])
        out.append(["OBJECT", "ENCODING", key])
        out.append(["ZCARD", key])
    return out


def random_script(key, size):
    return ([zadd_random(key, members(size)), ["OBJECT", "ENCODING", key]] + random_queries(key, 60)
            + random_writes(key, 25) + random_queries(key, 30) + [["ZRANGE", key, "0", "-1", "WITHSCORES"]])


LONG = "v" * 65
SAME = ["ZADD", "lex"] + [x for m in ["a", "ab", "abc", "b", "ba", "c", "m", "n", "z", "zz", "zzz", "", "a\x00",
                                      "\xff", "A"] for x in ("0", m)]
BIG_SAME = ["ZADD", "biglex"] + [x for i in range(150) for x in ("0", "%c%d" % (97 + i % 26, i))]

SCRIPTS = [
    # ZADD: options in any order, every error, the replies of CH and INCR
    [["ZADD", "z", "1", "a", "2", "b"], ["ZADD", "z", "NX", "XX", "1", "a"], ["ZADD", "z", "GT", "LT", "1", "a"],
     ["ZADD", "z", "NX", "GT", "1", "a"], ["ZADD", "z", "LT", "NX", "1", "a"], ["ZADD", "z", "NX", "XX", "GT", "1"],
     ["ZADD", "z", "INCR", "1", "a", "2", "b"], ["ZADD", "z", "1"], ["ZADD", "z", "1", "a", "2"], ["ZADD", "z", "NX"],
     ["ZADD", "z", "x", "a"], ["ZADD", "z", "1", "a", "x", "b"], ["ZADD", "z", "nan", "a"], ["ZADD", "z", "1e400", "a"],
     ["ZADD", "z", "1e-400", "a"], ["ZADD", "z", "", "a"], ["ZADD", "z", " 1", "a"], ["ZADD", "z", "1 ", "a"],
     ["ZADD", "z", "1\x00", "a"], ["ZADD", "z", "0x10", "h"], ["ZADD", "z", "4.9e-324", "d"], ["ZSCORE", "z", "d"],
     ["ZADD", "z", "CH", "5", "a", "7", "c", "2", "b"], ["ZADD", "z", "ch", "incr", "5", "a"], ["ZSCORE", "z", "a"],
     ["ZADD", "z", "XX", "INCR", "1", "nope"], ["ZADD", "z", "NX", "INCR", "1", "a"], ["ZADD", "z", "NX", "INCR", "1", "n"],
     ["ZADD", "z", "INCR", "inf", "a"], ["ZADD", "z", "INCR", "-inf", "a"], ["ZSCORE", "z", "a"],
     ["ZADD", "z", "LT", "5", "c"], ["ZADD", "z", "LT", "CH", "3", "c"], ["ZADD", "z", "GT", "CH", "3", "c"],
     ["ZADD", "z", "GT", "XX", "CH", "9", "c", "1", "b", "4", "new"], ["ZADD", "z", "INCR", "GT", "-1", "c"],
     ["ZADD", "z", "INCR", "LT", "-1", "c"], ["ZADD", "z", "INCR", "GT", "0", "c"], ["ZADD", "z", "GT", "1", "fresh"],
     ["ZADD", "z", "XX", "1", "a", "2", "zz"], ["ZADD", "nokey", "XX", "1", "a"], ["EXISTS", "nokey"],
     ["ZADD", "nokey", "XX", "INCR", "1", "a"], ["ZADD", "z", "0.1", "f"], ["ZINCRBY", "z", "0.2", "f"],
     ["ZINCRBY", "z", "1e300", "f"], ["ZINCRBY", "z", "x", "f"], ["ZINCRBY", "z", "1", "g"], ["ZINCRBY", "z2", "-0", "a"],
     ["ZSCORE", "z2", "a"], ["ZADD", "z", "-0", "m0"], ["ZSCORE", "z", "m0"], ["ZADD", "z", "incr", "-0", "m1"],
     ["ZADD", "z", "0", "m0"], ["ZRANGE", "z", "0", "-1", "WITHSCORES"], ["ZCARD", "z"], ["OBJECT", "ENCODING", "z"],
     ["ZADD", "z", "1", "a", "1", "a", "2", "a"], ["ZSCORE", "z", "a"], ["ZINCRBY", "z", "1"], ["ZINCRBY", "z", "1", "a", "b"],
     ["ZADD", "z"], ["ZADD", "z", "1"], ["ZSCORE", "z"], ["ZSCORE", "z", "a", "b"], ["ZCARD"], ["ZCARD", "z", "y"]],
    # ZREM ZCARD ZSCORE ZMSCORE ZRANK ZREVRANK; the key goes with its last member
    [["ZADD", "z", "1", "a", "2", "b", "3", "c", "3", "d"], ["ZREM", "z", "a", "x", "a"], ["ZCARD", "z"],
     ["ZRANK", "z", "b"], ["ZRANK", "z", "d"], ["ZREVRANK", "z", "b"], ["ZREVRANK", "z", "d"], ["ZRANK", "z", "x"],
     ["ZRANK", "nokey", "x"], ["ZREVRANK", "nokey", "x"], ["ZMSCORE", "z", "b", "x", "d"], ["ZMSCORE", "nokey", "a", "b"],
     ["ZSCORE", "nokey", "a"], ["ZCARD", "nokey"], ["ZREM", "nokey", "a"], ["ZREM", "z", "b", "c", "d", "e"],
     ["EXISTS", "z"], ["ZADD", "z", "1", ""], ["ZSCORE", "z", ""], ["ZRANK", "z", ""], ["ZREM", "z"], ["ZMSCORE", "z"],
     ["ZRANK", "z"], ["ZRANK", "z", "a", "b"], ["ZADD", "z", "1", "a\x00b", "1", "a\x00a", "1", "a"],
     ["ZRANGE", "z", "0", "-1"], ["ZRANK", "z", "a\x00b"], ["ZSCORE", "z", "a\x00"]],
    # WRONGTYPE everywhere, and errors that come before the type check
    [["SET", "str", "v"], ["ZADD", "str", "1", "a"], ["ZADD", "str", "x", "a"], ["ZINCRBY", "str", "1", "a"],
     ["ZREM", "str", "a"], ["ZCARD", "str"], ["ZSCORE", "str", "a"], ["ZMSCORE", "str", "a"], ["ZRANK", "str", "a"],
     ["ZREVRANK", "str", "a"], ["ZCOUNT", "str", "0", "1"], ["ZCOUNT", "str", "x", "1"], ["ZLEXCOUNT", "str", "-", "+"],
     ["ZLEXCOUNT", "str", "a", "+"], ["ZRANGE", "str", "0", "1"], ["ZRANGE", "str", "x", "1"],
     ["ZRANGE", "str", "0", "1", "BYLEX"], ["ZRANGESTORE", "d", "str", "0", "1"], ["ZRANGESTORE", "str", "nokey", "0", "1"],
     ["EXISTS", "str"], ["ZREVRANGE", "str", "0", "1"], ["ZRANGEBYSCORE", "str", "0", "1"], ["ZREVRANGEBYSCORE", "str", "0", "1"],
     ["ZRANGEBYLEX", "str", "-", "+"], ["ZREVRANGEBYLEX", "str", "+", "-"], ["ZREMRANGEBYRANK", "str", "0", "1"],
     ["ZREMRANGEBYRANK", "str", "x", "1"], ["ZREMRANGEBYSCORE", "str", "0", "1"], ["ZREMRANGEBYLEX", "str", "-", "+"],
     ["ZADD", "z", "1", "a"], ["SADD", "s", "a"], ["ZRANGESTORE", "d", "s", "0", "-1"], ["ZRANGESTORE", "s", "z", "0", "-1"],
     ["TYPE", "s"], ["SET", "d", "x", "EX", "100"], ["ZRANGESTORE", "d", "z", "0", "-1"], ["TYPE", "d"], ["TTL", "d"]],
    # ZRANGE's options: order, repeats, every conflict and syntax error
    [["ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e", "5", "f", "5", "g"],
     ["ZRANGE", "z", "0", "-1"], ["ZRANGE", "z", "0", "-1", "withscores"], ["ZRANGE", "z", "0", "-1", "WITHSCORES", "WITHSCORES"],
     ["ZRANGE", "z", "-3", "-1", "REV", "WITHSCORES"], ["ZRANGE", "z", "2", "1"], ["ZRANGE", "z", "5", "100"],
     ["ZRANGE", "z", "(1", "5", "BYSCORE"], ["ZRANGE", "z", "5", "(1", "BYSCORE", "REV"],
     ["ZRANGE", "z", "5", "1", "REV", "BYSCORE", "LIMIT", "1", "2", "WITHSCORES"], ["ZRANGE", "z", "0", "1", "LIMIT", "0", "1"],
     ["ZRANGE", "z", "0", "1", "LIMIT", "0", "-1"], ["ZRANGE", "z", "0", "1", "LIMIT", "5", "-1"],
     ["ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES"], ["ZRANGE", "z", "-", "+", "BYLEX"],
     ["ZRANGE", "z", "+", "-", "BYLEX", "REV", "LIMIT", "1", "3"], ["ZRANGE", "z", "0", "1", "LIMIT", "1"],
     ["ZRANGE", "z", "0", "1", "LIMIT"], ["ZRANGE", "z", "0", "1", "REV", "REV"], ["ZRANGE", "z", "0", "1", "BYSCORE", "BYLEX"],
     ["ZRANGE", "z", "0", "1", "BYSCORE", "BYSCORE"], ["ZRANGE", "z", "0", "1", "LIMIT", "x", "1"],
     ["ZRANGE", "z", "0", "1", "LIMIT", "1", "x"], ["ZRANGE", "z", "0", "1", "BYLEX", "LIMIT", "x", "1"],
     ["ZRANGE", "z", "a", "b", "BYSCORE"], ["ZRANGE", "z", "a", "b"], ["ZRANGE", "z", "0", "1", "BYLEX"],
     ["ZRANGE", "z", "0", "1", "foo"], ["ZRANGE", "nokey", "0", "-1"], ["ZRANGE", "nokey", "x", "1"],
     ["ZRANGE", "nokey", "0", "1", "BYLEX"], ["ZRANGE", "z", "0"], ["ZREVRANGE", "z", "0", "2", "WITHSCORES"],
     ["ZREVRANGE", "z", "0", "2", "LIMIT", "0", "1"], ["ZREVRANGE", "z", "0", "2", "REV"], ["ZREVRANGE", "z", "0", "2", "BYSCORE"],
     ["ZRANGEBYSCORE", "z", "-inf", "+inf", "WITHSCORES", "LIMIT", "2", "3"], ["ZRANGEBYSCORE", "z", "1", "5", "REV"],
     ["ZRANGEBYSCORE", "z", "1", "5", "BYSCORE"], ["ZRANGEBYSCORE", "z", "1", "5", "LIMIT", "1", "1", "LIMIT", "2", "1"],
     ["ZREVRANGEBYSCORE", "z", "+inf", "-inf", "WITHSCORES", "LIMIT", "2", "3"], ["ZREVRANGEBYSCORE", "z", "1", "5"],
     ["ZREVRANGEBYSCORE", "z", "5", "(5"], ["ZRANGEBYSCORE", "z", "(5", "5"], ["ZRANGEBYSCORE", "z", "5", "5"],
     ["ZRANGEBYSCORE", "z", "(", "5"], ["ZRANGEBYSCORE", "z", "5", "1"], ["ZRANGEBYLEX", "z", "[a", "[c"],
     ["ZRANGEBYLEX", "z", "a", "c"], ["ZREVRANGEBYLEX", "z", "[c", "[a"], ["ZREVRANGEBYLEX", "z", "[a", "[c"],
     ["ZRANGEBYLEX", "z", "[a", "[c", "WITHSCORES"], ["ZRANGEBYLEX", "z", "-", "+", "LIMIT", "1", "2"],
     ["ZRANGEBYLEX", "z", "-", "+", "BYLEX"], ["ZRANGEBYSCORE", "z", "0"], ["ZRANGEBYLEX", "z", "-"]],
    # ZCOUNT ZLEXCOUNT and the range removals
    [["ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e", "5", "f", "5", "g"], ["ZCOUNT", "z", "2", "(5"],
     ["ZCOUNT", "z", "-inf", "inf"], ["ZCOUNT", "z", "x", "1"], ["ZCOUNT", "z", "5", "1"], ["ZCOUNT", "nokey", "0", "1"],
     ["ZCOUNT", "nokey", "x", "1"], ["ZLEXCOUNT", "z", "-", "+"], ["ZLEXCOUNT", "z", "[b", "(d"], ["ZLEXCOUNT", "z", "b", "d"],
     ["ZLEXCOUNT", "z", "+", "-"], ["ZLEXCOUNT", "nokey", "-", "+"], ["ZREMRANGEBYRANK", "z", "0", "0"],
     ["ZREMRANGEBYSCORE", "z", "(4", "5"], ["ZREMRANGEBYLEX", "z", "-", "[b"], ["ZRANGE", "z", "0", "-1", "WITHSCORES"],
     ["ZREMRANGEBYRANK", "z", "5", "1"], ["ZREMRANGEBYRANK", "z", "-100", "-50"], ["ZREMRANGEBYSCORE", "z", "9", "10"],
     ["ZREMRANGEBYLEX", "z", "+", "-"], ["ZREMRANGEBYRANK", "z", "0", "-1"], ["EXISTS", "z"],
     ["ZREMRANGEBYRANK", "z", "x", "1"], ["ZREMRANGEBYRANK", "z", "1", "1.5"], ["ZREMRANGEBYSCORE", "nokey", "1", "2"],
     ["ZREMRANGEBYSCORE", "nokey", "x", "2"], ["ZREMRANGEBYLEX", "z", "1", "2"], ["ZREMRANGEBYRANK", "z", "0"],
     ["ZADD", "z", "1", "a", "1", "b"], ["ZREMRANGEBYSCORE", "z", "-inf", "+inf"], ["EXISTS", "z"],
     ["ZADD", "z", "0", "a", "0", "b"], ["ZREMRANGEBYLEX", "z", "-", "+"], ["EXISTS", "z"]],
    # ZRANGESTORE: every shape, an empty result deletes, the same key as source and destination
    [["ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"], ["ZRANGESTORE", "d", "z", "0", "2"],
     ["ZRANGE", "d", "0", "-1", "WITHSCORES"], ["ZRANGESTORE", "d", "z", "0", "2", "WITHSCORES"],
     ["ZRANGESTORE", "d", "z", "5", "1", "BYSCORE", "REV", "LIMIT", "0", "2"], ["ZRANGE", "d", "0", "-1", "WITHSCORES"],
     ["ZRANGESTORE", "d", "z", "[b", "[d", "BYLEX"], ["ZRANGE", "d", "0", "-1", "WITHSCORES"],
     ["ZRANGESTORE", "d", "z", "0", "1", "LIMIT", "0", "1"], ["ZRANGESTORE", "d", "nokey", "0", "-1"], ["EXISTS", "d"],
     ["ZRANGESTORE", "d", "z", "1", "0"], ["ZRANGESTORE", "d", "z", "-2", "-1", "REV"], ["ZRANGE", "d", "0", "-1"],
     ["ZRANGESTORE", "z", "z", "1", "3"], ["ZRANGE", "z", "0", "-1", "WITHSCORES"], ["ZRANGESTORE", "d", "z", "x", "1"],
     ["ZRANGESTORE", "d", "z", "0", "1", "BYSCORE", "LIMIT", "-1", "1"], ["EXISTS", "d"], ["ZRANGESTORE", "d", "z", "0"],
     ["ZADD", "d", "1", "x"], ["EXPIRE", "d", "100"], ["ZRANGESTORE", "d", "z", "0", "0"], ["TTL", "d"]],
    # encodings: the listpack limits, CONFIG SET of them, never back by removal, ZRANGESTORE's choice
    [["CONFIG", "SET", "zset-max-listpack-entries", "4"], ["CONFIG", "SET", "zset-max-listpack-value", "8"],
     ["ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"], ["OBJECT", "ENCODING", "z"], ["ZADD", "z", "4", "d"],
     ["OBJECT", "ENCODING", "z"], ["ZADD", "z", "5", "e"], ["OBJECT", "ENCODING", "z"], ["ZREM", "z", "a", "b", "c"],
     ["OBJECT", "ENCODING", "z"], ["ZADD", "y", "1", "12345678"], ["OBJECT", "ENCODING", "y"], ["ZADD", "y", "1", "123456789"],
     ["OBJECT", "ENCODING", "y"], ["ZADD", "x", "1", "123456789"], ["OBJECT", "ENCODING", "x"],
     ["ZADD", "w", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"], ["OBJECT", "ENCODING", "w"],
     ["ZADD", "v", "-0", "a"], ["ZADD", "v", "1", "b", "2", "c", "3", "d", "4", "e"], ["OBJECT", "ENCODING", "v"],
     ["ZSCORE", "v", "a"], ["ZADD", "v", "-0", "f"], ["ZSCORE", "v", "f"], ["ZINCRBY", "v", "-0", "g"], ["ZSCORE", "v", "g"],
     ["ZRANGESTORE", "d", "w", "0", "3"], ["OBJECT", "ENCODING", "d"], ["ZRANGESTORE", "d", "w", "0", "4"],
     ["OBJECT", "ENCODING", "d"], ["ZRANGESTORE", "d", "w", "-inf", "inf", "BYSCORE", "LIMIT", "0", "4"],
     ["OBJECT", "ENCODING", "d"], ["ZRANGESTORE", "d", "y", "0", "-1"], ["OBJECT", "ENCODING", "d"],
     ["ZRANGESTORE", "d", "v", "0", "0"], ["ZSCORE", "d", "f"], ["OBJECT", "ENCODING", "d"],
     # Known: with --threads 2 a source on another shard is rebuilt from its ZADD records, whose
     # first members pass through a listpack, so its -0 scores come back as 0 (see the report).
     ["ZSCORE", "v", "a"], ["DEL", "v"],
     ["ZREMRANGEBYRANK", "w", "0", "2"], ["OBJECT", "ENCODING", "w"], ["ZRANGE", "w", "0", "-1", "WITHSCORES"],
     ["CONFIG", "SET", "zset-max-listpack-entries", "0"], ["ZADD", "u", "1", "a"], ["OBJECT", "ENCODING", "u"],
     ["ZRANGESTORE", "d", "u", "0", "-1"], ["OBJECT", "ENCODING", "d"], ["ZRANGESTORE", "d", "z", "0", "0"],
     ["OBJECT", "ENCODING", "d"], ["CONFIG", "SET", "zset-max-listpack-entries", "128"],
     ["CONFIG", "SET", "zset-max-listpack-value", "64"], ["ZADD", "t", "1", LONG], ["OBJECT", "ENCODING", "t"],
     ["ZADD", "s", "1", LONG[:64]], ["OBJECT", "ENCODING", "s"], ["ZADD", "s", "2", LONG], ["OBJECT", "ENCODING", "s"],
     ["ZADD", "r", *[x for i in range(128) for x in (str(i), "m%d" % i)]], ["OBJECT", "ENCODING", "r"],
     ["ZADD", "r", "1000", "m1000"], ["OBJECT", "ENCODING", "r"], ["ZRANGE", "r", "120", "-1", "WITHSCORES"],
     ["ZRANGESTORE", "q", "r", "0", "127"], ["OBJECT", "ENCODING", "q"], ["ZRANGESTORE", "q", "r", "0", "128"],
     ["OBJECT", "ENCODING", "q"], ["ZRANGESTORE", "q", "r", "0", "1000", "BYSCORE"], ["OBJECT", "ENCODING", "q"]],
    # lexicographic ranges over equal scores, listpack and skiplist
    [SAME, ["OBJECT", "ENCODING", "lex"]] + random_lex_queries("lex", 60)
    + [BIG_SAME, ["OBJECT", "ENCODING", "biglex"]] + random_lex_queries("biglex", 40)
    + [["ZREMRANGEBYLEX", "lex", "[b", "(n"], ["ZRANGE", "lex", "0", "-1"], ["ZREMRANGEBYLEX", "biglex", "(b", "[m"],
       ["ZCARD", "biglex"], ["ZREMRANGEBYLEX", "biglex", "-", "(c"], ["ZRANGE", "biglex", "0", "9"],
       ["ZRANGESTORE", "d", "biglex", "[n", "+", "BYLEX", "REV", "LIMIT", "2", "5"], ["ZRANGE", "d", "0", "-1"]],
    # seeded random workloads: listpack, at the limit, and skiplist
    random_script("small", 8),
    random_script("edge", 40) + [["CONFIG", "SET", "zset-max-listpack-entries", "40"]] + random_script("edge2", 40)
    + [["CONFIG", "SET", "zset-max-listpack-entries", "128"]],
    random_script("large", 200) + random_script("huge", 1000),
]


def event_script(steps, flags="KEA"):
    return ([(1, ["CONFIG", "SET", "notify-keyspace-events", flags]), (0, ["PSUBSCRIBE", "__key*__:*"])] + steps
            + [(1, ["CONFIG", "SET", "notify-keyspace-events", ""])])


CONNECTIONS = 2
MULTI_SCRIPTS = [
    event_script([
        (1, ["ZADD", "z", "1", "a", "2", "b"]), (1, ["ZADD", "z", "1", "a"]), (1, ["ZADD", "z", "NX", "5", "a"]),
        (1, ["ZADD", "z", "CH", "5", "a"]), (1, ["ZINCRBY", "z", "1", "a"]), (1, ["ZADD", "z", "INCR", "0", "a"]),
        (1, ["ZADD", "z", "XX", "INCR", "1", "x"]), (1, ["ZREM", "z", "x"]), (1, ["ZREM", "z", "a"]),
        (1, ["ZADD", "z", "3", "c", "4", "d"]), (1, ["ZREMRANGEBYRANK", "z", "5", "6"]),
        (1, ["ZREMRANGEBYRANK", "z", "0", "0"]), (1, ["ZREMRANGEBYSCORE", "z", "3", "3"]),
        (1, ["ZREMRANGEBYSCORE", "z", "9", "9"]), (1, ["ZREMRANGEBYLEX", "z", "-", "+"]), (1, ["ZADD", "y", "0", "a"]),
        (1, ["ZREMRANGEBYLEX", "y", "[b", "+"]), (1, ["ZREMRANGEBYLEX", "y", "-", "+"]),
        (1, ["ZADD", "z", "1", "a", "2", "b"]), (1, ["ZRANGESTORE", "d", "z", "0", "-1"]),
        (1, ["ZRANGESTORE", "d", "z", "0", "-1"]), (1, ["ZRANGESTORE", "d", "z", "5", "6"]),
        (1, ["ZRANGESTORE", "d", "z", "5", "6"]), (1, ["ZRANGESTORE", "d", "nokey", "0", "1"]),
        (1, ["ZREM", "z", "a", "b"]), (1, ["ZRANGE", "nokey", "0", "1"]), (1, ["ZSCORE", "nokey", "a"])]),
    # "new" when ZADD or ZRANGESTORE creates the key, not when the key was there
    event_script([(1, ["ZADD", "z", "1", "a"]), (1, ["ZADD", "z", "2", "b"]), (1, ["ZADD", "n", "XX", "1", "a"]),
                  (1, ["ZINCRBY", "i", "1", "a"]), (1, ["ZRANGESTORE", "d", "z", "0", "0"]),
                  (1, ["ZRANGESTORE", "d", "z", "0", "-1"]), (1, ["ZRANGE", "nokey", "0", "1"])], "KEAn"),
]
