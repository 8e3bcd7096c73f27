// Co<T>: the coroutine type kernel paths are written in.
//
//   Co<void> do_madvise(Task& t, ...) {
//     co_await mm.mmap_sem.down_read(t);   // a point where virtual time passes or t may block
//     ...
//   }
//
// A Co starts suspended and runs when awaited, inside the awaiter's await_suspend(). If it
// completes without suspending (the common, uncontended case) the awaiter just continues, so a
// loop of awaits never grows the stack (symmetric transfer is not a guaranteed tail call at -O0).
// If it suspends, its completion later resumes the awaiter by symmetric transfer.
// The top-level Co of a task is resumed by the task's events (sim/task.h) and, at its end,
// returns control to the event loop. Co owns its frame and destroys it with itself.
// Exceptions are not used: an exception escaping a kernel path terminates (a model bug).
// Frames come from the FramePool of the simulation running on this host thread (sim/frame_pool.h),
// or the heap outside a run.
//
// Co::ready() is a Co that is already complete and has no frame. A path whose common case never
// suspends (a page from the per-CPU list, a charge to the root memcg, a page added to a batch that
// is not full) is written as a plain function returning Co: it does the fast case at once and
// returns ready(), or returns its slow path's coroutine. A frame's prologue and epilogue cost
// 150-190 host instructions; the four a fault no longer makes were 13.5% of a 64-CPU fault's. Such
// a function runs its fast case when it is called, not when it is awaited, so callers must await
// it at once (all do: `co_await f(t, ...)`).
//
// GCC 12.2 (Debian 12's) miscompiles a coroutine whose first statement is an `if` with a
// co_await in its condition (`if (!co_await f(t)) co_return false;`): its first resume jumps to
// an unreachable state and dies of SIGILL (ud2), or, inlined elsewhere, returns as if the await
// had failed. Bind the result first (`const bool ok = co_await f(t); if (!ok) ...`), or have any
// statement before it; tests/kernelsim/sim/co_first_statement_test.cpp checks every coroutine of
// the tree for the pattern (2026-12-06, found in mem_cgroup_charge()'s slow path).

#pragma once

#include <coroutine>
#include <cstddef>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

#include "kernelsim/sim/frame_pool.h"

namespace mmreplay::kernelsim {

namespace detail {

struct CoPromiseBase {
  // Not the placement form taking the coroutine's parameters (which would find the Task&): GCC
  // 12 at -O0 reports a template placement operator new as mismatched with operator delete.
  static void* operator new(size_t n) { return FramePool::allocate_current(n); }
  static void operator delete(void* frame) noexcept { FramePool::deallocate(frame); }

  std::coroutine_handle<> continuation = std::noop_coroutine();
  bool running_inline = false;  // being run from its awaiter's await_suspend()

  std::suspend_always initial_suspend() noexcept { return {}; }
  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      if (h.promise().running_inline) return std::noop_coroutine();  // back into await_suspend()
      return h.promise().continuation;
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { std::terminate(); }
};

template <class T>
struct CoPromise : CoPromiseBase {
  std::optional<T> value;
  void return_value(T v) { value = std::move(v); }
  T take() { return std::move(*value); }
};

template <>
struct CoPromise<void> : CoPromiseBase {
  void return_void() noexcept {}
  void take() noexcept {}
};

// The result of a Co made by ready(): none for Co<void>.
template <class T>
struct ReadyResult {
  std::optional<T> value;
  T take() { return std::move(*value); }
};

template <>
struct ReadyResult<void> {
  void take() noexcept {}
};

}  // namespace detail

template <class T = void>
class [[nodiscard]] Co {
 public:
  struct promise_type : detail::CoPromise<T> {
    Co get_return_object() { return Co(std::coroutine_handle<promise_type>::from_promise(*this)); }
  };
  using Handle = std::coroutine_handle<promise_type>;

  Co(Co&& o) noexcept : h_(std::exchange(o.h_, {})), ready_(std::move(o.ready_)) {}
  Co& operator=(Co&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, {});
      ready_ = std::move(o.ready_);
    }
    return *this;
  }
  Co(const Co&) = delete;
  Co& operator=(const Co&) = delete;
  ~Co() { reset(); }

  // A complete Co without a coroutine frame (see the top of this file).
  static Co ready() requires std::is_void_v<T> { return Co(Handle{}); }
  template <class U>
  static Co ready(U&& v) requires(!std::is_void_v<T>) {
    Co c(Handle{});
    c.ready_.value.emplace(std::forward<U>(v));
    return c;
  }

  bool await_ready() const noexcept { return !h_; }
  bool await_suspend(std::coroutine_handle<> caller) noexcept {
    h_.promise().continuation = caller;
    h_.promise().running_inline = true;
    h_.resume();
    h_.promise().running_inline = false;
    return !h_.done();  // false: completed inline, the caller continues at once
  }
  T await_resume() { return h_ ? h_.promise().take() : ready_.take(); }

  // For the task that owns a top-level Co.
  Handle handle() const { return h_; }
  bool done() const { return !h_ || h_.done(); }

 private:
  explicit Co(Handle h) : h_(h) {}
  void reset() {
    if (h_) h_.destroy();
    h_ = {};
  }
  Handle h_;
  detail::ReadyResult<T> ready_;
};

}  // namespace mmreplay::kernelsim
