"""HyperLogLog: PFADD PFCOUNT PFMERGE give Redis's exact counts, and the
strings themselves are Redis's bytes: every script GETs its keys after the
writes (sparse and dense), SETs hand-made HLLs in Redis's representation and
reads them back, and the keyspace compare at the end reads every value again.
Also: the sparse -> dense promotion (a register past 32, hll-sparse-max-bytes),
the cached cardinality, invalid and corrupted strings, arity errors, keyspace
events and a PFCOUNT that refreshes its cache touching a WATCHed key."""
import random


def header(encoding, card=b"\0" * 7 + b"\x80"):
    return b"HYLL" + bytes([encoding, 0, 0, 0]) + card


def dense(registers):
    bits = 0
    for i, v in enumerate(registers):
        bits |= v << (6 * i)
    return header(0) + bits.to_bytes(12288, "little")


def sparse(registers):
    """The opcodes of a register list, built here independently of both servers."""
    out, i = bytearray(), 0
    while i < 16384:
        j = i
        while j < 16384 and registers[j] == registers[i] and (registers[i] == 0 or j - i < 4):
            j += 1
        run, v = j - i, registers[i]
        if v:
            out.append(0x80 | (v - 1) << 2 | (run - 1))
        elif run > 64:
            out += bytes([0x40 | (run - 1) >> 8, (run - 1) & 0xFF])
        else:
            out.append(run - 1)
        i = j
    return header(1) + bytes(out)


def walks_whole(body):
    """Whether the opcodes end exactly at the end (no XZERO cut after its first byte)."""
    i = 0
    while i < len(body):
        i += 2 if body[i] & 0xC0 == 0x40 else 1
    return i == len(body)


rng = random.Random(28)
SOME = [0] * 16384
for i in rng.sample(range(16384), 40):
    SOME[i] = rng.randrange(1, 33)
WIDE = [rng.choice([0, 0, 0, 1, 2, 3, 7, 40, 51]) for _ in range(16384)]
ELEMENTS = [str(i) for i in range(1, 20001)]
FUZZ = []
while len(FUZZ) < 40:
    body = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 30)))
    if walks_whole(body):
        FUZZ.append(header(1) + body)


def batches(key, size):
    steps = []
    for at in range(0, len(ELEMENTS), size):
        steps += [["PFADD", key, *ELEMENTS[at:at + size]], ["PFCOUNT", key], ["GET", key]]
    return steps


