#include "kernelsim/fs/stream_sides.h"

namespace mmreplay::kernelsim {

int32_t StreamSides::LastTwo::cpu_not_of(uint32_t task) const {
  if (latest.cpu != kNone && latest.task != task) return latest.cpu;
  return other.task != task ? other.cpu : kNone;
}

void StreamSides::LastTwo::record(uint32_t task, int32_t cpu) {
  if (latest.cpu != kNone && latest.task != task) other = latest;
  latest = Access{task, cpu};
}

int32_t StreamSides::exchange(uint32_t file, uint32_t task, int32_t cpu, bool write) {
  if (file >= files_.size()) files_.resize(file + 1);
  Sides& s = files_[file];
  const int32_t peer = write ? s.reads.cpu_not_of(task) : s.writes.cpu_not_of(task);
  (write ? s.writes : s.reads).record(task, cpu);
  return peer;
}

}  // namespace mmreplay::kernelsim
