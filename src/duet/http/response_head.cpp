#include "duet/http/response_head.hpp"

#include "duet/http/detail/http_chars.hpp"

namespace duet::http {

std::string_view ResponseHead::find(std::string_view name) const noexcept {
  for (const HeaderField& f : headers)
    if (detail::iequals(f.name, name)) return f.value;
  return {};
}

bool ResponseHead::has(std::string_view name) const noexcept {
  for (const HeaderField& f : headers)
    if (detail::iequals(f.name, name)) return true;
  return false;
}

}  // namespace duet::http
