"""OBJECT, COPY, MOVE, TYPE, SCAN TYPE and WRONGTYPE over every type (the value model).

Known difference: MEMORY has only USAGE and HELP (no DOCTOR, MALLOC-STATS, PURGE, STATS), and its HELP says so."""

SCRIPTS = [
    # strings: the encodings Redis picks, and how they change
    [["SET", "i", "123"], ["OBJECT", "ENCODING", "i"], ["OBJECT", "REFCOUNT", "i"], ["SET", "j", "-5"],
     ["OBJECT", "REFCOUNT", "j"], ["SET", "big", "12345"], ["OBJECT", "REFCOUNT", "big"],
     ["SET", "n", "9223372036854775807"], ["OBJECT", "ENCODING", "n"], ["SET", "z", "012"], ["OBJECT", "ENCODING", "z"],
     ["SET", "e", ""], ["OBJECT", "ENCODING", "e"], ["SET", "s", "x" * 44], ["OBJECT", "ENCODING", "s"],
     ["SET", "r", "x" * 45], ["OBJECT", "ENCODING", "r"], ["APPEND", "i", "4"], ["OBJECT", "ENCODING", "i"],
     ["INCR", "j"], ["OBJECT", "ENCODING", "j"], ["SETRANGE", "new", "0", "ab"], ["OBJECT", "ENCODING", "new"],
     ["APPEND", "fresh", "7"], ["OBJECT", "ENCODING", "fresh"], ["OBJECT", "ENCODING", "nokey"],
     ("type", ["OBJECT", "IDLETIME", "i"]), ["OBJECT", "FREQ", "i"], ["OBJECT", "HELP"], ["OBJECT"], ["OBJECT", "ENCODING"],
     ["OBJECT", "foo", "i"], ["OBJECT", "HELP", "x"], ("known", ["MEMORY", "HELP"]), ["MEMORY", "USAGE", "nokey"],
     ["MEMORY", "USAGE", "i", "SAMPLES", "x"], ["MEMORY", "USAGE", "i", "FOO"], ["MEMORY", "nope"]],
    # COPY and MOVE
    [["SET", "a", "1"], ["PEXPIRE", "a", "100000"], ["COPY", "a", "b"], ["GET", "b"], ["COPY", "a", "b"],
     ["SET", "b", "2"], ["COPY", "a", "b", "REPLACE"], ["GET", "b"], ["COPY", "a", "a"], ["COPY", "a", "a", "DB", "1"],
     ["COPY", "a", "c", "DB", "16"], ["COPY", "a", "c", "DB", "-1"], ["COPY", "a", "c", "DB", "x"],
     ["COPY", "a", "c", "DB"], ["COPY", "a", "c", "REPLACE", "FOO"], ["COPY", "nokey", "c"], ["COPY", "a"],
     ["MOVE", "a", "1"], ["MOVE", "a", "1"], ["EXISTS", "a"], ["SELECT", "1"], ["GET", "a"], ["MOVE", "a", "1"],
     ["MOVE", "a", "99"], ["MOVE", "a", "x"], ["MOVE", "nokey", "0"], ["SELECT", "0"], ["MOVE", "b", "1"]],
    # every type: TYPE, OBJECT ENCODING, COPY, RENAME, SCAN TYPE, WRONGTYPE
    [["RPUSH", "l", "a", "b", "1"], ["HSET", "h", "f", "v"], ["SADD", "si", "1", "2"], ["SADD", "ss", "a"],
     ["SET", "s", "v"], ["TYPE", "l"], ["TYPE", "h"], ["TYPE", "si"], ["TYPE", "s"], ["TYPE", "nokey"],
     ["OBJECT", "ENCODING", "l"], ["OBJECT", "ENCODING", "h"], ["OBJECT", "ENCODING", "si"],
     ["OBJECT", "ENCODING", "ss"], ["OBJECT", "REFCOUNT", "l"],
     ["GET", "l"], ["APPEND", "h", "x"], ["INCR", "si"], ["STRLEN", "l"], ["GETRANGE", "h", "0", "1"],
     ["SETRANGE", "l", "0", "x"], ["GETSET", "l", "x"], ["GETDEL", "h"], ["GETEX", "si"], ["SET", "l", "x", "GET"],
     ["MGET", "l", "s", "h"], ["LPUSH", "s", "x"], ["HSET", "s", "f", "v"], ["SADD", "s", "x"], ["HGET", "l", "f"],
     ["COPY", "l", "l2"], ["LRANGE", "l2", "0", "-1"], ["COPY", "h", "h2"], ["HGETALL", "h2"],
     ["COPY", "si", "si2"], ["OBJECT", "ENCODING", "si2"], ["RENAME", "h2", "h3"], ["HGET", "h3", "f"],
     ("unordered", ["KEYS", "*"]), ["DBSIZE"],
     ("scan", ["SCAN", "0", "TYPE", "list", "COUNT", "100"]), ("scan", ["SCAN", "0", "TYPE", "hash", "COUNT", "100"]),
     ("scan", ["SCAN", "0", "TYPE", "set", "COUNT", "100"]), ("scan", ["SCAN", "0", "TYPE", "string", "COUNT", "100"]),
     ["EXPIRE", "l", "100"], ["TTL", "l"], ["PERSIST", "l"], ["DEL", "l", "h", "si"], ["EXISTS", "l", "h", "si"],
     ["MOVE", "l2", "2"], ["SET", "s", "plain"], ["TYPE", "s"]],
]
