#!/usr/bin/env python3
"""Redis side of bench/kv/zset_tree_bench (issue 28): one sorted set of the
benchmark's members (10-20 bytes, random scores) through pipelined ZADD, then
MEMORY USAGE and the used_memory delta. Usage: zset_redis_fill.py PORT [N]"""
import random, redis, sys
port = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
r = redis.Redis(port=port)
r.flushall()
base = r.info("memory")["used_memory"]
rng = random.Random(28)
alphabet = "abcdefghijklmnopqrstuvwxyz0123456789:"
pipe = r.pipeline(transaction=False)
for i in range(n):
    name = f"{i}:"
    ln = 10 + rng.randrange(11)
    name += "".join(rng.choice(alphabet) for _ in range(max(0, ln - len(name))))
    pipe.zadd("z", {name: rng.uniform(-1e9, 1e9)})
    if i % 10000 == 9999:
        pipe.execute()
pipe.execute()
used = r.info("memory")["used_memory"]
usage = r.memory_usage("z", samples=0)
print(f"zcard={r.zcard('z')} encoding={r.object('encoding', 'z')}")
print(f"MEMORY USAGE z: {usage} B = {usage / n:.1f} B/member")
print(f"used_memory delta: {used - base} B = {(used - base) / n:.1f} B/member")
print(r.info("server")["redis_version"], r.info("memory")["mem_allocator"])
