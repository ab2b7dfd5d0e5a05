"""SORT and SORT_RO (Redis 7.0's sort.c) over lists, sets (intset and
hashtable) and sorted sets (listpack and skiplist): numeric and ALPHA, ASC/DESC, LIMIT at every
edge, BY and GET patterns over strings and hash fields, STORE, every error
in Redis's order, WRONGTYPE, the events SORT ... STORE fires and WATCH.

"one_shard" (S1): a pattern naming other keys (BY with a '*', any GET) is
refused on the two-shard server with Redis Cluster's errors ("BY option of
SORT denied in Cluster mode." — tests/kv/shard_sort_test.cpp checks those),
while redis-server answers it; such a step is compared on the one-shard
servers only, and what it stores is read and deleted the same way, so the
keyspace after compares on every server. A set's own order (BY nosort
without STORE) is its hash table's: those replies compare unordered (U) or
by length.
"""

S1 = "one_shard"
U = "unordered"

BIG = [str((i * 7919) % 300) for i in range(300)]   # 300 numbers, shuffled: a list of several nodes
WORDS = ["w%03d" % ((i * 37) % 200) for i in range(200)]  # a hashtable set, and a long list of words
NUMBERS = ["3", "1", "2", "10", "-5", "1.5", "1e2", "0x10", " 7", "", "inf", "-inf", "1", "01", "+1", "1.0"]


def pattern_steps(key, hash_ordered=False):
    """BY and GET over strings and hash fields, sorting `key` (members 1..4).
    Elements whose ALPHA BY keys are equal keep their input order, which for
    a sorted set is Redis's dict order: that step is left out of its run."""
    ties = [] if hash_ordered else [(S1, ["SORT", key, "BY", "s_*", "ALPHA"]), (S1, ["SORT", key, "BY", "bad_*", "ALPHA"])]
    return ties + [
        (S1, ["SORT", key, "BY", "w_*"]), (S1, ["SORT", key, "BY", "w_*", "DESC"]),
        (S1, ["SORT", key, "BY", "w_*", "GET", "#", "GET", "w_*", "GET", "h_*->f", "GET", "h_*->nofield"]),
        (S1, ["SORT", key, "BY", "h_*->f", "ALPHA"]), (S1, ["SORT", key, "BY", "h_*->f", "ALPHA", "DESC"]),
        (S1, ["SORT", key, "BY", "h_*->n"]),
        (S1, ["SORT", key, "BY", "w_*", "LIMIT", "1", "2", "GET", "#", "GET", "w_*"]),
        (S1, ["SORT", key, "BY", "w_*", "LIMIT", "0", "1", "DESC"]),
        (S1, ["SORT", key, "BY", "l_*"]), (S1, ["SORT", key, "BY", "h_*->f"]),
        (S1, ["SORT", key, "GET", "nostar"]), (S1, ["SORT", key, "GET", "h_*->"]), (S1, ["SORT", key, "GET", "#"]),
        (S1, ["SORT", key, "GET", "w_*_*"]), (S1, ["SORT", key, "GET", "h_->*"]), (S1, ["SORT", key, "GET", "w_*\0x"]),
        (S1, ["SORT", key, "GET", "#\0x"]), (S1, ["SORT", key, "BY", "nosort", "GET", "#", "GET", "w_*"]),
        (S1, ["SORT", key, "BY", "nosort", "BY", "w_*"]), ["SORT", key, "BY", "w\0*"],
        (S1, ["SORT_RO", key, "BY", "w_*", "GET", "h_*->f"]),
        (S1, ["SORT", key, "BY", "w_*", "GET", "h_*->f", "GET", "#", "STORE", "dst"]), (S1, ["LRANGE", "dst", "0", "-1"]),
        (S1, ["SORT", key, "BY", "w_*", "GET", "nostar", "STORE", "dst"]), (S1, ["LRANGE", "dst", "0", "-1"]),
        (S1, ["DEL", "dst"]), (S1, ["SORT", key, "BY", "bad_*"]),
    ]


WEIGHTS = [["MSET", "w_1", "40", "w_2", "10", "w_3", "30", "bad_2", "x", "s_1", "b", "s_2", "a", "s_3", "b",
            "w_1_*", "x"],
           ["HSET", "h_1", "f", "d", "n", "3"], ["HSET", "h_2", "f", "b", "n", "-1"], ["HSET", "h_3", "f", "c"],
           ["SET", "h_1->", "arrow"], ["SET", "h_->1", "star-in-field"], ["RPUSH", "l_1", "9"]]

