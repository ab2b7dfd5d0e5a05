// Everyday calls through the Node.js clients users run — node-redis 6 and
// ioredis 6, each in RESP2 and RESP3 — against one server (duet-kv or, to
// check the script itself, redis-server). Usage: node node_clients.mjs PORT
// Prints one line per step and "N passed, N failed"; exits 1 on a failure.
import assert from "node:assert/strict";
import { createClient } from "redis";
import Redis from "ioredis";

const port = Number(process.argv[2]);
const deadline = (ms, what) =>
  new Promise((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms).unref());

// A map reply may come as a Map, an object or a flat array, by client and protocol.
function plain(reply) {
  if (reply instanceof Map) return Object.fromEntries([...reply].map(([k, v]) => [String(k), String(v)]));
  if (Array.isArray(reply)) {
    const out = {};
    for (let i = 0; i + 1 < reply.length; i += 2) out[String(reply[i])] = String(reply[i + 1]);
    return out;
  }
  return Object.fromEntries(Object.entries(reply).map(([k, v]) => [k, String(v)]));
}
const sorted = (xs) => [...xs].map(String).sort();

// The same everyday calls through either client: `c` maps our names to its API.
function steps(c, tag) {
  const k = (name) => `${tag}:${name}`;
  return [
    ["strings", async () => {
      assert.equal(await c.set(k("s"), "v"), "OK");
      assert.equal(await c.get(k("s")), "v");
      assert.equal(await c.get(k("missing")), null);
      assert.equal(Number(await c.incr(k("n"))), 1);
      assert.equal(Number(await c.incrBy(k("n"), 41)), 42);
      assert.deepEqual(await c.mGet([k("s"), k("missing"), k("n")]), ["v", null, "42"]);
      assert.equal(Number(await c.expire(k("s"), 100)), 1);
      assert.ok(Number(await c.ttl(k("s"))) > 90);
      assert.equal(await c.type(k("s")), "string");
      assert.equal(Number(await c.del([k("s"), k("n")])), 2);
    }],
    ["hashes", async () => {
      assert.equal(Number(await c.hSet(k("h"), { name: "ada", year: "1815" })), 2);
      assert.equal(await c.hGet(k("h"), "name"), "ada");
      assert.deepEqual(plain(await c.hGetAll(k("h"))), { name: "ada", year: "1815" });
      assert.equal(Number(await c.hIncrBy(k("h"), "year", 1)), 1816);
      assert.equal(Number(await c.hLen(k("h"))), 2);
      assert.deepEqual(sorted(await c.hKeys(k("h"))), ["name", "year"]);
      assert.equal(Number(await c.hDel(k("h"), "name")), 1);
      assert.equal(await c.type(k("h")), "hash");
      assert.deepEqual(plain(await c.hGetAll(k("nohash"))), {});
    }],
    ["lists", async () => {
      assert.equal(Number(await c.rPush(k("l"), ["a", "b", "c"])), 3);
      assert.equal(Number(await c.lPush(k("l"), "z")), 4);
      assert.deepEqual(await c.lRange(k("l"), 0, -1), ["z", "a", "b", "c"]);
      assert.equal(await c.lPop(k("l")), "z");
      assert.equal(await c.rPop(k("l")), "c");
      assert.equal(Number(await c.lLen(k("l"))), 2);
      assert.equal(await c.lIndex(k("l"), -1), "b");
      assert.equal(await c.lMove(k("l"), k("l2"), "LEFT", "RIGHT"), "a");
      assert.deepEqual(await c.lRange(k("l2"), 0, -1), ["a"]);
      assert.equal(await c.lPop(k("nolist")), null);
    }],
    ["sets", async () => {
      assert.equal(Number(await c.sAdd(k("s1"), ["1", "2", "3"])), 3);
      assert.equal(Number(await c.sAdd(k("s2"), ["2", "3", "4"])), 3);
      assert.deepEqual(sorted(await c.sMembers(k("s1"))), ["1", "2", "3"]);
      assert.ok(await c.sIsMember(k("s1"), "2"));
      assert.ok(!(await c.sIsMember(k("s1"), "9")));
      assert.deepEqual(sorted(await c.sInter([k("s1"), k("s2")])), ["2", "3"]);
      assert.equal(Number(await c.sCard(k("s2"))), 3);
      assert.equal(Number(await c.sRem(k("s2"), "4")), 1);
      assert.equal(await c.type(k("s1")), "set");
    }],
    ["sorted sets", async () => {
      assert.equal(Number(await c.zAdd(k("z"), [{ score: 1, value: "a" }, { score: 2.5, value: "b" },
                                                { score: -1, value: "c" }])), 3);
      assert.deepEqual(await c.zRangeWithScores(k("z"), 0, -1),
                       [{ value: "c", score: -1 }, { value: "a", score: 1 }, { value: "b", score: 2.5 }]);
      assert.equal(Number(await c.zScore(k("z"), "b")), 2.5);
      assert.equal(Number(await c.zIncrBy(k("z"), 0.5, "a")), 1.5);
      assert.equal(Number(await c.zRank(k("z"), "b")), 2);
      assert.equal(Number(await c.zCard(k("z"))), 3);
      assert.deepEqual(await c.zPopMin(k("z")), { value: "c", score: -1 });
      assert.equal(await c.type(k("z")), "zset");
    }],
    ["hyperloglog", async () => {
      assert.equal(Number(await c.pfAdd(k("hll"), ["x", "y", "z"])), 1);
      assert.equal(Number(await c.pfAdd(k("hll"), ["x"])), 0);
      assert.equal(Number(await c.pfCount(k("hll"))), 3);
    }],
    ["wrong type", async () => {
      await c.set(k("str"), "x");
      await assert.rejects(c.hGet(k("str"), "f"), /WRONGTYPE/);
      await assert.rejects(c.lPop(k("str")), /WRONGTYPE/);
    }],
    ["transactions", async () => {
      await c.set(k("t1"), "10");
      assert.deepEqual(await c.txn(k("t1"), k("t2")), ["5", "5", "5"]);
      assert.ok(await c.watchFails(k("w")), "EXEC after a watched key changed must fail");
      assert.deepEqual(await c.txnErrors(k("str")), ["error", "x"]);  // WRONGTYPE at EXEC: the rest runs
      assert.ok(await c.txnAborts(k("ab")), "a queue-time error must abort the whole EXEC");
      assert.deepEqual(await c.pipe(k("p")), ["OK", "2", "2"]);  // no MULTI: plain pipelining
    }],
    ["blocking pops", async () => {
      assert.deepEqual(await c.blockingPop(k("q")), [k("q"), "x"]);
      assert.ok(await c.popTimesOut(k("empty")));
    }],
    ["pub/sub", async () => {
      const got = await c.subscribeOnce(k("chan"), async () => {
        assert.equal(Number(await c.publish(k("chan"), "hello")), 1);
      });
      assert.deepEqual(got, [k("chan"), "hello"]);
    }],
  ];
}

