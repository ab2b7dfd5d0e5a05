#!/usr/bin/python3
"""Everyday calls through Debian's python3-redis (redis-py 4.3, RESP2: it has
no RESP3), against one server. Usage: py_client.py PORT
Prints one line per step and "N passed, N failed"; exits 1 on a failure.
Run it with Debian's /usr/bin/python3, where python3-redis is installed."""
import sys
import threading
import time

import redis

PORT = int(sys.argv[1])
r = redis.Redis(host="127.0.0.1", port=PORT, decode_responses=True, socket_timeout=10)


def strings():
    assert r.set("py:s", "v") is True
    assert r.get("py:s") == "v"
    assert r.get("py:missing") is None
    assert r.incrby("py:n", 42) == 42
    assert r.mget(["py:s", "py:missing", "py:n"]) == ["v", None, "42"]
    assert r.expire("py:s", 100) is True
    assert 90 < r.ttl("py:s") <= 100
    assert r.delete("py:s", "py:n") == 2


def hashes():
    assert r.hset("py:h", mapping={"name": "ada", "year": "1815"}) == 2
    assert r.hgetall("py:h") == {"name": "ada", "year": "1815"}
    assert r.hincrby("py:h", "year", 1) == 1816
    assert r.hincrbyfloat("py:h", "score", 1.5) == 1.5
    assert r.hmget("py:h", ["name", "nope"]) == ["ada", None]
    assert r.hexists("py:h", "name") is True
    assert sorted(r.hkeys("py:h")) == ["name", "score", "year"]
    assert r.hdel("py:h", "name", "nope") == 1
    assert r.hlen("py:h") == 2


def lists():
    assert r.rpush("py:l", "a", "b", "c") == 3
    assert r.lrange("py:l", 0, -1) == ["a", "b", "c"]
    assert r.lpop("py:l", 2) == ["a", "b"]
    assert r.lpop("py:nolist", 2) is None
    assert r.linsert("py:l", "BEFORE", "c", "x") == 2
    assert r.lpos("py:l", "c") == 1
    assert r.rpoplpush("py:l", "py:l2") == "c"
    assert r.llen("py:l2") == 1


def sets():
    assert r.sadd("py:s1", 1, 2, 3) == 3
    assert r.sadd("py:s2", 2, 3, "x") == 3
    assert r.smembers("py:s1") == {"1", "2", "3"}
    assert r.sinter("py:s1", "py:s2") == {"2", "3"}
    assert r.sunion("py:s1", "py:s2") == {"1", "2", "3", "x"}
    assert r.sdiff("py:s1", "py:s2") == {"1"}
    assert r.smismember("py:s1", [1, 9]) == [1, 0]
    assert r.sinterstore("py:s3", ["py:s1", "py:s2"]) == 2
    assert r.smove("py:s3", "py:s4", 2) is True
    assert r.scard("py:s4") == 1


def sorted_sets():
    assert r.zadd("py:z", {"a": 1, "b": 2.5, "c": -1}) == 3
    assert r.zrange("py:z", 0, -1, withscores=True) == [("c", -1.0), ("a", 1.0), ("b", 2.5)]
    assert r.zscore("py:z", "b") == 2.5
    assert r.zincrby("py:z", 0.5, "a") == 1.5
    assert r.zrank("py:z", "b") == 2 and r.zrevrank("py:z", "b") == 0
    assert r.zrangebyscore("py:z", "(0", "+inf") == ["a", "b"]
    assert r.zcount("py:z", "-inf", 2) == 2
    assert r.zadd("py:z", {"a": 5}, xx=True, ch=True) == 1
    assert r.zpopmin("py:z") == [("c", -1.0)]
    assert r.zunionstore("py:z2", {"py:z": 2}) == 2
    assert r.zrange("py:z2", 0, -1, withscores=True) == [("b", 5.0), ("a", 10.0)]
    assert r.type("py:z") == "zset"
    other = redis.Redis(host="127.0.0.1", port=r.connection_pool.connection_kwargs["port"], decode_responses=True)
    adder = threading.Timer(0.05, lambda: other.zadd("py:zq", {"x": 7}))
    adder.start()
    assert r.bzpopmin(["py:zq"], timeout=2) == ("py:zq", "x", 7.0)  # served by the timer's ZADD
    adder.join()
    other.close()


