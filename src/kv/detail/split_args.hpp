// duet::kv::detail::split_args — Redis's sdssplitargs, for inline commands.
//
// Contract
// - Splits one inline line (without its line terminator) into arguments exactly
//   as Redis does: blanks separate arguments; "double quotes" accept \xHH and
//   \n \r \t \b \a escapes (any other escaped char stands for itself);
//   'single quotes' accept only \'; a closing quote must be followed by a blank
//   or the end; a quote inside an unquoted word opens a quoted section.
//   Redis splits a C string, so a NUL byte ends the line.
// - Unescaped bytes go to `storage` (cleared first); `args` receives views into
//   it, valid until `storage` is modified. Returns false for unbalanced quotes.
// - Pure function; any thread. No allocation once storage/args have capacity.
//
//   std::string storage; std::vector<std::string_view> args;
//   if (!split_args(R"(set "a b" c)", storage, args)) reply_protocol_error();
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace duet::kv::detail {

[[nodiscard]] bool split_args(std::string_view line, std::string& storage, std::vector<std::string_view>& args);

}  // namespace duet::kv::detail
