// ws_chat_page.hpp — the page both WebSocket chat examples serve at GET /: a
// browser's client for the room at /chat (type a line; the others' lines appear).
#pragma once

#include <string_view>

namespace chat {

inline constexpr std::string_view page = R"(<!doctype html>
<meta charset="utf-8"><title>duet chat</title>
<pre id="log"></pre><input id="line" size="60" autofocus>
<script>
const ws = new WebSocket(`ws://${location.host}/chat`);
const log = (t) => { document.getElementById('log').textContent += t + '\n'; };
ws.onmessage = (e) => log(e.data);
ws.onclose = (e) => log(`(closed: ${e.code} ${e.reason})`);
document.getElementById('line').onkeydown = (e) => {
  if (e.key === 'Enter' && e.target.value) { ws.send(e.target.value); log('> ' + e.target.value); e.target.value = ''; }
};
</script>
)";

}  // namespace chat
