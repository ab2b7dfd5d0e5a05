"""Sorted-set algebra and picks (Redis 7.0's zunionInterDiffGenericCommand,
zrandmemberWithCountCommand, ZSCAN): ZUNION ZINTER ZDIFF, their STORE forms,
ZINTERCARD with every option and error; inputs in both encodings, sets (intset
and hashtable) mixed in, weights with inf/-inf/0/negatives, the aggregates,
the order of a sum's additions (inputs smallest first, stably), duplicate and
missing keys, a destination that is a source, empty results deleting the
destination, its encoding after the store; ZRANDMEMBER ("length" and
"unordered": it is random) and ZSCAN ("scan"); the keyspace events."""
import random

from zsets import event_script  # run.py runs from this folder

rng = random.Random(2828)
U = "unordered"
L = "length"

# No -0 in the random scripts, nor a product that makes one (0 or 4.9e-324
# times a negative weight): a STORE form gathered over two shards writes its
# keys back from their records, and a large set's -0 comes back 0 (the replay
# starts a listpack, which keeps -0 as 0, as Redis's AOF reload would). The
# fixed scripts cover -0 and weight 0.
SCORES = ["1", "-1", "2", "0.1", "0.2", "0.3", "1.5", "-2.5", "1e300", "-1e300", "inf", "-inf", "3", "3", "7",
          "1e-5", "9007199254740993"]
WEIGHTS = ["1", "-1", "2", "0.5", "-0.1", "inf", "-inf", "1e300", "3"]


def zadd(key, pairs):
    args = []
    for member, score in pairs:
        args += [score, member]
    return ["ZADD", key] + args


def numbered(n, prefix="m"):
    return ["%s%03d" % (prefix, i) for i in range(n)]


def zadd_random(key, names):
    return zadd(key, [(m, rng.choice(SCORES)) for m in names])


SMALL = numbered(10)
BIG = numbered(200)
LONG = "x" * 65  # past zset-max-listpack-value


def algebra_queries(keys, n):
    """n random algebra commands over `keys` (replies sorted by score: exact order)."""
    out = []
    for _ in range(n):
        picked = [rng.choice(keys) for _ in range(rng.randrange(1, 4))]
        op = rng.choice(["ZUNION", "ZINTER", "ZDIFF", "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZINTERCARD"])
        store = op.endswith("STORE")
        args = [op] + (["dst"] if store else []) + [str(len(picked))] + picked
        if op in ("ZUNION", "ZINTER", "ZUNIONSTORE", "ZINTERSTORE"):
            if rng.random() < 0.6:
                args += ["WEIGHTS"] + [rng.choice(WEIGHTS) for _ in picked]
            if rng.random() < 0.6:
                args += ["AGGREGATE", rng.choice(["SUM", "MIN", "MAX", "sum", "max"])]
        if op == "ZINTERCARD" and rng.random() < 0.5:
            args += ["LIMIT", str(rng.randrange(0, 5))]
        if not store and op != "ZINTERCARD" and rng.random() < 0.7:
            args.append("WITHSCORES")
        out.append(args)
        if store:
            out += [["ZRANGE", "dst", "0", "-1", "WITHSCORES"], ["OBJECT", "ENCODING", "dst"]]
    return out


def random_script():
    keys = ["a", "b", "c", "s", "i", "nokey"]
    steps = [zadd_random("a", SMALL[:7]), zadd_random("b", rng.sample(SMALL, 6)), zadd_random("c", BIG[:150]),
             ["ZADD", "c"] + [x for m in SMALL for x in (rng.choice(SCORES), m)],
             ["SADD", "s", *rng.sample(SMALL, 5)], ["SADD", "i", "1", "2", "3"]]
    return steps + algebra_queries(keys, 120)