// node-redis 6: its own camelCase API.
async function nodeRedis(resp) {
  const client = createClient({ url: `redis://127.0.0.1:${port}`, RESP: resp });
  client.on("error", () => {});
  await client.connect();
  const sub = client.duplicate();
  sub.on("error", () => {});
  await sub.connect();
  const other = client.duplicate();  // writes while `client` watches or blocks
  other.on("error", () => {});
  await other.connect();
  client.txn = async (a, b) => (await client.multi().incrBy(a, -5).incrBy(b, 5).get(b).exec()).map(String);
  client.watchFails = async (key) => {
    await client.watch(key);
    await other.set(key, "changed");
    try {
      const got = await client.multi().get(key).exec();
      return got === null;
    } catch (e) {
      return /watch/i.test(`${e.name} ${e.message}`);
    }
  };
  client.blockingPop = async (key) => {
    const pending = client.blPop(key, 2);
    await new Promise((r) => setTimeout(r, 50));
    await other.rPush(key, "x");
    const got = await pending;
    return Array.isArray(got) ? got.map(String) : [String(got.key), String(got.element)];
  };
  client.popTimesOut = async (key) => (await client.blPop(key, 0.1)) === null;
  client.txnErrors = async (key) => {  // node-redis rejects with a MultiErrorReply holding every reply
    await other.set(key, "x");
    try {
      await client.multi().lPush(key, "y").get(key).exec();
      return "no error";
    } catch (e) {
      return e.replies ? e.replies.map((r) => (r instanceof Error ? "error" : String(r))) : e.message;
    }
  };
  client.txnAborts = async (key) => {
    // node-redis reports the queued command's own error, not EXEC's EXECABORT
    await assert.rejects(client.multi().set(key, "1").addCommand(["NOSUCHCOMMAND"]).exec(), /unknown command/);
    return (await client.exists(key)) === 0;
  };
  client.pipe = async (key) =>
    (await client.multi().set(key, "1").incr(key).get(key).execAsPipeline()).map(String);
  client.subscribeOnce = async (channel, publish) => {
    let resolve;
    const message = new Promise((r) => (resolve = r));
    await sub.subscribe(channel, (msg, ch) => resolve([ch, msg]));
    await publish();
    const got = await Promise.race([message, deadline(5000, "message")]);
    await sub.unsubscribe(channel);
    return got;
  };
  return { c: client, close: async () => { await sub.quit(); await other.quit(); await client.quit(); } };
}

