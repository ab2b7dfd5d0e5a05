// Machinery for the stackless voice's templates that take "anything co_await
// accepts" (Task's await_transform, with_timeout): what an expression's
// awaiter is, whether it is one, and what awaiting it gives. Also the pieces
// that let a template refuse a wrong call with one static_assert message
// instead of a page of failed constraints.
//
//   static_assert(Awaitable<decltype(sock.recv(buf))>);
//   using V = AwaitResult<Task<int>>;   // int
#pragma once

#include <coroutine>
#include <type_traits>
#include <utility>
#include <vector>

namespace duet {

template <typename T>
class Task;

namespace detail {

template <typename A>
concept HasMemberCoAwait = requires(A&& a) { static_cast<A&&>(a).operator co_await(); };
template <typename A>
concept HasFreeCoAwait = requires(A&& a) { operator co_await(static_cast<A&&>(a)); };

// The awaiter co_await takes from an expression of type A (an rvalue for a
// non-reference A): operator co_await's result, or the object itself.
template <typename A>
struct AwaiterOf {
  using type = A;
};
template <HasMemberCoAwait A>
struct AwaiterOf<A> {
  using type = decltype(std::declval<A>().operator co_await());
};
template <typename A>
  requires(!HasMemberCoAwait<A> && HasFreeCoAwait<A>)
struct AwaiterOf<A> {
  using type = decltype(operator co_await(std::declval<A>()));
};

// W has the three calls co_await makes, for a coroutine whose promise is P
// (void: any coroutine).
template <typename W, typename P>
concept AwaiterFor = requires(std::remove_reference_t<W>& w, std::coroutine_handle<P> h) {
  static_cast<bool>(w.await_ready());
  w.await_suspend(h);
  w.await_resume();
};

template <typename T>
inline constexpr bool is_task = false;
template <typename T>
inline constexpr bool is_task<Task<T>> = true;

// Forwards co_await's three calls to an operand's awaiter: W is a reference to
// the operand itself (an awaiter, alive until the end of the full-expression)
// or the awaiter its operator co_await returned. Task's await_transform hands
// this back instead of a reference to the operand, which GCC 12 would try to
// copy (and I/O awaiters cannot move).
template <typename W>
struct ForwardingAwaiter {
  W inner_;
  decltype(auto) await_ready() { return inner_.await_ready(); }
  template <typename Handle>
  decltype(auto) await_suspend(Handle waiter) {
    return inner_.await_suspend(waiter);
  }
  decltype(auto) await_resume() { return inner_.await_resume(); }
};

template <typename A>
auto forward_awaiter(A&& operand) {
  if constexpr (HasMemberCoAwait<A>) {
    return ForwardingAwaiter<typename AwaiterOf<A>::type>{static_cast<A&&>(operand).operator co_await()};
  } else if constexpr (HasFreeCoAwait<A>) {
    return ForwardingAwaiter<typename AwaiterOf<A>::type>{operator co_await(static_cast<A&&>(operand))};
  } else if constexpr (!std::is_lvalue_reference_v<A> && std::is_trivially_copyable_v<std::remove_cvref_t<A>> &&
                       sizeof(std::remove_cvref_t<A>) <= 2 * sizeof(void*)) {
    // A small temporary awaiter (a pointer or two): a copy costs what storing a
    // reference would and saves the loads through it (task_bench's
    // resume_suspend: 26 -> 25 Ir per co_await; 22 without await_transform).
    return ForwardingAwaiter<std::remove_cvref_t<A>>{operand};
  } else {
    return ForwardingAwaiter<std::remove_reference_t<A>&>{operand};
  }
}

// For static_assert(always_false<T>, ...) in a branch that only a wrong call
// instantiates.
template <typename...>
inline constexpr bool always_false = false;

// Stand in for the result of a call a static_assert has already refused, so
// that the refusal is the only error: a value convertible to anything, and an
// awaiter that gives one.
struct RefusedValue {
  template <typename T>
  operator T() const;  // NOLINT: never defined, never called (compilation failed)
};
struct RefusedAwaiter {
  bool await_ready() const noexcept { return true; }
  void await_suspend(std::coroutine_handle<>) const noexcept {}
  RefusedValue await_resume() const noexcept { return {}; }
};

template <typename T>
inline constexpr bool is_task_vector = false;
template <typename T, typename Alloc>
inline constexpr bool is_task_vector<std::vector<Task<T>, Alloc>> = true;

}  // namespace detail

// A is something co_await accepts (an expression of type A, an rvalue unless A
// is an lvalue reference), in a coroutine whose promise is P.
template <typename A, typename P = void>
concept Awaitable = detail::AwaiterFor<typename detail::AwaiterOf<A>::type, P>;

// What `co_await std::declval<A>()` gives.
template <typename A>
using AwaitResult = decltype(std::declval<std::remove_reference_t<typename detail::AwaiterOf<A>::type>&>().await_resume());

}  // namespace duet