SCRIPTS = [
    # Lists: numbers in every form strtod takes, ties by element, ALPHA, DESC, LIMIT's edges
    [["RPUSH", "l", *NUMBERS], ["SORT", "l"], ["SORT", "l", "DESC"], ["SORT", "l", "ALPHA"],
     ["SORT", "l", "alpha", "desc"], ["SORT", "l", "DESC", "ASC"], ["SORT_RO", "l"], ["SORT_RO", "l", "ALPHA", "DESC"],
     ["SORT", "l", "LIMIT", "0", "3"], ["SORT", "l", "LIMIT", "2", "-1"], ["SORT", "l", "LIMIT", "-3", "2"],
     ["SORT", "l", "LIMIT", "5", "0"], ["SORT", "l", "LIMIT", "100", "5"], ["SORT", "l", "LIMIT", "15", "5"],
     ["SORT", "l", "LIMIT", "16", "1"], ["SORT", "l", "LIMIT", "0", "9223372036854775807"],
     ["SORT", "l", "LIMIT", "-9223372036854775808", "3"], ["SORT", "l", "LIMIT", "9223372036854775807", "-1"],
     ["SORT", "l", "LIMIT", "3", "4", "DESC"], ["SORT", "l", "LIMIT", "1", "1", "LIMIT", "2", "2"],
     ["SORT", "l", "BY", "nosort"], ["SORT", "l", "BY", "nosort", "DESC"], ["SORT", "l", "BY", "k", "LIMIT", "3", "4"],
     ["SORT", "l", "BY", "nosort", "LIMIT", "3", "4", "DESC"], ["SORT", "l", "BY", "nosort", "LIMIT", "14", "9"],
     ["SORT", "l", "BY", "nosort", "LIMIT", "-1", "-1", "DESC"], ["SORT", "l", "BY", "nosort", "LIMIT", "16", "2"],
     ["SORT", "l", "BY", "nosort", "LIMIT", "0", "0"], ["SORT", "nokey"], ["SORT", "nokey", "LIMIT", "1", "2", "DESC"],
     ["SORT", "nokey", "BY", "nosort", "LIMIT", "0", "1"], ["SORT_RO", "nokey", "ALPHA"]],
    # Lists: what strtod refuses, and ALPHA on bytes (a NUL ends a string unless STORE)
    [["RPUSH", "bad", "1", "a"], ["SORT", "bad"], ["SORT", "bad", "ALPHA"], ["SORT", "bad", "BY", "nosort"],
     ["SORT", "bad", "LIMIT", "0", "1"], ["RPUSH", "nan", "nan"], ["SORT", "nan"], ["RPUSH", "big", "1e999"],
     ["SORT", "big"], ["RPUSH", "tiny", "1e-400"], ["SORT", "tiny"], ["RPUSH", "sp", "5 "], ["SORT", "sp"],
     ["RPUSH", "blank", "  "], ["SORT", "blank"], ["RPUSH", "nul", "5\0x", "4", "x\0"], ["SORT", "nul"],
     ["SORT", "nul", "STORE", "d"], ["LRANGE", "d", "0", "-1"],
     ["RPUSH", "n", "a\0b", "a", "a\0a", "b", "A", "", "\xff", "\x80a"], ["SORT", "n", "ALPHA"],
     ["SORT", "n", "ALPHA", "DESC"], ["SORT", "n", "ALPHA", "STORE", "dn"], ["LRANGE", "dn", "0", "-1"],
     ["SORT", "n", "ALPHA", "DESC", "STORE", "dn"], ["LRANGE", "dn", "0", "-1"], ["SORT", "n", "ALPHA", "LIMIT", "2", "3"]],
    # A long list (several nodes), numeric and ALPHA, whole and by windows
    [["RPUSH", "big", *BIG], ["SORT", "big"], ["SORT", "big", "DESC", "LIMIT", "10", "5"], ["SORT", "big", "ALPHA"],
     ["SORT", "big", "BY", "nosort", "LIMIT", "290", "20"], ["SORT", "big", "BY", "nosort", "DESC", "LIMIT", "100", "3"],
     ["SORT", "big", "STORE", "sorted"], ["LLEN", "sorted"], ["OBJECT", "ENCODING", "sorted"],
     ["RPUSH", "words", *WORDS], ["SORT", "words", "ALPHA", "LIMIT", "50", "10"], ["SORT", "words"]],
    # Sets: intset and hashtable; BY nosort is the set's order, or ALPHA with STORE
    [["SADD", "si", "5", "-3", "100", "7", "0"], ["OBJECT", "ENCODING", "si"], ["SORT", "si"], ["SORT", "si", "DESC"],
     ["SORT", "si", "ALPHA"], ["SORT", "si", "BY", "nosort"], ["SORT", "si", "BY", "nosort", "DESC", "LIMIT", "1", "2"],
     ["SORT", "si", "LIMIT", "1", "3"], ["SORT", "si", "BY", "nosort", "STORE", "d"], ["LRANGE", "d", "0", "-1"],
     ["SADD", "sh", *WORDS], ["OBJECT", "ENCODING", "sh"], ["SORT", "sh", "ALPHA"], ["SORT", "sh", "ALPHA", "DESC",
                                                                                  "LIMIT", "3", "4"],
     ["SORT", "sh"], (U, ["SORT", "sh", "BY", "nosort"]), ("length", ["SORT", "sh", "BY", "nosort", "LIMIT", "5", "7"]),
     ["SORT", "sh", "BY", "nosort", "STORE", "d"], ["LRANGE", "d", "0", "-1"],
     ["SORT", "sh", "BY", "nosort", "DESC", "LIMIT", "2", "3", "STORE", "d"], ["LRANGE", "d", "0", "-1"],
     ["SADD", "sn", *NUMBERS], ["SORT", "sn"], ["SORT", "sn", "DESC", "LIMIT", "0", "4"], ["SORT_RO", "sn", "ALPHA"]],
    # BY and GET patterns over a list and a set
    WEIGHTS + [["RPUSH", "l", "2", "1", "4", "3"]] + pattern_steps("l"),
    WEIGHTS + [["SADD", "s", "2", "1", "4", "3"]] + pattern_steps("s"),
    WEIGHTS + [["ZADD", "z", "4", "2", "3", "1", "2", "4", "1", "3"]] + pattern_steps("z", hash_ordered=True),
    # Sorted sets, listpack and skiplist: BY nosort keeps rank order (DESC from the top) and reads LIMIT as a rank
    # range; sorting sorts the members; SORT converts a listpack set to a skiplist, as Redis's zsetConvert
    [["ZADD", "z", "1", "c", "2", "a", "3", "b", "3", "d"], ["OBJECT", "ENCODING", "z"], ["SORT", "z", "BY", "nosort"],
     ["OBJECT", "ENCODING", "z"], ["ZADD", "y", "1", "x"], ["SORT_RO", "y", "ALPHA"], ["OBJECT", "ENCODING", "y"],
     ["SORT", "z", "BY", "nosort", "DESC"], ["SORT", "z", "BY", "nosort", "LIMIT", "1", "2"],
     ["SORT", "z", "BY", "nosort", "LIMIT", "1", "2", "DESC"], ["SORT", "z", "BY", "nosort", "LIMIT", "3", "100", "DESC"],
     ["SORT", "z", "BY", "nosort", "LIMIT", "4", "1"], ["SORT", "z", "BY", "nosort", "LIMIT", "-2", "-7", "DESC"],
     ["SORT", "z", "ALPHA"], ["SORT", "z", "ALPHA", "DESC", "LIMIT", "1", "2"], ["SORT", "z"],
     ["SORT", "z", "BY", "nosort", "STORE", "d"], ["LRANGE", "d", "0", "-1"], ["SORT", "z", "ALPHA", "STORE", "d"],
     ["LRANGE", "d", "0", "-1"], ["ZADD", "zn", "3", "10", "2", "9", "1", "-1", "0", "1e1", "5", "0x9"], ["SORT", "zn"],
     ["SORT", "zn", "DESC", "LIMIT", "0", "2"], ["SORT", "zn", "ALPHA"], ["SORT_RO", "zn", "BY", "nosort", "DESC"],
     ["ZADD", "zb", *[x for i, m in enumerate(BIG) for x in (str(i % 7), "m" + m)]], ["OBJECT", "ENCODING", "zb"],
     ["SORT", "zb", "BY", "nosort", "LIMIT", "50", "10"], ["SORT", "zb", "BY", "nosort", "DESC", "LIMIT", "290", "20"],
     ["SORT", "zb", "ALPHA", "LIMIT", "0", "5"], ["SORT", "zb", "ALPHA", "DESC", "LIMIT", "295", "5"], ["SORT", "zb"],
     ["SORT", "zb", "BY", "nosort", "STORE", "d"], ["LLEN", "d"], ["LINDEX", "d", "0"], ["LINDEX", "d", "-1"],
     ["ZRANGE", "z", "0", "-1", "WITHSCORES"], ["ZRANGE", "zb", "0", "9", "WITHSCORES"]],
    # STORE: a list (TTL dropped, any old type replaced), the last STORE wins, empty deletes
    [["RPUSH", "l", "3", "1", "2"], ["SORT", "l", "STORE", "d"], ["LRANGE", "d", "0", "-1"], ["TYPE", "d"],
     ["SET", "e", "x", "EX", "100"], ["SORT", "l", "DESC", "STORE", "e"], ["TTL", "e"], ["LRANGE", "e", "0", "-1"],
     ["SADD", "f", "x"], ["SORT", "l", "STORE", "f"], ["TYPE", "f"], ["SORT", "l", "STORE", "a", "STORE", "b"],
     ["EXISTS", "a"], ["LRANGE", "b", "0", "-1"], ["SORT", "nokey", "STORE", "d"], ["EXISTS", "d"],
     ["SORT", "nokey", "STORE", "d"], ["SORT", "l", "LIMIT", "0", "0", "STORE", "b"], ["EXISTS", "b"],
     ["SORT", "l", "LIMIT", "5", "1", "STORE", "none"], ["SORT", "l", "STORE", "l"], ["LRANGE", "l", "0", "-1"],
     ["SORT", "l", "ALPHA", "DESC", "LIMIT", "1", "5", "store", "l"], ["LRANGE", "l", "0", "-1"],
     ["SORT", "l", "BY", "nosort", "STORE", "g"], ["LRANGE", "g", "0", "-1"], ["SORT", "l", "STORE", "h", "ALPHA"],
     ["SORT", "l", "STORE", "{l}x"], ["LRANGE", "{l}x", "0", "-1"]],
    # Errors in Redis's order: options first, left to right, then the key's type
    [["RPUSH", "l", "1"], ["SET", "str", "v"], ["HSET", "h", "f", "v"], ["SORT"], ["SORT_RO"], ["SORT", "l", "FOO"],
     ["SORT", "l", "LIMIT"], ["SORT", "l", "LIMIT", "1"], ["SORT", "l", "LIMIT", "a", "1"], ["SORT", "l", "LIMIT", "1", "a"],
     ["SORT", "l", "LIMIT", "1.5", "1"], ["SORT", "l", "LIMIT", "1", "2", "FOO"], ["SORT", "l", "BY"], ["SORT", "l", "GET"],
     ["SORT", "l", "STORE"], ["SORT", "l", "ASC", "DESC", "ALPHA", "x"], ["SORT", "l", "LIMIT", "9223372036854775808", "1"],
     ["SORT", "str"], ["SORT", "h"], ["SORT_RO", "str"], ["SORT", "str", "FOO"], ["SORT", "str", "LIMIT", "a", "b"],
     ["SORT", "str", "BY", "nosort"], ["SORT", "str", "STORE", "d"], ["SORT", "h", "LIMIT", "0", "1", "ALPHA"],
     ["SORT_RO", "l", "STORE", "d"], ["SORT_RO", "str", "STORE", "d"], ["SORT", "l", "LIMIT", "x", "1", "BY", "w_*"],
     ["SORT", "l", "FOO", "BY", "w_*"], (S1, ["SORT", "l", "BY", "w_*", "FOO"]), (S1, ["SORT", "str", "BY", "w_*"]),
     (S1, ["SORT", "str", "GET", "#"]), (S1, ["SORT", "l", "GET", "#", "LIMIT", "x", "y"]), ["EXISTS", "d"],
     ["SORT", "STR"], ["sort", "l", "limit", "0", "1"]],
    # Inside MULTI: queued, run in order
    [["RPUSH", "l", "2", "1"], ["MULTI"], ["SORT", "l", "STORE", "d"], ["SORT", "l", "DESC"], ["SORT", "l", "FOO"],
     ["LRANGE", "d", "0", "-1"], ["EXEC"]],
]

