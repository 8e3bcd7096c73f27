#include "kernelsim/locking/lockstat.h"

namespace mmreplay::kernelsim {

void LockClassStats::record_acquire(uint32_t cpu, uint64_t wait_ns, bool contended) {
  ++acquisitions;
  const bool bounce = last_cpu >= 0 && last_cpu != static_cast<int32_t>(cpu);
  if (bounce) ++acq_bounces;
  if (contended) {
    ++contentions;
    if (bounce) ++con_bounces;
    wait_time.record(wait_ns);
  }
  last_cpu = static_cast<int32_t>(cpu);
}

std::string_view LockStat::stored_name(std::string_view name) {
  lock_class(name);
  return classes_.find(name)->first;
}

LockClassStats& LockStat::lock_class(std::string_view name) {
  auto it = classes_.find(name);
  if (it == classes_.end()) it = classes_.emplace(std::string(name), LockClassStats{}).first;
  return it->second;
}

const LockClassStats* LockStat::find(std::string_view name) const {
  auto it = classes_.find(name);
  return it == classes_.end() ? nullptr : &it->second;
}

}  // namespace mmreplay::kernelsim