SCRIPTS = [
    # ZUNION ZINTER ZDIFF over listpacks: weights, aggregates, WITHSCORES, RESP3 pairs
    [zadd("a", [("x", "1"), ("y", "2"), ("z", "3")]), zadd("b", [("y", "10"), ("z", "-1"), ("w", "0.5")]),
     ["ZUNION", "2", "a", "b"], ["ZUNION", "2", "a", "b", "WITHSCORES"], ["ZINTER", "2", "a", "b", "WITHSCORES"],
     ["ZDIFF", "2", "a", "b", "WITHSCORES"], ["ZDIFF", "2", "b", "a"], ["ZDIFF", "1", "a", "withscores"],
     ["ZUNION", "2", "a", "b", "WEIGHTS", "2", "-3", "WITHSCORES"],
     ["ZUNION", "2", "a", "b", "AGGREGATE", "MIN", "WITHSCORES"], ["ZUNION", "2", "a", "b", "aggregate", "max", "withscores"],
     ["ZINTER", "2", "a", "b", "WEIGHTS", "0.5", "0.25", "AGGREGATE", "SUM", "WITHSCORES"],
     ["ZINTER", "2", "a", "b", "AGGREGATE", "MAX", "WEIGHTS", "1", "-1", "WITHSCORES"],
     ["ZINTER", "2", "a", "b", "WEIGHTS", "1", "2", "WEIGHTS", "3", "4", "WITHSCORES"],
     ["ZINTER", "2", "a", "b", "AGGREGATE", "MIN", "AGGREGATE", "SUM", "WITHSCORES", "WITHSCORES"],
     ["ZINTERCARD", "2", "a", "b"], ["ZINTERCARD", "2", "a", "b", "LIMIT", "1"], ["ZINTERCARD", "2", "a", "b", "LIMIT", "0"],
     ["ZINTERCARD", "2", "a", "b", "LIMIT", "5"], ["ZINTERCARD", "1", "a", "LIMIT", "2", "limit", "0"],
     ["ZUNION", "1", "a", "WEIGHTS", "1e400"], ["ZUNION", "1", "a", "WEIGHTS", "+inf", "WITHSCORES"],
     ["ZUNION", "1", "a", "WEIGHTS", "-0", "WITHSCORES"], ["ZUNION", "1", "a", "WEIGHTS", "1e-320", "WITHSCORES"]],
    # inf, -inf, 0 and NaN: inf * 0 counts 0, inf + -inf is 0, MIN/MAX keep the first when a product is NaN
    [zadd("p", [("u", "inf"), ("v", "-inf"), ("w", "0"), ("x", "1")]), zadd("q", [("u", "-inf"), ("v", "-inf"), ("w", "inf"), ("x", "-1")]),
     ["ZUNION", "2", "p", "q", "WITHSCORES"], ["ZINTER", "2", "p", "q", "WITHSCORES"],
     ["ZUNION", "2", "p", "q", "WEIGHTS", "0", "1", "WITHSCORES"], ["ZINTER", "2", "p", "q", "WEIGHTS", "1", "0", "WITHSCORES"],
     ["ZINTER", "2", "p", "q", "WEIGHTS", "1", "0", "AGGREGATE", "MIN", "WITHSCORES"],
     ["ZINTER", "2", "p", "q", "WEIGHTS", "0", "1", "AGGREGATE", "MAX", "WITHSCORES"],
     ["ZUNION", "2", "p", "q", "WEIGHTS", "inf", "-inf", "WITHSCORES"], ["ZUNION", "2", "p", "q", "WEIGHTS", "-inf", "0", "WITHSCORES"],
     ["ZINTER", "2", "p", "p", "WEIGHTS", "inf", "-inf", "WITHSCORES"], ["ZUNION", "2", "p", "p", "WITHSCORES"],
     ["ZUNIONSTORE", "d", "2", "p", "q", "WEIGHTS", "inf", "0"], ["ZRANGE", "d", "0", "-1", "WITHSCORES"],
     zadd("r", [("a", "1e308"), ("b", "-0")]), ["ZUNION", "2", "r", "r", "WITHSCORES"], ["ZINTER", "1", "r", "WEIGHTS", "10", "WITHSCORES"]],
    # the order of a sum's additions: equal-sized inputs keep their order (0.1 + 0.2 + 0.3 is not 0.1 + (0.2 + 0.3))
    [zadd("k1", [("m", "0.1")]), zadd("k2", [("m", "0.2")]), zadd("k3", [("m", "0.3")]), zadd("k4", [("m", "0.3"), ("n", "1")]),
     ["ZUNION", "3", "k1", "k2", "k3", "WITHSCORES"], ["ZUNION", "3", "k3", "k2", "k1", "WITHSCORES"],
     ["ZUNION", "3", "k2", "k3", "k1", "WITHSCORES"], ["ZINTER", "3", "k1", "k2", "k3", "WITHSCORES"],
     ["ZINTER", "3", "k3", "k2", "k1", "WITHSCORES"], ["ZUNION", "3", "k4", "k2", "k1", "WITHSCORES"],
     ["ZINTER", "3", "k4", "k3", "k1", "WITHSCORES"], ["ZUNION", "3", "k1", "k2", "k3", "WEIGHTS", "3", "1.1", "0.7", "WITHSCORES"]],
    # sets mixed in (score 1): intset and hashtable, with weights; missing keys
    [["SADD", "ints", "3", "1", "2"], ["SADD", "strs", "a", "b", "1"], zadd("z", [("1", "5"), ("a", "-2"), ("q", "0.5")]),
     ["ZUNION", "3", "ints", "strs", "z", "WITHSCORES"], ["ZINTER", "2", "ints", "z", "WITHSCORES"],
     ["ZINTER", "3", "ints", "strs", "z", "WEIGHTS", "2", "3", "4", "WITHSCORES"], ["ZDIFF", "2", "ints", "z", "WITHSCORES"],
     ["ZDIFF", "2", "z", "strs", "WITHSCORES"], ["ZDIFF", "3", "strs", "ints", "z"], ["ZINTERCARD", "2", "strs", "z"],
     ["ZUNION", "2", "ints", "nokey", "WITHSCORES"], ["ZINTER", "2", "ints", "nokey"], ["ZDIFF", "2", "nokey", "ints"],
     ["ZDIFF", "2", "ints", "nokey", "WITHSCORES"], ["ZINTERCARD", "2", "nokey", "ints"], ["ZUNION", "1", "nokey"],
     ["ZUNIONSTORE", "d", "2", "ints", "strs"], ["TYPE", "d"], ["OBJECT", "ENCODING", "d"], ["ZRANGE", "d", "0", "-1", "WITHSCORES"],
     ["ZINTERSTORE", "d2", "2", "ints", "ints", "WEIGHTS", "1.5", "1.5"], ["ZRANGE", "d2", "0", "-1", "WITHSCORES"],
     ["SADD", "big", *BIG], ["ZUNIONSTORE", "d3", "1", "big"], ["OBJECT", "ENCODING", "d3"], ["ZCARD", "d3"],
     ["ZINTERCARD", "2", "big", "d3", "LIMIT", "7"], ["ZDIFFSTORE", "d4", "2", "big", "strs"], ["ZCARD", "d4"]],
    # duplicate keys, the destination as a source, empty results delete it, TTL dropped, any type replaced
    [zadd("a", [("x", "1"), ("y", "2")]), ["ZUNION", "2", "a", "a", "WITHSCORES"], ["ZINTER", "3", "a", "a", "a", "WITHSCORES"],
     ["ZDIFF", "2", "a", "a"], ["ZDIFF", "3", "a", "nokey", "a"], ["ZDIFFSTORE", "a2", "2", "a", "a"], ["EXISTS", "a2"],
     ["ZUNIONSTORE", "a", "2", "a", "a"], ["ZRANGE", "a", "0", "-1", "WITHSCORES"],
     ["ZINTERSTORE", "a", "2", "a", "a", "WEIGHTS", "1", "-1"], ["ZRANGE", "a", "0", "-1", "WITHSCORES"],
     ["EXPIRE", "a", "100"], ["ZUNIONSTORE", "a", "1", "a", "WEIGHTS", "2"], ["TTL", "a"], ["ZRANGE", "a", "0", "-1", "WITHSCORES"],
     ["ZINTERSTORE", "a", "2", "a", "nokey"], ["EXISTS", "a"], ["ZUNIONSTORE", "nokey2", "1", "nokey"], ["EXISTS", "nokey2"],
     ["SET", "str", "v"], zadd("b", [("m", "1")]), ["ZUNIONSTORE", "str", "1", "b"], ["TYPE", "str"],
     ["LPUSH", "l", "v"], ["ZDIFFSTORE", "l", "2", "b", "nokey"], ["TYPE", "l"], ["ZINTERSTORE", "b", "2", "b", "nokey"],
     ["EXISTS", "b"], ["ZDIFFSTORE", "b", "1", "nokey"], ["EXISTS", "b"]],
    # the destination's encoding: the thresholds on the result (entries, member length), and CONFIG SET of them
    [zadd("big", [(m, str(i)) for i, m in enumerate(BIG)]), zadd("half", [(m, "1") for m in BIG[:100]]),
     ["OBJECT", "ENCODING", "big"], ["ZINTERSTORE", "d", "2", "big", "half"], ["OBJECT", "ENCODING", "d"],
     ["ZUNIONSTORE", "d", "1", "big"], ["OBJECT", "ENCODING", "d"], ["ZDIFFSTORE", "d", "2", "big", "half"],
     ["OBJECT", "ENCODING", "d"], ["ZCARD", "d"], zadd("h2", [(m, "2") for m in BIG[72:]]),
     ["ZDIFFSTORE", "d", "2", "big", "h2"], ["OBJECT", "ENCODING", "d"], ["ZRANGE", "d", "-3", "-1", "WITHSCORES"],
     ["ZDIFFSTORE", "d", "3", "big", "half", "h2"], ["EXISTS", "d"],
     zadd("long", [(LONG, "1"), ("s", "2")]), ["OBJECT", "ENCODING", "long"], ["ZUNIONSTORE", "d", "1", "long"],
     ["OBJECT", "ENCODING", "d"], ["ZINTERSTORE", "d", "2", "long", "half"], ["EXISTS", "d"],
     ["ZDIFFSTORE", "d", "2", "long", "nokey"], ["OBJECT", "ENCODING", "d"],
     ["CONFIG", "SET", "zset-max-listpack-entries", "3"], ["ZUNIONSTORE", "d", "2", "long", "half"],
     ["OBJECT", "ENCODING", "d"], ["ZDIFFSTORE", "d", "2", "half", "h2"], ["OBJECT", "ENCODING", "d"],
     ["ZINTERSTORE", "d", "1", "half", "WEIGHTS", "2"], ["OBJECT", "ENCODING", "d"],
     ["CONFIG", "SET", "zset-max-listpack-entries", "128"], ["CONFIG", "SET", "zset-max-listpack-value", "1"],
     ["ZUNIONSTORE", "d", "1", "half"], ["OBJECT", "ENCODING", "d"], ["CONFIG", "SET", "zset-max-listpack-value", "64"],
     ["ZUNION", "2", "big", "long", "WITHSCORES"], ["ZINTER", "2", "half", "big", "WITHSCORES"],
     ["ZDIFF", "2", "big", "half", "WITHSCORES"], ["ZINTERCARD", "2", "half", "big", "LIMIT", "50"]],
    # errors, in Redis's order: numkeys, the keys (WRONGTYPE), then the options
    [zadd("z", [("a", "1")]), ["SET", "str", "v"], ["HSET", "h", "f", "v"],
     ["ZUNION", "0", "z"], ["ZINTER", "0", "z"], ["ZDIFF", "0", "z"], ["ZINTERCARD", "0", "z"], ["ZUNIONSTORE", "d", "0", "z"],
     ["ZINTERSTORE", "d", "-1", "z"], ["ZDIFFSTORE", "d", "0", "z"], ["ZUNION", "x", "z"], ["ZUNION", "1.5", "z"],
     ["ZUNION", "01", "z"], ["ZUNION", "", "z"], ["ZUNION", "99999999999999999999", "z"], ["ZUNION", "2", "z"],
     ["ZUNIONSTORE", "d", "3", "z", "z"], ["ZINTERCARD", "3", "z", "z"], ["ZUNION", "-9223372036854775808", "z"],
     ["ZUNION", "2", "z", "str"], ["ZINTER", "2", "nokey", "h"], ["ZDIFF", "2", "z", "str"], ["ZINTERCARD", "1", "str"],
     ["ZUNIONSTORE", "d", "1", "h"], ["ZUNION", "1", "str", "BOGUS"], ["ZUNION", "2", "str", "z", "WEIGHTS", "x", "1"],
     ["ZUNION", "1", "z", "WEIGHTS", "x"], ["ZUNION", "1", "z", "WEIGHTS", "nan"], ["ZUNION", "1", "z", "WEIGHTS", ""],
     ["ZUNION", "1", "z", "WEIGHTS", " 1"], ["ZUNION", "1", "z", "WEIGHTS", "1x"], ["ZUNION", "1", "z", "WEIGHTS"],
     ["ZUNION", "2", "z", "z", "WEIGHTS", "1"], ["ZUNION", "2", "z", "z", "WEIGHTS", "1", "2", "3"],
     ["ZUNION", "1", "z", "AGGREGATE"], ["ZUNION", "1", "z", "AGGREGATE", "AVG"], ["ZINTER", "1", "z", "AGGREGATE", "x", "WEIGHTS", "y"],
     ["ZDIFF", "1", "z", "WEIGHTS", "1"], ["ZDIFF", "1", "z", "AGGREGATE", "SUM"], ["ZDIFFSTORE", "d", "1", "z", "WITHSCORES"],
     ["ZUNIONSTORE", "d", "1", "z", "WITHSCORES"], ["ZINTERCARD", "1", "z", "WITHSCORES"], ["ZINTERCARD", "1", "z", "WEIGHTS", "1"],
     ["ZINTERCARD", "1", "z", "LIMIT"], ["ZINTERCARD", "1", "z", "LIMIT", "-1"], ["ZINTERCARD", "1", "z", "LIMIT", "x"],
     ["ZINTERCARD", "1", "z", "LIMIT", "9223372036854775808"], ["ZINTERCARD", "1", "z", "LIMIT", "9223372036854775807"],
     ["ZUNION", "1", "z", "LIMIT", "1"], ["ZINTER", "1", "z", "WITHSCORES", "x"], ["EXISTS", "d"],
     ["ZUNION", "1"], ["ZUNION"], ["ZUNIONSTORE", "d", "1"], ["ZINTERCARD", "1"], ["ZDIFFSTORE", "d"]],
    # ZRANDMEMBER: every count, both encodings, WITHSCORES (RESP3 pairs), errors and huge counts
    [zadd("z", [("a", "1"), ("b", "2.5"), ("c", "-inf"), ("d", "1e300"), ("e", "0")]),
     zadd("big", [(m, str(i / 4)) for i, m in enumerate(BIG)]), ["SADD", "s", "a"],
     (L, ["ZRANDMEMBER", "z"]), ["ZRANDMEMBER", "nokey"], ["ZRANDMEMBER", "z", "0"], ["ZRANDMEMBER", "z", "0", "WITHSCORES"],
     ["ZRANDMEMBER", "z", "5", "WITHSCORES"], ["ZRANDMEMBER", "z", "100"], ["ZRANDMEMBER", "z", "9223372036854775807"],
     ["ZRANDMEMBER", "big", "1000"], (L, ["ZRANDMEMBER", "z", "1", "WITHSCORES"]), (L, ["ZRANDMEMBER", "z", "2"]),
     (L, ["ZRANDMEMBER", "z", "4", "withscores"]), (L, ["ZRANDMEMBER", "big", "10", "WITHSCORES"]),
     (L, ["ZRANDMEMBER", "big", "150"]), (L, ["ZRANDMEMBER", "z", "-7", "WITHSCORES"]), (L, ["ZRANDMEMBER", "big", "-500"]),
     (L, ["ZRANDMEMBER", "z", "-1"]), ["ZRANDMEMBER", "nokey", "3"], ["ZRANDMEMBER", "nokey", "-3", "WITHSCORES"],
     ["ZRANDMEMBER", "nokey", "-2147483648"], ["ZRANDMEMBER", "nokey", "-9223372036854775807"],
     ["ZRANDMEMBER", "z", "-9223372036854775808"], ["ZRANDMEMBER", "nokey", "4611686018427387903", "WITHSCORES"],
     ["ZRANDMEMBER", "nokey", "4611686018427387904", "WITHSCORES"], ["ZRANDMEMBER", "nokey", "-4611686018427387904", "WITHSCORES"],
     ["ZRANDMEMBER", "z", "-4611686018427387904", "WITHSCORES"], ["ZRANDMEMBER", "z", "x"], ["ZRANDMEMBER", "z", "1.5"],
     ["ZRANDMEMBER", "z", "1", "SCORES"], ["ZRANDMEMBER", "z", "1", "WITHSCORES", "x"], ["ZRANDMEMBER", "s"],
     ["ZRANDMEMBER", "s", "1"], ["ZRANDMEMBER", "s", "x"], ["ZRANDMEMBER", "nokey", "x"], ["ZRANDMEMBER"]],
    # ZRANDMEMBER's distinct picks are distinct members: the whole set back when asked for all of it
    [zadd("z", [(m, "1") for m in SMALL]), (U, ["ZRANDMEMBER", "z", "10"]), (U, ["ZRANDMEMBER", "z", "10", "WITHSCORES"]),
     zadd("big", [(m, "2") for m in BIG]), (U, ["ZRANDMEMBER", "big", "200"]), (L, ["ZRANDMEMBER", "big", "199"])],
    # ZSCAN: a listpack answers whole (cursor 0); a large set scanned whole with a big COUNT; options and errors
    [zadd("z", [("a1", "1"), ("b1", "2.5"), ("a2", "-inf"), ("c", "1e300"), ("e", "-0"), ("f", "0.1")]),
     ("scan", ["ZSCAN", "z", "0"]), ("scan", ["ZSCAN", "z", "0", "COUNT", "1"]), ("scan", ["ZSCAN", "z", "17", "COUNT", "2"]),
     ("scan", ["ZSCAN", "z", "0", "MATCH", "a*"]), ("scan", ["ZSCAN", "z", "0", "match", "?1", "count", "100"]),
     ["ZSCAN", "z", "0", "MATCH", "zz*"], ["ZSCAN", "z", "0", "COUNT", "0"], ["ZSCAN", "z", "0", "COUNT", "-1"],
     ["ZSCAN", "z", "0", "COUNT", "x"], ["ZSCAN", "z", "0", "COUNT"], ["ZSCAN", "z", "0", "MATCH"], ["ZSCAN", "z", "0", "TYPE", "zset"],
     ["ZSCAN", "z", "x"], ["ZSCAN", "z", "-1"], ["ZSCAN", "z", " 1"], ["ZSCAN", "z", "18446744073709551616"],
     ("scan", ["ZSCAN", "z", "007"]), ["ZSCAN", "nokey", "0"], ["ZSCAN", "nokey", "0", "COUNT", "0"], ["ZSCAN", "nokey", "x"],
     ["SET", "str", "v"], ["ZSCAN", "str", "0"], ["ZSCAN", "str", "x"], ["ZSCAN", "z"], ["ZSCAN"],
     zadd("big", [(m, str(i / 3)) for i, m in enumerate(BIG)] + [("inf", "inf"), ("neg", "-inf"), ("zero", "-0")]),
     ["OBJECT", "ENCODING", "big"], ("scan", ["ZSCAN", "big", "0", "COUNT", "10000"]),
     ("scan", ["ZSCAN", "big", "0", "MATCH", "m1*", "COUNT", "100000"]), ["ZSCAN", "big", "0", "MATCH", "zz*", "COUNT", "100000"],
     (L, ["ZSCAN", "big", "0"]), (L, ["ZSCAN", "big", "0", "MATCH", "m1*"])],
    # seeded random algebra over both encodings and sets
    random_script(),
    random_script(),
]


