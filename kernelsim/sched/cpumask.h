// CpuMask: a fixed bitmap of NR_CPUS bits (include/linux/cpumask.h), used for mm_cpumask().

#pragma once

#include <array>
#include <bit>
#include <cassert>
#include <cstdint>

#include "kernelsim/constants.h"

namespace mmreplay::kernelsim {

class CpuMask {
 public:
  void set(uint32_t cpu) {
    assert(cpu < NR_CPUS);
    words_[cpu / 64] |= bit(cpu);
  }
  void clear(uint32_t cpu) {
    assert(cpu < NR_CPUS);
    words_[cpu / 64] &= ~bit(cpu);
  }
  // cpumask_or(this, this, other).
  void or_with(const CpuMask& other) {
    for (size_t i = 0; i < words_.size(); ++i) words_[i] |= other.words_[i];
  }
  bool test(uint32_t cpu) const {
    assert(cpu < NR_CPUS);
    return (words_[cpu / 64] & bit(cpu)) != 0;
  }

  uint32_t weight() const {
    uint32_t n = 0;
    for (uint64_t w : words_) n += static_cast<uint32_t>(std::popcount(w));
    return n;
  }
  bool empty() const {
    for (uint64_t w : words_) {
      if (w != 0) return false;
    }
    return true;
  }
  // cpumask_any_but() < nr_cpu_ids: a set bit other than `cpu`. Stops at the first word that has
  // one (weight() reads all NR_CPUS / 64 words; the flush path asks this on every flush).
  bool any_but(uint32_t cpu) const {
    assert(cpu < NR_CPUS);
    for (uint32_t i = 0; i < words_.size(); ++i) {
      const uint64_t w = i == cpu / 64 ? words_[i] & ~bit(cpu) : words_[i];
      if (w != 0) return true;
    }
    return false;
  }

  // Calls fn(cpu) for every set bit, in increasing cpu order.
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (uint32_t i = 0; i < words_.size(); ++i) {
      for (uint64_t w = words_[i]; w != 0; w &= w - 1) {
        fn(i * 64 + static_cast<uint32_t>(std::countr_zero(w)));
      }
    }
  }

  friend bool operator==(const CpuMask&, const CpuMask&) = default;

 private:
  static uint64_t bit(uint32_t cpu) { return uint64_t{1} << (cpu % 64); }
  std::array<uint64_t, NR_CPUS / 64> words_{};
};

}  // namespace mmreplay::kernelsim