SCRIPTS = [
    # basics, the cache, encodings, arity
    [["PFADD", "h"], ["GET", "h"], ["PFCOUNT", "h"], ["GET", "h"], ["PFADD", "h"], ["PFADD", "h", "a", "b", "c"],
     ["GET", "h"], ["PFADD", "h", "a", "b"], ["GET", "h"], ["PFCOUNT", "h"], ["GET", "h"], ["PFCOUNT", "h"],
     ["OBJECT", "ENCODING", "h"], ["TYPE", "h"], ["STRLEN", "h"], ["PFADD", "h", ""], ["PFCOUNT", "h"], ["GET", "h"],
     ["PFCOUNT", "nokey"], ["PFADD"], ["PFCOUNT"], ["PFMERGE"], ["APPEND", "h", ""], ["OBJECT", "ENCODING", "h"],
     ["SET", "e", header(1) + b"\x7f\xff"], ["OBJECT", "ENCODING", "e"], ["PFCOUNT", "e"], ["OBJECT", "ENCODING", "e"],
     ["SET", "f", header(1) + b"\x7f\xff"], ["PFCOUNT", "f", "nokey"], ["OBJECT", "ENCODING", "f"],
     ["PFADD", "f"], ["OBJECT", "ENCODING", "f"], ["GET", "f"]],
    # 20,000 elements in batches: sparse, its promotion at 3,000 bytes, dense; exact counts throughout
    batches("big", 1000) + [["STRLEN", "big"], ["PFADD", "big", *ELEMENTS[:5000]], ["PFCOUNT", "big"]],
    [["PFADD", "s1", *ELEMENTS[:40]], ["PFADD", "s2", *ELEMENTS[30:90]], ["PFADD", "d", *ELEMENTS[:3000]],
     ["PFCOUNT", "s1", "s2"], ["PFCOUNT", "s1", "s2", "d", "nokey"], ["PFCOUNT", "s1", "s1"],
     ["PFMERGE", "new", "s1", "s2"], ["GET", "new"], ["PFCOUNT", "new"], ["PFMERGE", "s1", "s2"], ["GET", "s1"],
     ["PFMERGE", "s2", "d"], ["GET", "s2"], ["STRLEN", "s2"], ["PFCOUNT", "s2"], ["PFMERGE", "only"], ["GET", "only"],
     ["PFMERGE", "only"], ["PFMERGE", "nokey2", "nokey3"], ["GET", "nokey2"], ["PFMERGE", "d", "s1"], ["GET", "d"],
     ["SET", "ttl", header(1) + b"\x7f\xff", "EX", "1000"], ["PFMERGE", "ttl", "s1"], ["TTL", "ttl"],
     ["PFADD", "ttl", "zz"], ["TTL", "ttl"], ["GET", "ttl"], ["OBJECT", "ENCODING", "ttl"]],
    # hll-sparse-max-bytes: promotion at other thresholds, and 0
    [["CONFIG", "SET", "hll-sparse-max-bytes", "60"], ["PFADD", "a", *ELEMENTS[:10]], ["GET", "a"],
     ["PFADD", "a", *ELEMENTS[10:30]], ["STRLEN", "a"], ["PFCOUNT", "a"], ["GET", "a"],
     ["CONFIG", "SET", "hll-sparse-max-bytes", "0"], ["PFADD", "b", "x"], ["STRLEN", "b"], ["GET", "b"],
     ["PFMERGE", "c", "nokey"], ["STRLEN", "c"], ["PFMERGE", "c2", "a"], ["STRLEN", "c2"],
     ["CONFIG", "GET", "hll-sparse-max-bytes"], ["CONFIG", "SET", "hll-sparse-max-bytes", "100000"],
     ["PFADD", "big", *ELEMENTS[:6000]], ["STRLEN", "big"], ["PFCOUNT", "big"], ["GET", "big"],
     ["CONFIG", "SET", "hll-sparse-max-bytes", "3000"], ["PFADD", "big", "more", "and more"], ["STRLEN", "big"]],
    # Redis's representation made here: sparse and dense, every register value, a register past 32
    [["SET", "sp", sparse(SOME)], ["PFCOUNT", "sp"], ["GET", "sp"], ["PFADD", "sp", *ELEMENTS[:200]], ["GET", "sp"],
     ["PFCOUNT", "sp"], ["SET", "dn", dense(SOME)], ["PFCOUNT", "dn"], ["PFCOUNT", "sp", "dn"],
     ["SET", "w", dense(WIDE)], ["PFCOUNT", "w"], ["GET", "w"], ["PFADD", "w", *ELEMENTS[:100]], ["PFCOUNT", "w"],
     ["PFMERGE", "sp", "w"], ["PFCOUNT", "sp"], ["SET", "v", sparse([1] * 16383 + [32])], ["PFCOUNT", "v"],
     ["PFMERGE", "v2", "v"], ["GET", "v2"], ["SET", "x", dense([33] + [0] * 16383)], ["PFMERGE", "y", "x"],
     ["GET", "y"], ["SET", "c", header(1, b"\x39\x05\0\0\0\0\0\0") + b"\x7f\xff"], ["PFCOUNT", "c"],
     ["PFCOUNT", "c", "c"], ["SET", "all63", dense([63] * 16384)], ["PFCOUNT", "all63"], ["GET", "all63"],
     ["SET", "all51", dense([51] * 16384)], ["PFCOUNT", "all51"], ["SET", "all50", dense([50] * 16384)],
     ["PFCOUNT", "all50"], ["SET", "odd", b"HYLL\x01\x07\x07\x07" + b"\0" * 8 + b"\x7f\xff"], ["PFADD", "odd", "q"],
     ["GET", "odd"], ["PFADD", "odd", *ELEMENTS[:3000]], ["GET", "odd"]],
    # not an HLL, or a corrupted one
    [["SET", "str", "hello"], ["LPUSH", "l", "a"], ["SET", "int", "1234567890123456"], ["SET", "short", "HYLL\x01"],
     ["SET", "magic", b"HYLX" + bytes(12) + b"\x7f\xff"], ["SET", "enc2", header(2) + b"\x7f\xff"],
     ["SET", "dshort", dense([0] * 16384)[:-1]], ["SET", "dlong", dense([0] * 16384) + b"\0"], ["PFADD", "h", "a"],
     *[[cmd, key] for key in ["str", "l", "int", "short", "magic", "enc2", "dshort", "dlong"]
       for cmd in ["PFADD", "PFCOUNT"]],
     ["PFADD", "str", "x"], ["PFCOUNT", "h", "str"], ["PFCOUNT", "h", "l"], ["PFMERGE", "h", "str"],
     ["PFMERGE", "str", "h"], ["PFMERGE", "new", "h", "magic"], ["EXISTS", "new"],
     ["SET", "over", header(1) + b"\x7f\xff\x80"], ["PFCOUNT", "over"], ["PFADD", "over", "a", "b"], ["GET", "over"],
     ["PFCOUNT", "h", "over"], ["PFMERGE", "m", "over"], ["EXISTS", "m"],
     ["SET", "under", header(1) + b"\x7f\xfe"], ["PFCOUNT", "under"], ["PFADD", "under", "a", "b", "c", "d"],
     ["GET", "under"], ["PFMERGE", "under2", "under"], ["SET", "empty", header(1)], ["PFCOUNT", "empty"],
     ["PFADD", "empty", "a"], ["PFADD", "empty"], ["GET", "empty"], ["SET", "valover", header(1) + b"\x7f\xfe\x83"],
     ["PFCOUNT", "valover"], ["PFCOUNT", "h", "valover"], ["PFADD", "valover", *ELEMENTS[:20]], ["GET", "valover"]],
    # random sparse bodies (whole opcodes): counted, added to, merged, as Redis does
    [step for body in FUZZ for step in [
        ["SET", "f", body], ["PFCOUNT", "f"], ["GET", "f"], ["PFADD", "f", *ELEMENTS[:8]], ["GET", "f"],
        ["PFMERGE", "g", "f"], ["GET", "g"], ["PFCOUNT", "f", "g"]]],
    # PFCOUNT refreshing its cache touches the key (signalModifiedKey); a valid cache does not
    [["PFADD", "h", "a"], ["WATCH", "h"], ["PFCOUNT", "h"], ["MULTI"], ["PING"], ["EXEC"],
     ["WATCH", "h"], ["PFCOUNT", "h"], ["MULTI"], ["PING"], ["EXEC"],
     ["WATCH", "h"], ["PFADD", "h", "a"], ["MULTI"], ["PING"], ["EXEC"],
     ["MULTI"], ["PFADD", "h", "b"], ["PFCOUNT", "h"], ["PFMERGE", "h2", "h"], ["EXEC"], ["GET", "h2"]],
]

CONNECTIONS = 2
EVENTS = ["PSUBSCRIBE", "__key*__:*"]
MULTI_SCRIPTS = [
    [(1, ["CONFIG", "SET", "notify-keyspace-events", "KEA"]), (0, EVENTS), (1, ["PFADD", "h", "a"]),
     (1, ["PFADD", "h", "a"]), (1, ["PFADD", "h"]), (1, ["PFADD", "h", "b", "c"]), (1, ["PFCOUNT", "h"]),
     (1, ["PFCOUNT", "nokey"]), (1, ["PFMERGE", "h", "h"]), (1, ["PFMERGE", "m"]), (1, ["SET", "s", "x"]),
     (1, ["PFADD", "s", "a"]), (1, ["CONFIG", "SET", "notify-keyspace-events", "Km$n"]), (1, ["PFADD", "n", "a"]),
     (1, ["PFMERGE", "n2", "nokey"]), (1, ["PFCOUNT", "nokey"]),
     (1, ["CONFIG", "SET", "notify-keyspace-events", ""])],
]