CONNECTIONS = 2
MULTI_SCRIPTS = [
    # zunionstore / zinterstore / zdiffstore; "del" when an empty result deletes the destination; keymiss on sources
    event_script([
        (1, zadd("a", [("x", "1"), ("y", "2")])), (1, ["SADD", "s", "x"]), (1, ["ZUNIONSTORE", "d", "2", "a", "s"]),
        (1, ["ZUNIONSTORE", "d", "1", "a"]), (1, ["ZINTERSTORE", "d", "2", "a", "s"]), (1, ["ZDIFFSTORE", "d", "2", "a", "s"]),
        (1, ["ZINTERSTORE", "d", "2", "a", "nokey"]), (1, ["ZINTERSTORE", "d", "2", "a", "nokey"]),
        (1, ["ZDIFFSTORE", "e", "2", "a", "a"]), (1, ["ZUNION", "2", "a", "nokey"]), (1, ["ZINTERCARD", "1", "nokey"]),
        (1, ["ZUNIONSTORE", "d", "1", "a", "WITHSCORES"]), (1, ["ZRANDMEMBER", "nokey"]), (1, ["ZSCAN", "nokey", "0"]),
        (1, ["SET", "str", "v"]), (1, ["ZUNIONSTORE", "str", "1", "a"])]),
    # "new" when a STORE form creates its destination
    event_script([(1, zadd("a", [("x", "1")])), (1, ["ZUNIONSTORE", "d", "1", "a"]), (1, ["ZUNIONSTORE", "d", "1", "a"]),
                  (1, ["ZDIFFSTORE", "d", "1", "nokey"]), (1, ["ZINTERSTORE", "d", "1", "a"])], "KEAn"),
    # WATCH: a STORE form changes its destination, not its sources; inside MULTI it runs whole
    [(1, zadd("a", [("x", "1"), ("y", "2")])), (1, ["SADD", "b", "y", "z"]), (0, ["WATCH", "a", "b"]),
     (1, ["ZUNIONSTORE", "d", "2", "a", "b"]), (0, ["MULTI"]), (0, ["ZRANGE", "d", "0", "-1", "WITHSCORES"]), (0, ["EXEC"]),
     (0, ["WATCH", "d"]), (1, ["ZINTERSTORE", "d", "2", "a", "b", "WEIGHTS", "2", "3"]), (0, ["MULTI"]), (0, ["PING"]),
     (0, ["EXEC"]), (0, ["WATCH", "e"]), (1, ["ZDIFFSTORE", "e", "1", "nokey"]), (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"]),
     (0, ["MULTI"]), (0, ["ZUNIONSTORE", "d", "2", "a", "b", "AGGREGATE", "MAX"]), (0, ["ZDIFFSTORE", "e", "2", "d", "a"]),
     (0, ["ZRANGE", "e", "0", "-1", "WITHSCORES"]), (0, ["ZINTERCARD", "2", "d", "e"]), (0, ["EXEC"])],
]
