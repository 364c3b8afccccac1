// seeds.mjs — bitmapd driven by node-redis as application code drives it, over RESP2
// and RESP3 (HELLO 3): the seeds' commands through the client's own methods, a
// pipeline, a transaction (refused whole), SCAN iteration, INFO, the string commands,
// expiry (SET EX, EXPIRE GT, GETEX, PERSIST) and the errors a client must be able to parse. Prints one check a line as
// NAME<TAB>EXPECTED<TAB>ACTUAL for tests/integration/test_client_node.sh.
// Usage: node seeds.mjs PORT KEY_PREFIX
import { createClient } from 'redis';

const [port, prefix] = [Number(process.argv[2]), process.argv[3]];

function out(name, expected, actual) {
  const show = (v) => (typeof v === 'string' ? v : JSON.stringify(v));
  console.log(`${name}\t${show(expected)}\t${show(actual)}`);
}

async function errorOf(fn) {
  try {
    await fn();
  } catch (e) {
    return `error: ${e.message}`; // the class differs by version (SimpleError, ErrorReply)
  }
  return 'no error';
}

async function run(resp) {
  const p = `${prefix}r${resp}:`;
  const tag = `RESP${resp}`;
  const client = createClient({ socket: { host: '127.0.0.1', port }, RESP: resp });
  client.on('error', (e) => out(`${tag}: no client error event`, 'none', e.message));
  await client.connect();

  // seed 002: check-ins, bit day-1 of the month's key
  const sign = `${p}user:sign:98:202204`;
  for (const day of [1, 2, 3, 5, 6, 7, 8, 30]) await client.setBit(sign, day - 1, 1);
  out(`${tag}: check-ins: GETBIT`, 1, await client.getBit(sign, 5));
  out(`${tag}: check-ins: BITCOUNT`, 8, await client.bitCount(sign));
  const [month] = await client.bitField(sign, [{ operation: 'GET', encoding: 'u30', offset: 0 }]);
  out(`${tag}: check-ins: BITFIELD GET u30 0`, parseInt('111011110000000000000000000001', 2), month);
  out(`${tag}: check-ins: BITPOS of the first day missed`, 3, await client.bitPos(sign, 0));

  // seed 000: the message box, through a pipeline (answers in order)
  const box = `${p}message:push:42`;
  const pipe = client.multi();
  for (const id of [2, 3, 4, 6, 8, 10, 11]) pipe.setBit(box, id, 1);
  out(`${tag}: message box: a pipeline of SETBIT answers each old bit`, [0, 0, 0, 0, 0, 0, 0], await pipe.execAsPipeline());
  out(`${tag}: message box: R.REVRANGEINTARRAY newest three`, [11, 10, 8],
    await client.sendCommand(['R.REVRANGEINTARRAY', box, '0', '2']));

  // daily active users: BITOP over days
  const days = [0, 1, 2].map((d) => `${p}dau:2026112${d}`);
  for (let u = 0; u < 60; u++) await client.setBit(days[u % 3], u, 1);
  await client.setBit(days[1], 0, 1);
  await client.bitOp('OR', `${p}dau:week`, days);
  out(`${tag}: DAU: BITOP OR then BITCOUNT`, 60, await client.bitCount(`${p}dau:week`));
  await client.bitOp('AND', `${p}dau:both`, [days[0], days[1]]);
  out(`${tag}: DAU: BITOP AND keeps user 0 alone`, 1, await client.bitCount(`${p}dau:both`));

  // a long pipeline: every reply in its place
  const long = client.multi();
  for (let i = 0; i < 500; i++) long.setBit(`${p}pipe`, i * 3, 1).getBit(`${p}pipe`, i * 3);
  const replies = await long.execAsPipeline();
  out(`${tag}: pipeline: 1,000 replies in order`, true, replies.every((r, i) => r === (i % 2 ? 1 : 0)));

  // a transaction: refused whole, nothing written
  const tx = await errorOf(() => client.multi().setBit(`${p}tx`, 1, 1).exec());
  out(`${tag}: transaction: exec rejects`, true, tx !== 'no error');
  out(`${tag}: transaction: nothing of it was written`, 0, await client.exists(`${p}tx`));

  // SCAN iteration with the client's iterator
  for (let i = 0; i < 120; i++) await client.setBit(`${p}scan:${i}`, 1, 1);
  const seen = new Set();
  for await (const batch of client.scanIterator({ MATCH: `${p}scan:*`, COUNT: 25 })) {
    for (const k of Array.isArray(batch) ? batch : [batch]) seen.add(k);
  }
  out(`${tag}: SCAN: scanIterator returns every key once`, 120, seen.size);

  // INFO as clients read it
  const info = await client.info('cluster');
  out(`${tag}: INFO cluster: cluster_enabled:0`, true, /cluster_enabled:0/.test(String(info)));

  // the string commands next to bitmaps
  await client.mSet([[`${p}a`, '1'], [`${p}b`, 'x']]);
  out(`${tag}: MGET`, ['1', 'x', null], await client.mGet([`${p}a`, `${p}b`, `${p}none`]));
  out(`${tag}: INCRBY`, 11, await client.incrBy(`${p}a`, 10));
  out(`${tag}: GETDEL`, '11', await client.getDel(`${p}a`));

  // expiry as application code uses it: a session with a time to live
  const s = `${p}session`;
  const within = (v, lo, hi) => (v >= lo && v <= hi ? `${lo}..${hi}` : v);
  out(`${tag}: SET with EX 100`, 'OK', await client.set(s, 'token', { expiration: { type: 'EX', value: 100 } }));
  out(`${tag}: TTL after it`, '99..100', within(await client.ttl(s), 99, 100));
  out(`${tag}: EXPIRE GT with a shorter time: unchanged`, 0, await client.expire(s, 10, 'GT'));
  out(`${tag}: EXPIRE GT with a longer time`, 1, await client.expire(s, 1000, 'GT'));
  out(`${tag}: EXPIREAT a Date`, 1, await client.expireAt(s, new Date(Date.UTC(2100, 0, 1))));
  out(`${tag}: EXPIRETIME`, 4102444800, await client.expireTime(s));
  out(`${tag}: PEXPIREAT`, 1, await client.pExpireAt(s, 4102444800123));
  out(`${tag}: PEXPIRETIME`, 4102444800123, await client.pExpireTime(s));
  out(`${tag}: GETEX EX 60 answers the value`, 'token', await client.getEx(s, { type: 'EX', value: 60 }));
  out(`${tag}: TTL after GETEX`, '59..60', within(await client.ttl(s), 59, 60));
  out(`${tag}: GETEX PERSIST`, 'token', await client.getEx(s, { type: 'PERSIST' }));
  out(`${tag}: TTL after GETEX PERSIST`, -1, await client.ttl(s));
  await client.pExpire(s, 50000);
  out(`${tag}: SET KEEPTTL`, 'OK', await client.set(s, 't2', { expiration: { type: 'KEEPTTL' } }));
  out(`${tag}: the deadline kept`, '49..50', within(await client.ttl(s), 49, 50));
  out(`${tag}: PERSIST`, 1, await client.persist(s));
  out(`${tag}: TTL of a missing key`, -2, await client.ttl(`${p}none`));
  await client.set(s, 'short', { expiration: { type: 'PX', value: 200 } });
  for (let i = 0; i < 60 && (await client.exists(s)); i++) await new Promise((done) => setTimeout(done, 50));
  out(`${tag}: a key set with PX 200 expires (within 3 s)`, 0, await client.exists(s));
  out(`${tag}: error: SET EX 0`, "error: ERR invalid expire time in 'set' command",
    await errorOf(() => client.set(s, 'v', { expiration: { type: 'EX', value: 0 } })));

  // errors a client parses
  out(`${tag}: error: a negative bit offset`, 'error: ERR bit offset is not an integer or out of range',
    await errorOf(() => client.sendCommand(['SETBIT', `${p}e`, '-1', '1'])));
  out(`${tag}: error: INCR of text`, 'error: ERR value is not an integer or out of range',
    await errorOf(() => client.incr(`${p}b`)));
  out(`${tag}: the connection still answers`, 'PONG', await client.ping());
  await client.quit();
}

try {
  await run(2);
  await run(3);
} catch (e) {
  out('node-redis: the script ran to its end', 'no exception', `${e.constructor.name}: ${e.message}`);
  process.exit(1);
}
