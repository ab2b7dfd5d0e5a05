#include "duet/http/response.hpp"

#include "duet/http/detail/http_chars.hpp"

namespace duet::http {

std::string_view Response::find(std::string_view name) const noexcept {
  for (const OwnedField& f : headers)
    if (detail::iequals(f.name, name)) return f.value;
  return {};
}

}  // namespace duet::http
