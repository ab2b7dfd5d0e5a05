"""Pub/sub over several connections (issue 13): see run.py, MULTI_SCRIPTS."""

CONNECTIONS = 3

# Pub/sub (issue 13): steps (connection, command) over several connections at
# once; after each step every connection's bytes (replies and pushes) are read
# until the servers go quiet. Steps marked "sorted" have a hash-ordered reply
# (PUBSUB CHANNELS, UNSUBSCRIBE of every channel) and compare as sorted lines.
# "one_shard": a client publishing to its own channel gets, in RESP3, the push
# before the reply; with two shards the publish is a job over both and the
# push may come after its reply (docs/KV.md, differences).
MULTI_SCRIPTS = [
    [(0, ["UNSUBSCRIBE"]), (0, ["PUNSUBSCRIBE"]), (0, ["UNSUBSCRIBE", "x"]), (0, ["SUBSCRIBE", "c1", "c2", "c1"]),
     (0, ["PING"]), (0, ["PING", "hi"]), (0, ["GET", "k"]), (0, ["CONFIG", "GET", "x"]), (0, ["PUBLISH", "c1", "m"], "one_shard"),
     (0, ["PSUBSCRIBE", "c*", "d?"]), (1, ["PUBLISH", "c1", "hello"]), (1, ["PUBLISH", "d7", ""]),
     (1, ["PUBLISH", "zz", "x"]), (1, ["PUBSUB", "CHANNELS"], "sorted"), (1, ["PUBSUB", "CHANNELS", "c1*"]),
     (1, ["PUBSUB", "NUMSUB", "c1", "zz"]), (1, ["PUBSUB", "NUMSUB"]), (1, ["PUBSUB", "NUMPAT"]), (1, ["PUBSUB", "HELP"]),
     (1, ["PUBSUB"]), (1, ["PUBSUB", "FOO"]), (1, ["PUBSUB", "NUMPAT", "x"]), (1, ["PUBSUB", "CHANNELS", "a", "b"]),
     (1, ["INFO", "stats"], "pubsub"), (0, ["UNSUBSCRIBE", "c2"]), (0, ["PUNSUBSCRIBE", "d?", "zz"]),
     (0, ["UNSUBSCRIBE"]), (0, ["PUNSUBSCRIBE"]), (0, ["PING"]), (0, ["GET", "k"])],
    [(0, ["SUBSCRIBE", "a"]), (1, ["PSUBSCRIBE", "*"]), (2, ["PUBLISH", "a", "x" * 100]), (0, ["RESET"]),
     (0, ["PING"]), (2, ["PUBLISH", "a", "y"]), (1, ["QUIT"]), (2, ["PUBLISH", "a", "z"]), (0, ["SUBSCRIBE"]),
     (0, ["PSUBSCRIBE"]), (2, ["PUBLISH", "a"]), (2, ["CLIENT", "SETNAME", "n"]), (2, ["SELECT", "2"]), (2, ["RESET"]),
     (2, ["CLIENT", "GETNAME"]), (2, ["RESET", "x"]),
     (2, ["COMMAND", "INFO", "subscribe", "unsubscribe", "psubscribe", "punsubscribe", "publish", "reset", "quit"])],
    [(0, ["SUNSUBSCRIBE"]), (0, ["SSUBSCRIBE", "s1", "s2", "s1"]), (0, ["PING"]), (0, ["GET", "k"]),
     (0, ["SUBSCRIBE", "c"]), (0, ["PSUBSCRIBE", "p*"]), (1, ["SPUBLISH", "s1", "hi"]), (1, ["PUBLISH", "s1", "x"]),
     (1, ["SPUBLISH", "c", "y"]), (1, ["PUBSUB", "SHARDCHANNELS"], "sorted"), (1, ["PUBSUB", "SHARDNUMSUB", "s1", "zz"]),
     (1, ["PUBSUB", "NUMSUB", "s1"]), (1, ["INFO", "stats"], "pubsub"), (0, ["SUNSUBSCRIBE", "s1"]),
     (0, ["SUNSUBSCRIBE"]), (0, ["UNSUBSCRIBE"]), (0, ["PUNSUBSCRIBE"]), (0, ["SSUBSCRIBE", "q"]), (0, ["GET", "k"]),
     (0, ["RESET"]), (0, ["SPUBLISH"]), (1, ["PUBSUB", "SHARDCHANNELS"])],
    [(0, ["CONFIG", "GET", "client-output-buffer-limit"]),
     (0, ["CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 512kb 10"]),
     (0, ["CONFIG", "GET", "client-output-buffer-limit"]), (0, ["CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb"]),
     (0, ["CONFIG", "SET", "client-output-buffer-limit", "foo 1 1 1"]),
     (0, ["CONFIG", "SET", "client-output-buffer-limit", "pubsub x 1 1"]),
     (0, ["CONFIG", "SET", "client-output-buffer-limit", "pubsub 1 1 -1"]),
     (0, ["CONFIG", "SET", "client-output-buffer-limit", ""]),
     (0, ["CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0 replica 1 2 3"]),
     (0, ["CONFIG", "GET", "client-output-buffer-limit"]),
     (0, ["CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 32mb 8mb 60"]),
     (0, ["CONFIG", "GET", "client-output-buffer-limit"])],
]

SCRIPTS = []
