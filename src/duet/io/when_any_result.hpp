// duet::WhenAnyResult<T> / WhenAnyValue<T> — what when_any gives back in either
// voice (duet::when_any over tasks, duet::fiber::when_any over fibers), so the
// two agree as IoResult's users do.
//
// Contract
// - WhenAnyValue<T>: how one child's result travels: void -> std::monostate,
//   a reference -> std::reference_wrapper, otherwise T itself.
// - WhenAnyResult<T>: the range forms' result: the winner's position in the
//   range and its value. The variadic forms return std::variant instead, whose
//   index() is the winner's position.
//
//   auto [index, value] = co_await duet::when_any(stop, std::move(tasks));
#pragma once

#include <cstddef>
#include <functional>
#include <type_traits>
#include <variant>

namespace duet {

template <typename T>
using WhenAnyValue =
    std::conditional_t<std::is_void_v<T>, std::monostate,
                       std::conditional_t<std::is_reference_v<T>,
                                          std::reference_wrapper<std::remove_reference_t<T>>, T>>;

template <typename T>
struct WhenAnyResult {
  std::size_t index;
  WhenAnyValue<T> value;
};

}  // namespace duet
