#include "duet/http/request_head.hpp"

#include "duet/http/detail/http_chars.hpp"

namespace duet::http {

std::string_view RequestHead::find(std::string_view name) const noexcept {
  for (const HeaderField& f : headers)
    if (detail::iequals(f.name, name)) return f.value;
  return {};
}

bool RequestHead::has(std::string_view name) const noexcept {
  for (const HeaderField& f : headers)
    if (detail::iequals(f.name, name)) return true;
  return false;
}

}  // namespace duet::http
