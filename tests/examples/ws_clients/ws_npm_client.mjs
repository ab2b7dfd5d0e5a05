// The WebSocket client Node.js users run — npm's `ws` (package-lock.json pins
// it) — against one ws_echo server (examples/ws_echo_*.cpp), for
// tests/examples/ws_npm_test.cpp: an implementation of RFC 6455 and RFC 7692
// that is neither duet's nor Python's.
//
//   node ws_npm_client.mjs PORT echo          text and binary (empty, small,
//       100 KiB), fragmented messages, a ping, with permessage-deflate offered
//       (and the echo seen compressed on the wire) and not, then close 1000
//   node ws_npm_client.mjs PORT broken        the server's close for a text
//       message that is not UTF-8 (1007) and for one past 1 MiB (1009)
//   node ws_npm_client.mjs PORT server-close  one echo, prints "ready", then
//       expects the server's close (1001) once the test signals it
//
// Prints "ok" and exits 0 when every check holds; otherwise prints
// "FAILED: <why>" and exits 1. Every step has a deadline (STEP_MS).
import WebSocket from "ws";

const STEP_MS = 10_000;
const MAX_MESSAGE = 1024 * 1024;  // the servers' WsSessionOptions::max_message_size

function fail(what) {
  console.log(`FAILED: ${what}`);
  process.exit(1);
}

function check(cond, what) {
  if (!cond) fail(what);
}

// Resolves with `event`'s arguments, or fails after STEP_MS (or at an error).
function next(ws, event, what) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => fail(`${what}: no '${event}' within ${STEP_MS} ms`), STEP_MS);
    const onError = (err) => fail(`${what}: ${err.message}`);
    ws.once("error", onError);
    ws.once(event, (...args) => {
      clearTimeout(timer);
      ws.off("error", onError);
      resolve(args);
    });
  });
}

// Opens a connection; `socket` is the TCP socket under it (byte counts).
async function connect(port, perMessageDeflate) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/echo`, { perMessageDeflate, handshakeTimeout: STEP_MS });
  let socket = null;
  ws.once("upgrade", (res) => { socket = res.socket; });
  await next(ws, "open", "the opening handshake");
  check(socket !== null, "the upgrade response's socket");
  return { ws, socket };
}

// Sends `parts` (one message, or the fragments of one) and gives back the echo as [data, isBinary].
async function echoed(ws, parts, binary) {
  const reply = next(ws, "message", `the echo of a ${binary ? "binary" : "text"} message`);
  parts.forEach((p, i) => ws.send(p, { binary, fin: i === parts.length - 1 }));
  return reply;
}

async function expect_echo(ws, parts, binary, what) {
  const [data, isBinary] = await echoed(ws, parts, binary);
  const sent = Buffer.concat(parts.map((p) => Buffer.from(p)));
  check(isBinary === binary, `${what}: echoed as ${isBinary ? "binary" : "text"}`);
  check(Buffer.compare(data, sent) === 0, `${what}: ${data.length} bytes back for ${sent.length}, or different ones`);
}

// What a close ended with: [code, reason] from the peer's close frame.
async function closed(ws, what) {
  const [code, reason] = await next(ws, "close", what);
  return [code, reason.toString()];
}

async function echo_case(port, deflate) {
  const tag = deflate ? "with permessage-deflate" : "without permessage-deflate";
  const { ws, socket } = await connect(port, deflate);
  check(ws.extensions === (deflate ? "permessage-deflate" : ""), `${tag}: negotiated "${ws.extensions}"`);
  await expect_echo(ws, ["hello"], false, `${tag}: text`);
  await expect_echo(ws, [""], false, `${tag}: an empty text message`);
  await expect_echo(ws, [Buffer.from([...Array(256).keys()])], true, `${tag}: binary`);
  await expect_echo(ws, [Buffer.alloc(0)], true, `${tag}: an empty binary message`);
  const big = "compressible text ".repeat(6000).slice(0, 100 * 1024);  // 100 KiB
  const before = socket.bytesRead;
  await expect_echo(ws, [big], false, `${tag}: a 100 KiB text message`);
  const read = socket.bytesRead - before;  // the echo's frame(s) on the wire
  if (deflate) check(read < 10 * 1024, `${tag}: the 100 KiB echo took ${read} bytes: not compressed`);
  else check(read >= 100 * 1024, `${tag}: the 100 KiB echo took ${read} bytes`);
  const bytes = Buffer.from(Array.from({ length: 100 * 1024 }, (_, i) => (i * 7919 + (i >> 8) * 31) & 0xff));
  await expect_echo(ws, [bytes], true, `${tag}: a 100 KiB binary message`);
  await expect_echo(ws, ["frag", "ment", "ed"], false, `${tag}: a text message in three fragments`);
  await expect_echo(ws, [Buffer.from([0, 1]), Buffer.from([2])], true, `${tag}: a binary message in two fragments`);
  const pong = next(ws, "pong", `${tag}: the pong`);
  ws.ping(Buffer.from("are you there"));
  const [payload] = await pong;
  check(payload.toString() === "are you there", `${tag}: the pong carried "${payload}"`);
  const end = closed(ws, `${tag}: the closing handshake`);
  ws.close(1000, "bye");
  const [code, reason] = await end;
  // The server echoes the code, not the reason (duet/http/websocket_session.hpp; RFC 6455 §5.5.1 asks no more).
  check(code === 1000 && reason === "", `${tag}: the server's close echoed ${code} "${reason}", not 1000 ""`);
}

// A rule broken by the client: the server closes with `expected` (its close frame reaches us whole).
async function broken_case(port, send, expected, what) {
  const { ws } = await connect(port, false);
  const end = closed(ws, what);
  send(ws);
  const [code] = await end;
  check(code === expected, `${what}: the server closed with ${code}, not ${expected}`);
}

async function server_close_case(port) {
  const { ws } = await connect(port, true);
  await expect_echo(ws, ["one"], false, "an echo before the server's close");
  const end = closed(ws, "the server's close");
  ws.on("message", (data) => fail(`a message instead of the close: ${data}`));
  console.log("ready");
  const [code] = await end;
  check(code === 1001, `the server closed with ${code}, not 1001 (going away)`);
}

async function main() {
  const [port, which] = [Number(process.argv[2]), process.argv[3]];
  if (which === "echo") {
    await echo_case(port, true);
    await echo_case(port, false);
  } else if (which === "broken") {
    await broken_case(port, (ws) => ws.send(Buffer.from([0x68, 0x69, 0xc3, 0x28]), { binary: false }), 1007,
                      "a text message that is not UTF-8");
    await broken_case(port, (ws) => ws.send(Buffer.alloc(MAX_MESSAGE + 1, 0x61), { binary: true }), 1009,
                      "a message of 1 MiB + 1 byte");
  } else if (which === "server-close") {
    await server_close_case(port);
  } else {
    fail(`unknown case ${which}`);
  }
  console.log("ok");
}

main().catch((err) => fail(err.stack));
