// ws_chat.hpp — what both WebSocket chat examples (ws_chat_stackless,
// ws_chat_stackful) share besides the room: what a member does with what its
// receive returned, the close it then sends, and the page served at GET / (a
// browser's client for the room at /chat: type a line, the others' appear).
// The voices' member loops only wait.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include <duet/http/websocket_options.hpp>
#include <duet/io/io_result.hpp>

#include "chat_room.hpp"

namespace chat {

constexpr std::uint16_t going_away = 1001;   // the server stops, or the member was dropped
constexpr std::uint16_t text_only = 1003;    // a binary message: this chat is of text lines
constexpr std::uint16_t no_close = 0;        // the connection is over already: nothing to send

// After a member's receive: nullopt to go on (a line broadcast, or woken by a
// line to deliver or by the stop its loop checks), else how the member ends.
// (By value: a WsMessage is a view, and IoResult has no const accessors.)
template <typename Member>
std::optional<std::uint16_t> after_receive(Room<Member>& room, Member& me, duet::IoResult<duet::WsMessage> m) {
  if (m && m->is_text()) {
    room.broadcast(me, std::make_shared<const std::string>(m->data()));
    return std::nullopt;
  }
  if (m) return text_only;
  if (m.error() == std::errc::operation_canceled) return std::nullopt;
  return no_close;  // the peer closed (echoed), or broke the protocol (1009 or 1002 sent)
}

inline std::string_view close_reason(std::uint16_t code) { return code == text_only ? "text only" : "going away"; }

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
