// Knob `memcg`: whether user pages are charged to a memory cgroup, and how its counter is kept.
//   off           no charging (the root memcg is not charged, or CONFIG_MEMCG=n)
//   res_counter   <= 3.18: struct res_counter, a spinlock taken per charge and per uncharge
//                 batch (seed 001, kernel-mm.md section 5)
//   page_counter  3.19+ (3e32cb2e0a12 "mm: memcontrol: lockless page counters"): an atomic
//                 read-modify-write on the counter's shared cache line

#pragma once

#include <cstdint>

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

enum class MemcgCounterKind : uint8_t { kOff, kResCounter, kPageCounter };

class MemcgCounterPolicy {
 public:
  virtual ~MemcgCounterPolicy() = default;
  virtual MemcgCounterKind kind() const = 0;
  bool enabled() const { return kind() != MemcgCounterKind::kOff; }
};

PolicyKnob memcg_counter_knob();
PolicyValue memcg_off();
PolicyValue memcg_res_counter();
PolicyValue memcg_page_counter();

}  // namespace mmreplay::kernelsim
