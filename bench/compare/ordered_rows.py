"""The ordered types' rows of side_by_side.py (issue 28): sorted sets,
HyperLogLog and geo, as redis-benchmark command lines (it has ZADD and
ZPOPMIN tests of its own, none for the rest), each on one key.

Order matters, since each server keeps its keys through the run: the ZADD
rows fill `zs` with up to 100,000 members (element:<12 digits>, scores
0..99,999) before the reads of it; `pop` gets ~n fresh members just before
ZPOPMIN drains it, so every pop finds an element; GEOADD puts n points in the
1°×1° square at 0–1°E, 0–1°N (~12,300 km²; 300,000 points at --scale 0.3)
before GEOSEARCH looks 1 km around its middle (~75 points at --scale 0.3,
sorted, the first 10 returned).
"""

RANDOM_KEYS = "100000"

# (name, command line); -r applies to every __rand_int__.
ORDERED_TESTS = (
    ("zadd", ["ZADD", "zs", "__rand_int__", "element:__rand_int__"]),
    ("zincrby", ["ZINCRBY", "zs", "1", "element:__rand_int__"]),
    ("zscore", ["ZSCORE", "zs", "element:__rand_int__"]),
    ("zrank", ["ZRANK", "zs", "element:__rand_int__"]),
    ("zrange_10", ["ZRANGE", "zs", "0", "9", "WITHSCORES"]),
    ("zrangebyscore_limit", ["ZRANGEBYSCORE", "zs", "__rand_int__", "+inf", "LIMIT", "0", "10"]),
    ("zadd_pop", ["ZADD", "pop", "__rand_int__", "m:__rand_int__"]),  # the fill for zpopmin, not a row of its own
    ("zpopmin", ["ZPOPMIN", "pop"]),
    ("pfadd", ["PFADD", "hll", "element:__rand_int__"]),
    ("pfcount", ["PFCOUNT", "hll"]),
    # 12 random digits times 1e-9: a coordinate in [0, 1) degrees
    ("geoadd", ["GEOADD", "geo", "__rand_int__e-9", "__rand_int__e-9", "p:__rand_int__"]),
    ("geosearch", ["GEOSEARCH", "geo", "FROMLONLAT", "0.5", "0.5", "BYRADIUS", "1", "km", "ASC", "COUNT", "10"]),
)


def workloads(scale):
    """(name, client, arguments, requests), in the order above, at pipeline 16."""
    out = []
    n = int(1_000_000 * scale)
    for name, command in ORDERED_TESTS:
        # The pop fill and GEOADD draw from 10^9 (redis-benchmark's -r is an int: 10^12
        # would wrap to a constant), so n of them add ~n new members.
        keys = "1000000000" if name in ("zadd_pop", "geoadd") else RANDOM_KEYS
        out.append((f"{name} P16", "redis-benchmark", ["-P", "16", "-r", keys, *command], n))
    return out
