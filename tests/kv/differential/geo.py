"""Geo: every command, unit and option, errors and WRONGTYPE, over seeded random
points — a dense cluster (many results, COUNT cutting through ties of equal
distances), the latitude limits near the poles, the antimeridian, the
equator — so scores, distances, coordinates and the order of results are
compared byte for byte; STORE/STOREDIST results are compared as the stored
sets (their scores) and their encodings."""
import random

rng = random.Random(28)


def coord(x):
    return "%.6f" % x


def geoadd(key, points):
    args = ["GEOADD", key]
    for lon, lat, name in points:
        args += [coord(lon), coord(lat), name]
    return args


# A cluster around (10, 45): 150 random points, then 30 pairs at one spot (equal distances).
CLUSTER = [(10 + rng.uniform(-2, 2), 45 + rng.uniform(-1.5, 1.5), "c%03d" % i) for i in range(150)]
CLUSTER += [(lon, lat, name + "twin") for lon, lat, name in CLUSTER[:30]]
# Symmetric around (0, 0): the same distance from the centre, in every direction.
RING = [(s * d, t * d, "r%s%s%g" % (s, t, d)) for s in (-1, 1) for t in (-1, 1) for d in (0.5, 1, 2)]
RING += [(0, 0, "origin"), (1, 0, "east1"), (-1, 0, "west1"), (0, 1, "north1"), (0, -1, "south1")]
# The latitude limits and the poles' neighbourhood.
POLAR = [(rng.uniform(-180, 180), rng.choice([85.05112878, -85.05112878, 85.05, -85.05, 84.9, -84.9, 80.5, -80.5,
                                                 rng.uniform(66, 85.05), -rng.uniform(66, 85.05)]), "p%02d" % i)
         for i in range(60)]
POLAR += [(180, 85.05112878, "ne_corner"), (-180, -85.05112878, "sw_corner"), (-180, 85.05112878, "nw_corner")]
# Both sides of the antimeridian.
DATELINE = [(rng.choice([1, -1]) * rng.uniform(179, 180), rng.uniform(-10, 10), "d%02d" % i) for i in range(50)]
DATELINE += [(180, 0, "plus180"), (-180, 0, "minus180"), (179.999999, 0.5, "near_plus"),
             (-179.999999, 0.5, "near_minus")]
# Anywhere.
WORLD = [(rng.uniform(-180, 180), rng.uniform(-85.05, 85.05), "w%03d" % i) for i in range(120)]

UNITS = ["m", "km", "ft", "mi", "KM", "Mi"]
WITH = ["WITHDIST", "WITHCOORD", "WITHHASH"]


def members(points, n):
    return [p[2] for p in points[:n]]


def random_searches(key, points, count, center_span, radii_km):
    """GEOSEARCH / GEORADIUS steps with random centres near the points, every unit and option."""
    steps = []
    for i in range(count):
        lon, lat, name = rng.choice(points)
        lon = max(-180, min(180, lon + rng.uniform(-center_span, center_span)))
        lat = max(-85.05, min(85.05, lat + rng.uniform(-center_span, center_span)))
        unit = rng.choice(UNITS)
        factor = {"m": 0.001, "km": 1, "ft": 0.0003048, "mi": 1.60934}[unit.lower()]
        size = "%g" % (rng.choice(radii_km) / factor)
        opts = rng.sample(WITH, rng.randint(0, 3))
        order = rng.choice([[], ["ASC"], ["DESC"]])
        count_opt = rng.choice([[], [], ["COUNT", str(rng.randint(1, 40))], ["COUNT", str(rng.randint(1, 5)), "ANY"]])
        frm = ["FROMMEMBER", name] if i % 3 == 0 else ["FROMLONLAT", coord(lon), coord(lat)]
        if i % 4 == 1:
            shape = ["BYBOX", size, "%g" % (float(size) * rng.uniform(0.3, 2)), unit]
        else:
            shape = ["BYRADIUS", size, unit]
        steps.append(["GEOSEARCH", key] + frm + shape + opts + order + count_opt)
        if i % 5 == 0:
            steps.append(["GEORADIUS", key, coord(lon), coord(lat), size, unit] + opts + order + count_opt)
        if i % 5 == 2:
            steps.append(["GEORADIUSBYMEMBER_RO", key, name, size, unit] + order + count_opt + opts)
    return steps