def hyperloglogs():
    assert r.pfadd("py:hll", *[f"e{i}" for i in range(1000)]) == 1
    assert r.pfadd("py:hll", "e1") == 0
    assert r.pfcount("py:hll") == 1008  # Redis's estimate for e0..e999
    assert r.pfadd("py:hll2", "x", "y") == 1
    assert r.pfmerge("py:hll3", "py:hll", "py:hll2") is True
    assert r.pfcount("py:hll3") == r.pfcount("py:hll", "py:hll2")


def scan_and_types():
    r.set("py:str", "x")
    assert r.type("py:h") == "hash"
    found = set(r.scan_iter(match="py:*", _type="set"))
    assert found == {"py:s1", "py:s2", "py:s3", "py:s4"}, found
    try:
        r.hget("py:str", "f")
        raise AssertionError("no WRONGTYPE")
    except redis.ResponseError as e:
        assert str(e).startswith("WRONGTYPE"), e


def pubsub():
    p = r.pubsub()
    p.subscribe("py:chan")
    assert p.get_message(timeout=5)["type"] == "subscribe"
    assert r.publish("py:chan", "hello") == 1
    deadline = time.time() + 5
    message = None
    while message is None and time.time() < deadline:
        message = p.get_message(timeout=1)
    assert message is not None and message["data"] == "hello", message
    p.close()


def transactions():
    r.set("py:t1", 10)
    pipe = r.pipeline(transaction=True)  # MULTI ... EXEC
    pipe.incrby("py:t1", -5).incrby("py:t2", 5).get("py:t2")
    assert pipe.execute() == [5, 5, "5"]

    def move(p):  # WATCH, read, MULTI, write, EXEC: redis-py's optimistic helper
        value = int(p.get("py:t1"))
        p.multi()
        p.set("py:t1", value - 1)
        p.incr("py:t2")
    r.transaction(move, "py:t1")
    assert r.mget("py:t1", "py:t2") == ["4", "6"]
    other = redis.Redis(host="127.0.0.1", port=r.connection_pool.connection_kwargs["port"], decode_responses=True)
    with r.pipeline() as p:
        p.watch("py:t1")
        other.set("py:t1", 100)
        p.multi()
        p.set("py:t1", 0)
        try:
            p.execute()
            raise AssertionError("no WatchError")
        except redis.WatchError:
            pass
    assert r.get("py:t1") == "100"
    other.close()
    plain = r.pipeline(transaction=False)  # no MULTI: plain pipelining
    assert plain.set("py:p", 1).incr("py:p").get("py:p").execute() == [True, 2, "2"]
    pipe = r.pipeline(transaction=True)  # WRONGTYPE at EXEC time: in place, the rest runs
    got = pipe.lpush("py:p", "x").get("py:p").execute(raise_on_error=False)
    assert isinstance(got[0], redis.ResponseError) and "WRONGTYPE" in str(got[0]) and got[1] == "2", got
    pipe = r.pipeline(transaction=True)  # a queue-time error aborts the whole EXEC
    pipe.set("py:ab", 1).execute_command("NOSUCHCOMMAND")
    try:
        pipe.execute()
        raise AssertionError("no error")
    except redis.ResponseError as e:
        assert "unknown command" in str(e) or "EXECABORT" in str(e), e
    assert r.exists("py:ab") == 0


def blocking():
    other = redis.Redis(host="127.0.0.1", port=r.connection_pool.connection_kwargs["port"], decode_responses=True)
    pusher = threading.Timer(0.05, lambda: other.rpush("py:q", "x"))
    pusher.start()
    got = r.blpop(["py:q"], timeout=2)  # blocks until the timer's push serves it
    assert got is not None and tuple(got) == ("py:q", "x"), got
    pusher.join()
    assert r.blpop(["py:empty"], timeout=0.1) is None
    other.close()


def main():
    r.flushall()
    passed = failed = 0
    for step in (strings, hashes, lists, sets, sorted_sets, hyperloglogs, scan_and_types, pubsub, transactions,
                 blocking):
        try:
            step()
            print("ok   redis-py:resp2 %s" % step.__name__)
            passed += 1
        except Exception as e:  # noqa: BLE001 — a failed step is reported, the rest still run
            print("FAIL redis-py:resp2 %s: %r" % (step.__name__, e))
            failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