CONNECTIONS = 2

MULTI_SCRIPTS = [
    # The events: sortstore on the destination (after new), del when an empty result deletes it
    [(0, ["CONFIG", "SET", "notify-keyspace-events", "KEAn"]), (0, ["PSUBSCRIBE", "__key*__:*"]),
     (1, ["RPUSH", "l", "2", "1"]), (1, ["SORT", "l"]), (1, ["SORT", "l", "STORE", "d"]),
     (1, ["SORT", "l", "STORE", "d"]), (1, ["SORT", "nokey", "STORE", "d"]), (1, ["SORT", "nokey", "STORE", "d"]),
     (1, ["SORT", "l", "FOO", "STORE", "d"]), (1, ["SORT_RO", "l"])],
    # WATCH: a STORE touches its destination, a SORT without one touches nothing
    [(0, ["RPUSH", "l", "2", "1"]), (0, ["WATCH", "d", "l"]), (1, ["SORT", "l"]), (1, ["SORT", "l", "LIMIT", "0", "0"]),
     (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"]), (0, ["WATCH", "d"]), (1, ["SORT", "l", "STORE", "d"]),
     (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"]), (0, ["WATCH", "x"]), (1, ["SORT", "nokey", "STORE", "x"]),
     (0, ["MULTI"]), (0, ["PING"]), (0, ["EXEC"])],
    # A client blocked on the destination is served by the STORE
    [(0, ["BLPOP", "d", "0"]), (1, ["RPUSH", "l", "b", "a"]), (1, ["SORT", "l", "ALPHA", "STORE", "d"]),
     (1, ["LRANGE", "d", "0", "-1"])],
]