SCRIPTS = [
    # GEOADD's options and replies, GEOPOS GEOHASH GEODIST on known places, every unit
    [["GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"],
     ["ZSCORE", "Sicily", "Palermo"], ["GEOPOS", "Sicily", "Palermo", "Catania", "nope"],
     ["GEOHASH", "Sicily", "Palermo", "Catania", "nope"], ["GEOHASH", "Sicily"], ["GEOPOS", "Sicily"],
     ["GEODIST", "Sicily", "Palermo", "Catania"], *[["GEODIST", "Sicily", "Palermo", "Catania", u] for u in UNITS],
     ["GEODIST", "Sicily", "Palermo", "Palermo"], ["GEODIST", "Sicily", "Palermo", "nope"],
     ["GEODIST", "nokey", "a", "b"], ["GEODIST", "nokey", "a", "b", "parsec"],
     ["GEODIST", "Sicily", "a", "b", "m", "x"],
     ["GEOPOS", "nokey", "a", "b"], ["GEOHASH", "nokey", "a"],
     ["GEOADD", "Sicily", "NX", "13", "38", "Palermo", "14", "37", "Messina"],
     ["GEOPOS", "Sicily", "Palermo", "Messina"],
     ["GEOADD", "Sicily", "XX", "13", "38", "Palermo", "14", "37", "Siracusa"],
     ["GEOPOS", "Sicily", "Palermo", "Siracusa"],
     ["GEOADD", "Sicily", "CH", "XX", "13.5", "38", "Palermo", "14", "37", "Messina"],
     ["GEOADD", "Sicily", "ch", "nx", "13", "38", "Palermo", "14.5", "37", "Enna"],
     ["GEOADD", "Sicily", "CH", "13.5", "38", "Palermo"], ["GEOADD", "Sicily", "xx", "CH", "1", "1", "Palermo"],
     ["GEOADD", "fresh", "XX", "1", "1", "a"], ["EXISTS", "fresh"], ["GEOADD", "fresh", "NX", "CH", "1", "1", "a"],
     ["OBJECT", "ENCODING", "fresh"], ["GEOADD", "long", "1", "1", "m" * 65], ["OBJECT", "ENCODING", "long"],
     ["GEOADD", "dup", "1", "1", "a", "2", "2", "a"], ["GEOPOS", "dup", "a"]],
    # Coordinates at and past the limits, and odd but valid numbers
    [["GEOADD", "k", "180", "85.05112878", "ne", "-180", "-85.05112878", "sw", "0", "0", "zero"],
     ["ZSCORE", "k", "ne"], ["ZSCORE", "k", "sw"],
     ["GEOPOS", "k", "ne", "sw", "zero"], ["GEOHASH", "k", "ne", "sw", "zero"],
     ["GEODIST", "k", "ne", "sw"], ["GEODIST", "k", "ne", "sw", "mi"],
     ["GEOADD", "k", "180.000001", "0", "x"],
     ["GEOADD", "k", "0", "85.05112879", "x"], ["GEOADD", "k", "-0", "-90", "x"],
     ["GEOADD", "k", "inf", "0", "x"], ["GEOADD", "k", "0", "-inf", "x"], ["GEOADD", "k", "1e300", "0", "x"],
     ["GEOADD", "k", "nan", "0", "x"], ["GEOADD", "k", "0", "abc", "x"], ["GEOADD", "k", "", "0", "x"],
     ["GEOADD", "k", " 1", "0", "x"], ["GEOADD", "k", "1 ", "0", "x"],
     ["GEOADD", "k", "1", "0", "ok1", "999", "0", "bad"],
     ["EXISTS", "k2"], ["GEOADD", "k", "0x10", "1e1", "hex"], ["GEOADD", "k", "1e-320", "-0", "tiny"],
     ["GEOADD", "k", "+5", ".5", "plus"], ["GEOPOS", "k", "hex", "tiny", "plus", "ok1", "bad"],
     ["GEOHASH", "k", "hex", "tiny", "plus"]],
    # Scores that are no geohash (ZADD'd): decoded as Redis's C cast reads them
    [["ZADD", "z", "-1", "neg1", "-0.5", "negh", "1e300", "huge", "inf", "pinf", "-inf", "ninf",
      "9223372036854775808", "two63", "4503599627370496", "two52", "12345.678", "frac", "0", "zero"],
     ["GEOPOS", "z", "neg1", "negh", "huge", "pinf", "ninf", "two63", "two52", "frac", "zero"],
     ["GEOHASH", "z", "neg1", "negh", "huge", "pinf", "ninf", "two63", "two52", "frac", "zero"],
     ["GEODIST", "z", "neg1", "ninf"], ["GEODIST", "z", "frac", "zero", "km"],
     ["GEOSEARCH", "z", "FROMMEMBER", "frac", "BYRADIUS", "100", "km", "WITHHASH", "WITHCOORD", "WITHDIST"],
     ["GEOSEARCH", "z", "FROMMEMBER", "neg1", "BYRADIUS", "100", "km", "WITHHASH"],
     ["GEOSEARCH", "z", "FROMLONLAT", "-180", "-85.05112878", "BYBOX", "1", "1", "m", "WITHHASH"]],
    # The cluster: dense results, COUNT through ties, ANY, both orders, every unit
    [geoadd("c", CLUSTER), ["OBJECT", "ENCODING", "c"],
     ["GEOPOS", "c", *members(CLUSTER, 20)], ["GEOHASH", "c", *members(CLUSTER, 20)],
     ["GEODIST", "c", "c000", "c000twin"], ["GEODIST", "c", "c001", "c149", "km"],
     ["GEOSEARCH", "c", "FROMLONLAT", "10", "45", "BYRADIUS", "300", "km", "ASC", "WITHDIST"],
     ["GEOSEARCH", "c", "FROMLONLAT", "10", "45", "BYRADIUS", "300", "km"],
     ["GEOSEARCH", "c", "FROMMEMBER", "c000", "BYRADIUS", "100", "km", "COUNT", "3"],
     ["GEOSEARCH", "c", "FROMMEMBER", "c000", "BYRADIUS", "100", "km", "COUNT", "3", "DESC", "WITHDIST"],
     ["GEOSEARCH", "c", "FROMMEMBER", "c000", "BYRADIUS", "100", "km", "COUNT", "3", "ANY"],
     ["GEOSEARCH", "c", "FROMMEMBER", "c000", "BYRADIUS", "100", "km", "COUNT", "3", "ANY", "ASC"],
     ["GEOSEARCH", "c", "FROMMEMBER", "c000", "BYRADIUS", "100", "km", "COUNT", "1000", "ANY", "DESC"],
     *[["GEOSEARCH", "c", "FROMMEMBER", "c%03d" % i, "BYRADIUS", "150", "km", "COUNT", str(n), "WITHDIST"]
       for i, n in ((3, 7), (5, 45), (8, 60), (13, 2))],
     *[["GEORADIUS", "c", "10", "45", "200", "km", "COUNT", str(n), order]
       for n, order in ((10, "ASC"), (41, "DESC"), (100, "ASC"), (7, "DESC"))],
     ["GEOSEARCH", "c", "FROMLONLAT", "10", "45", "BYBOX", "200", "100", "km", "WITHCOORD", "WITHHASH"],
     ["GEOSEARCH", "c", "FROMLONLAT", "10", "45", "BYBOX", "0", "0", "km"],
     ["GEOSEARCH", "c", "FROMMEMBER", "c000", "BYRADIUS", "0", "m", "WITHDIST"],
     ["GEOSEARCH", "c", "FROMMEMBER", "c000", "BYBOX", "0", "0", "m", "WITHDIST"],
     *random_searches("c", CLUSTER, 30, 1.5, [1, 10, 50, 120, 400])],
    # Equal distances in every direction around (0, 0)
    [geoadd("ring", RING),
     *[["GEOSEARCH", "ring", "FROMLONLAT", "0", "0", "BYRADIUS", "400", "km", "COUNT", str(n), o, "WITHDIST"]
       for n in (1, 2, 5, 9, 14) for o in ("ASC", "DESC")],
     ["GEOSEARCH", "ring", "FROMLONLAT", "0", "0", "BYBOX", "250", "250", "km", "WITHDIST", "ASC"],
     ["GEORADIUSBYMEMBER", "ring", "origin", "120", "km", "WITHDIST", "DESC"],
     ["GEORADIUSBYMEMBER", "ring", "origin", "120", "km", "COUNT", "3"]],
    # The poles' neighbourhood and the latitude limits
    [geoadd("p", POLAR), ["GEOPOS", "p", *members(POLAR, 63)], ["GEOHASH", "p", *members(POLAR, 63)],
     *[["GEOSEARCH", "p", "FROMLONLAT", lon, lat, "BYRADIUS", r, "km", "WITHDIST", "ASC"]
       for lon, lat in (("0", "85.05"), ("179", "85"), ("-90", "-85.05112878"), ("45", "80.1"), ("0", "70"))
       for r in ("50", "500", "3000")],
     *[["GEOSEARCH", "p", "FROMLONLAT", "0", lat, "BYBOX", w, h, "km", "WITHDIST", "ASC"]
       for lat in ("85", "-85", "75") for w, h in (("1000", "200"), ("8000", "1000"), ("40000", "5000"))],
     ["GEORADIUSBYMEMBER", "p", "ne_corner", "500", "km", "WITHCOORD"],
     *random_searches("p", POLAR, 15, 3, [20, 300, 2000])],
    # Across the antimeridian
    [geoadd("d", DATELINE), ["GEOPOS", "d", "plus180", "minus180", "near_plus", "near_minus"],
     ["GEODIST", "d", "plus180", "minus180"], ["GEODIST", "d", "near_plus", "near_minus", "m"],
     *[["GEOSEARCH", "d", "FROMLONLAT", lon, "0", "BYRADIUS", r, "km", "WITHDIST", "ASC"]
       for lon in ("180", "-180", "179.99", "-179.5") for r in ("1", "60", "300")],
     *[["GEOSEARCH", "d", "FROMLONLAT", lon, "2", "BYBOX", "400", "200", "km", "ASC"] for lon in ("180", "-179.9")],
     *random_searches("d", DATELINE, 15, 0.5, [5, 50, 200])],
    # Anywhere, huge radii (neighbour cells that coincide), and the whole world
    [geoadd("w", WORLD), ["OBJECT", "ENCODING", "w"],
     *[["GEOSEARCH", "w", "FROMLONLAT", "0", "0", "BYRADIUS", r, "km", "COUNT", "25", "WITHDIST"]
       for r in ("5000", "10000", "20000", "30000")],
     ["GEOSEARCH", "w", "FROMLONLAT", "100", "-30", "BYBOX", "40000", "20000", "km", "DESC", "COUNT", "20"],
     ["GEORADIUS", "w", "0", "0", "25000", "km", "ASC", "WITHDIST"],
     # Sizes at the ends of the doubles: one step for the whole world, or a point.
     *[["GEOSEARCH", "w", "FROMLONLAT", "0", "0", shape, *size, "km", "ASC", "COUNT", "10", "WITHDIST"]
       for shape, size in (("BYRADIUS", ["inf"]), ("BYRADIUS", ["1e308"]), ("BYBOX", ["inf", "inf"]),
                           ("BYBOX", ["1e308", "1"]), ("BYBOX", ["1", "inf"]), ("BYRADIUS", ["1e-320"]),
                           ("BYRADIUS", ["-0"]))],
     ["GEORADIUS", "w", "0", "0", "20000", "km", "COUNT", "9223372036854775807"],
     ["GEORADIUS", "w", "0", "0", "20000", "km", "COUNT", "9223372036854775808"],
     ["GEOSEARCHSTORE", "all", "w", "FROMLONLAT", "0", "0", "BYRADIUS", "inf", "km", "STOREDIST"],
     *random_searches("w", WORLD, 20, 10, [100, 1000, 5000])],
    # STORE, STOREDIST, GEOSEARCHSTORE: the stored sets, their encodings, events of an empty result
    [geoadd("c", CLUSTER), ["SET", "str", "x"], ["EXPIRE", "c2", "100"],
     ["GEORADIUS", "c", "10", "45", "50", "km", "STORE", "s1"], ["OBJECT", "ENCODING", "s1"],
     ["GEORADIUS", "c", "10", "45", "500", "km", "STORE", "s2"], ["OBJECT", "ENCODING", "s2"],
     ["GEORADIUS", "c", "10", "45", "50", "km", "STOREDIST", "s3", "COUNT", "5"],
     ["GEORADIUS", "c", "10", "45", "50", "mi", "STORE", "x", "STOREDIST", "s4", "DESC"],
     ["GEORADIUSBYMEMBER", "c", "c000", "80", "km", "STORE", "s5", "COUNT", "10", "ANY"],
     ["GEORADIUSBYMEMBER", "c", "c000", "80", "ft", "STOREDIST", "s6"],
     ["GEOSEARCHSTORE", "s7", "c", "FROMLONLAT", "10", "45", "BYBOX", "100", "100", "km"],
     ["GEOSEARCHSTORE", "s8", "c", "FROMMEMBER", "c001", "BYRADIUS", "70", "km", "STOREDIST", "COUNT", "12"],
     ["GEOSEARCHSTORE", "s9", "c", "FROMMEMBER", "c001", "BYRADIUS", "70", "km", "STOREDIST", "COUNT", "4", "ANY"],
     ["GEOSEARCHSTORE", "str", "c", "FROMLONLAT", "10", "45", "BYRADIUS", "10", "km"], ["TYPE", "str"],
     ["SET", "str", "x"], ["GEOSEARCHSTORE", "str", "c", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"],
     ["EXISTS", "str"], ["GEOSEARCHSTORE", "s1", "nokey", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"],
     ["EXISTS", "s1"], ["GEORADIUS", "nokey", "0", "0", "1", "km", "STORE", "s2"], ["EXISTS", "s2"],
     ["GEORADIUSBYMEMBER", "nokey", "m", "x", "y", "STORE", "s3"], ["EXISTS", "s3"],
     ["GEOSEARCHSTORE", "c2", "c", "FROMLONLAT", "10", "45", "BYRADIUS", "20", "km"], ["TTL", "c2"],
     ["GEOSEARCHSTORE", "c", "c", "FROMLONLAT", "10", "45", "BYRADIUS", "30", "km", "STOREDIST"],
     ["GEOSEARCH", "s7", "FROMLONLAT", "10", "45", "BYRADIUS", "20", "km", "WITHDIST"]],
    # Errors, in Redis's order of checks
    [geoadd("g", CLUSTER[:10]), ["SET", "str", "x"],
     ["GEOADD", "g"], ["GEOADD", "g", "1", "1"],
     ["GEOADD", "g", "1", "1", "a", "2"], ["GEOADD", "g", "NX", "XX", "1", "1", "a"],
     ["GEOADD", "g", "CH", "CH", "CH"], ["GEOADD", "g", "GT", "1", "1", "a"], ["GEOADD", "g", "INCR", "1", "1", "a"],
     ["GEOADD", "str", "1", "1", "a"], ["GEOADD", "str", "1", "100", "a"], ["GEOADD", "str", "NX", "XX", "1", "1", "a"],
     ["GEOPOS", "str", "a"], ["GEOPOS"], ["GEOHASH", "str"],
     ["GEODIST", "str", "a", "b"], ["GEODIST", "str", "a", "b", "x"],
     ["GEODIST", "g", "a"], ["GEODIST", "g", "c000", "c001", "M", "M"],
     ["GEORADIUS", "g", "10", "45", "-1", "km"], ["GEORADIUS", "g", "10", "45", "x", "km"],
     ["GEORADIUS", "g", "10", "45", "1", "parsec"], ["GEORADIUS", "g", "10", "100", "1", "km"],
     ["GEORADIUS", "g", "x", "45", "1", "km"], ["GEORADIUS", "g", "10", "45", "1", "km", "COUNT"],
     ["GEORADIUS", "g", "10", "45", "1", "km", "COUNT", "0"], ["GEORADIUS", "g", "10", "45", "1", "km", "COUNT", "-3"],
     ["GEORADIUS", "g", "10", "45", "1", "km", "COUNT", "1.5"], ["GEORADIUS", "g", "10", "45", "1", "km", "ANY"],
     ["GEORADIUS", "g", "10", "45", "1", "km", "STORE"],
     ["GEORADIUS", "g", "10", "45", "1", "km", "STORE", "d", "WITHDIST"],
     ["GEORADIUS", "g", "10", "45", "1", "km", "WITHHASH", "STOREDIST", "d"],
     ["GEORADIUS", "g", "10", "45", "1", "km", "BOGUS"],
     ["GEORADIUS", "g", "10", "45", "1", "km", "FROMMEMBER", "c000"], ["GEORADIUS", "str", "x", "y", "z", "w"],
     ["GEORADIUS_RO", "g", "10", "45", "1", "km", "STORE", "d"],
     ["GEORADIUS_RO", "g", "10", "45", "1", "km", "STOREDIST", "d"],
     ["GEORADIUSBYMEMBER", "g", "nope", "1", "km"], ["GEORADIUSBYMEMBER", "g", "nope", "x", "y", "BOGUS"],
     ["GEORADIUSBYMEMBER", "g", "c000", "x", "km"], ["GEORADIUSBYMEMBER", "g", "c000", "1", "km", "ANY", "STORE", "d"],
     ["GEORADIUSBYMEMBER", "nokey", "m", "x", "y", "BOGUS"],
     ["GEORADIUSBYMEMBER", "nokey", "m", "x", "y", "WITHDIST", "STORE", "d"],
     ["GEORADIUSBYMEMBER_RO", "g", "c000", "1", "km", "STORE", "d"], ["GEORADIUSBYMEMBER", "str", "m", "1", "km"],
     ["GEOSEARCH", "g", "FROMLONLAT", "10", "45"], ["GEOSEARCH", "g", "BYRADIUS", "1", "km", "WITHDIST"],
     ["GEOSEARCH", "g", "FROMLONLAT", "10", "45", "COUNT", "3"], ["geoSearch", "g", "COUNT", "3", "ASC", "DESC"],
     ["GEOSEARCH", "g", "FROMLONLAT", "10", "45", "FROMMEMBER", "c000", "BYRADIUS", "1", "km"],
     ["GEOSEARCH", "g", "FROMMEMBER", "c000", "FROMLONLAT", "10", "45", "BYRADIUS", "1", "km"],
     ["GEOSEARCH", "g", "FROMMEMBER", "c000", "FROMMEMBER", "c001", "BYRADIUS", "1", "km"],
     ["GEOSEARCH", "g", "FROMLONLAT", "10", "45", "BYRADIUS", "1", "km", "BYBOX", "1", "1", "km"],
     ["GEOSEARCH", "g", "FROMLONLAT", "10", "45", "BYBOX", "1", "1", "km", "BYRADIUS", "1", "km"],
     ["GEOSEARCH", "g", "FROMLONLAT", "10", "45", "BYBOX", "1", "1", "km", "BYBOX", "2", "2", "m"],
     ["GEOSEARCH", "g", "FROMLONLAT", "10", "45", "BYBOX", "-1", "1", "km"],
     ["GEOSEARCH", "g", "FROMLONLAT", "10", "45", "BYBOX", "x", "1", "km"],
     ["GEOSEARCH", "g", "FROMLONLAT", "10", "45", "BYBOX", "1", "y", "km"],
     ["GEOSEARCH", "g", "FROMLONLAT", "10", "45", "BYBOX", "1", "1", "lightyear"],
     ["GEOSEARCH", "g", "FROMLONLAT", "10", "45", "BYBOX", "1", "1"],
     ["GEOSEARCH", "g", "FROMLONLAT", "10", "45", "BYRADIUS", "1"],
     ["GEOSEARCH", "g", "FROMLONLAT", "10", "45", "BYRADIUS", "1", "km", "STORE", "d"],
     ["GEOSEARCH", "g", "FROMLONLAT", "10", "45", "BYRADIUS", "1", "km", "STOREDIST"],
     ["GEOSEARCH", "g", "FROMLONLAT", "200", "45", "BYRADIUS", "1", "km"],
     ["GEOSEARCH", "g", "FROMMEMBER", "nope", "BYRADIUS", "1", "km"],
     ["GEOSEARCH", "nokey", "FROMMEMBER", "nope", "BYRADIUS", "1", "km"],
     ["GEOSEARCH", "nokey", "FROMMEMBER", "nope", "BYRADIUS", "x", "km"],
     ["GEOSEARCH", "nokey", "FROMMEMBER", "nope"],
     ["GEOSEARCH", "nokey", "FROMMEMBER", "nope", "ANY", "BYBOX", "1", "1", "m"],
     ["GEOSEARCH", "str", "FROMLONLAT", "10", "45", "BYRADIUS", "1", "km"],
     ["GEOSEARCH", "g", "FROMLONLAT", "10", "45", "BYRADIUS", "1", "km", "WITHDIST", "COUNT", "2", "ANY", "BOGUS"],
     ["GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "10", "45", "BYRADIUS", "1", "km", "WITHCOORD"],
     ["GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "10", "45", "BYRADIUS", "1", "km", "STORE", "e"],
     ["GEOSEARCHSTORE", "d", "g", "FROMLONLAT", "10", "45"], ["gEoSeArChStOrE", "d", "g", "BYRADIUS", "1", "km", "ASC"],
     ["GEOSEARCHSTORE", "d", "str", "FROMLONLAT", "10", "45", "BYRADIUS", "1", "km"],
     ["GEOSEARCHSTORE", "d", "nokey", "FROMLONLAT", "10", "45", "BYRADIUS", "1", "km", "WITHDIST"],
     ["EXISTS", "d", "e"]],
]

# Keyspace events (see run.py, MULTI_SCRIPTS): connection 0 listens to every
# channel, connection 1 writes. GEOADD fires ZADD's ("new", "zadd"); the
# stores "georadiusstore" / "geosearchstore", or "del" for an empty result;
# the reads on a missing key "keymiss".
CONNECTIONS = 2
EVENT_STEPS = [
    (1, ["GEOADD", "g", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"]),
    (1, ["GEOADD", "g", "NX", "13", "38", "Palermo"]), (1, ["GEOADD", "g", "XX", "CH", "13", "38", "Palermo"]),
    (1, ["GEOADD", "g", "XX", "13", "38", "Other"]), (1, ["GEOADD", "nokey", "XX", "13", "38", "Other"]),
    (1, ["GEOPOS", "nokey", "a"]), (1, ["GEOHASH", "g", "Palermo"]), (1, ["GEODIST", "nokey", "a", "b"]),
    (1, ["GEORADIUS", "g", "15", "37", "200", "km", "STORE", "s1"]),
    (1, ["GEORADIUS", "g", "15", "37", "200", "km", "STOREDIST", "s1"]),
    (1, ["GEORADIUSBYMEMBER", "g", "Palermo", "10", "km", "STORE", "s2"]),
    (1, ["GEOSEARCHSTORE", "s3", "g", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km"]),
    (1, ["GEOSEARCHSTORE", "s3", "g", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"]),
    (1, ["GEOSEARCHSTORE", "s2", "nokey", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"]),
    (1, ["GEORADIUS", "nokey", "0", "0", "1", "km", "STORE", "s1"]),
    (1, ["GEOSEARCH", "nokey", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"]),
]
# Two keys, maybe on two shards: their events' order between shards is not defined.
EVENT_STEPS = [s + ("sorted",) if s[1][0] in ("GEORADIUS", "GEORADIUSBYMEMBER", "GEOSEARCHSTORE") else s
               for s in EVENT_STEPS]
MULTI_SCRIPTS = [
    [(1, ["CONFIG", "SET", "notify-keyspace-events", flags]), (0, ["PSUBSCRIBE", "__key*__:*"])] + EVENT_STEPS
    + [(1, ["CONFIG", "SET", "notify-keyspace-events", ""])]
    for flags in ("KEAnm",)  # every class, with "new" and "keymiss" (notifications.py tests the flags)
]
# WATCH: a store touches the key it writes, never its source.
MULTI_SCRIPTS.append(
    [(1, ["GEOADD", "src", "1", "1", "a", "1.001", "1", "b"]), (0, ["WATCH", "src", "dst"]),
     (1, ["GEOSEARCHSTORE", "dst2", "src", "FROMMEMBER", "a", "BYRADIUS", "1", "km"]),
     (1, ["GEORADIUS", "src", "1", "1", "1", "km", "STORE", "dst3"]), (1, ["GEORADIUS", "src", "1", "1", "1", "km"]),
     (0, ["MULTI"]), (0, ["GEOPOS", "src", "a"]), (0, ["EXEC"]),
     (0, ["WATCH", "dst"]), (1, ["GEOSEARCHSTORE", "dst", "src", "FROMMEMBER", "a", "BYRADIUS", "1", "km"]),
     (0, ["MULTI"]), (0, ["GEOPOS", "dst", "a"]), (0, ["EXEC"]),
     (0, ["WATCH", "dst"]), (1, ["GEORADIUSBYMEMBER", "src", "a", "1", "km", "STOREDIST", "dst"]),
     (0, ["MULTI"]), (0, ["GEOPOS", "dst", "a"]), (0, ["EXEC"])])
