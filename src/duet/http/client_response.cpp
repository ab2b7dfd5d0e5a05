#include "duet/http/client_response.hpp"

#include "duet/http/detail/http_chars.hpp"

namespace duet::http {

std::string_view ClientResponse::find(std::string_view name) const noexcept {
  for (const OwnedField& f : headers)
    if (detail::iequals(f.first, name)) return f.second;
  return {};
}

}  // namespace duet::http