// ioredis 6: lower-case commands; adapt it to the same names.
async function ioredis(protocol) {
  const r = new Redis({ port, host: "127.0.0.1", protocol, lazyConnect: true, maxRetriesPerRequest: 1 });
  const sub = new Redis({ port, host: "127.0.0.1", protocol, lazyConnect: true, maxRetriesPerRequest: 1 });
  const other = new Redis({ port, host: "127.0.0.1", protocol, lazyConnect: true, maxRetriesPerRequest: 1 });
  await r.connect();
  await sub.connect();
  await other.connect();
  const c = {
    set: (key, v) => r.set(key, v), get: (key) => r.get(key), incr: (key) => r.incr(key),
    incrBy: (key, n) => r.incrby(key, n), mGet: (keys) => r.mget(...keys), expire: (key, s) => r.expire(key, s),
    ttl: (key) => r.ttl(key), type: (key) => r.type(key), del: (keys) => r.del(...keys),
    hSet: (key, obj) => r.hset(key, obj), hGet: (key, f) => r.hget(key, f), hGetAll: (key) => r.hgetall(key),
    hIncrBy: (key, f, n) => r.hincrby(key, f, n), hLen: (key) => r.hlen(key), hKeys: (key) => r.hkeys(key),
    hDel: (key, f) => r.hdel(key, f), rPush: (key, xs) => r.rpush(key, ...xs), lPush: (key, x) => r.lpush(key, x),
    lRange: (key, a, b) => r.lrange(key, a, b), lPop: (key) => r.lpop(key), rPop: (key) => r.rpop(key),
    lLen: (key) => r.llen(key), lIndex: (key, i) => r.lindex(key, i),
    lMove: (a, b, from, to) => r.lmove(a, b, from, to), sAdd: (key, xs) => r.sadd(key, ...xs),
    sMembers: (key) => r.smembers(key), sIsMember: async (key, m) => (await r.sismember(key, m)) === 1,
    sInter: (keys) => r.sinter(...keys), sCard: (key) => r.scard(key), sRem: (key, m) => r.srem(key, m),
    publish: (ch, m) => r.publish(ch, m),
    zAdd: (key, members) => r.zadd(key, ...members.flatMap((m) => [m.score, m.value])),
    zRangeWithScores: async (key, a, b) => {  // RESP2: a flat array; RESP3: [member, score] pairs
      const got = await r.zrange(key, a, b, "WITHSCORES");
      const pairs = Array.isArray(got[0]) ? got : got.flatMap((x, i) => (i % 2 ? [] : [[x, got[i + 1]]]));
      return pairs.map(([value, score]) => ({ value: String(value), score: Number(score) }));
    },
    zScore: (key, m) => r.zscore(key, m), zIncrBy: (key, n, m) => r.zincrby(key, n, m),
    zRank: (key, m) => r.zrank(key, m), zCard: (key) => r.zcard(key),
    zPopMin: async (key) => {
      const [value, score] = await r.zpopmin(key);
      return { value: String(value), score: Number(score) };
    },
    pfAdd: (key, xs) => r.pfadd(key, ...xs), pfCount: (key) => r.pfcount(key),
    txn: async (a, b) => (await r.multi().incrby(a, -5).incrby(b, 5).get(b).exec()).map(([, v]) => String(v)),
    watchFails: async (key) => {
      await r.watch(key);
      await other.set(key, "changed");
      return (await r.multi().get(key).exec()) === null;
    },
    blockingPop: async (key) => {
      const pending = r.blpop(key, 2);
      await new Promise((res) => setTimeout(res, 50));
      await other.rpush(key, "x");
      return (await pending).map(String);
    },
    popTimesOut: async (key) => (await r.blpop(key, 0.1)) === null,
    txnErrors: async (key) => {  // ioredis: [[err, reply], ...], the WRONGTYPE as an error in place
      await other.set(key, "x");
      return (await r.multi().lpush(key, "y").get(key).exec()).map(([e, v]) => (e ? "error" : String(v)));
    },
    txnAborts: async (key) => {
      await assert.rejects(r.multi().set(key, "1").call("NOSUCHCOMMAND").exec(), /EXECABORT/);
      return (await r.exists(key)) === 0;
    },
    pipe: async (key) => (await r.pipeline().set(key, "1").incr(key).get(key).exec()).map(([, v]) => String(v)),
    subscribeOnce: async (channel, publish) => {
      const message = new Promise((resolve) => sub.once("message", (ch, msg) => resolve([ch, msg])));
      await sub.subscribe(channel);
      await publish();
      const got = await Promise.race([message, deadline(5000, "message")]);
      await sub.unsubscribe(channel);
      return got;
    },
  };
  return { c, close: async () => { sub.disconnect(); other.disconnect(); await r.quit(); } };
}

let passed = 0;
let failed = 0;
for (const [name, make, protocol] of [["node-redis", nodeRedis, 2], ["node-redis", nodeRedis, 3],
                                      ["ioredis", ioredis, 2], ["ioredis", ioredis, 3]]) {
  const tag = `${name}:resp${protocol}`;
  let session;
  try {
    session = await Promise.race([make(protocol), deadline(10000, "connect")]);
  } catch (e) {
    console.log(`FAIL ${tag} connect: ${e.message}`);
    failed++;
    continue;
  }
  for (const [step, run] of steps(session.c, tag)) {
    try {
      await Promise.race([run(), deadline(10000, step)]);
      console.log(`ok   ${tag} ${step}`);
      passed++;
    } catch (e) {
      console.log(`FAIL ${tag} ${step}: ${e.message.split("\n").slice(0, 6).join(" | ")}`);
      failed++;
    }
  }
  await session.close().catch(() => {});
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
