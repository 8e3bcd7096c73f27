// SimTime: the model's one time type, virtual nanoseconds since the start of a simulation.
//
// A strong type so that a count of pages or bytes is never added to a time by accident. It is
// used both for instants and for durations (as the kernel's u64 ns / ktime_t are).

#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace mmreplay::kernelsim {

class SimTime {
 public:
  constexpr SimTime() = default;

  static constexpr SimTime ns(int64_t v) { return SimTime(v); }
  static constexpr SimTime us(int64_t v) { return SimTime(v * 1000); }
  static constexpr SimTime ms(int64_t v) { return SimTime(v * 1000 * 1000); }
  static constexpr SimTime zero() { return SimTime(0); }
  static constexpr SimTime infinite() { return SimTime(std::numeric_limits<int64_t>::max()); }

  constexpr int64_t count_ns() const { return ns_; }

  constexpr SimTime& operator+=(SimTime o) {
    ns_ += o.ns_;
    return *this;
  }
  constexpr SimTime& operator-=(SimTime o) {
    ns_ -= o.ns_;
    return *this;
  }
  friend constexpr SimTime operator+(SimTime a, SimTime b) { return SimTime(a.ns_ + b.ns_); }
  friend constexpr SimTime operator-(SimTime a, SimTime b) { return SimTime(a.ns_ - b.ns_); }
  friend constexpr SimTime operator*(SimTime a, int64_t k) { return SimTime(a.ns_ * k); }
  friend constexpr SimTime operator*(int64_t k, SimTime a) { return SimTime(a.ns_ * k); }
  friend constexpr auto operator<=>(SimTime, SimTime) = default;
  friend constexpr bool operator==(SimTime, SimTime) = default;

 private:
  explicit constexpr SimTime(int64_t v) : ns_(v) {}
  int64_t ns_ = 0;
};

constexpr SimTime max(SimTime a, SimTime b) {
  return a < b ? b : a;
}
constexpr SimTime min(SimTime a, SimTime b) {
  return a < b ? a : b;
}

}  // namespace mmreplay::kernelsim
