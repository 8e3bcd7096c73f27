#include "tools/calibrate/throughput_loops.h"

namespace mmreplay::tools::calibrate {

const std::vector<ThroughputLoop>& throughput_loops() {
  static const std::vector<ThroughputLoop> loops = {
      {LoopKind::kPageFault1, "page_fault1", "fault", false, kFaultLoopBytes / kLoopPage},
      {LoopKind::kPageFault2, "page_fault2", "fault", false, kFaultLoopBytes / kLoopPage},
      {LoopKind::kTlbFlush2, "tlb_flush2", "page", true, kTlbLoopBytes / kLoopPage},
      {LoopKind::kMmapMunmap, "mmap-munmap", "round", true, 1, 2},
      {LoopKind::kMadvDontneed, "madv-dontneed", "page", false, kReuseLoopBytes / kLoopPage},
      {LoopKind::kMadvFree, "madv-free", "page", false, kReuseLoopBytes / kLoopPage},
      {LoopKind::kReadCached, "read-cached", "read", false, kReadFileBytes / kReadCallBytes},
      {LoopKind::kReadPage, "read-page", "read", false, kReadFileBytes / kReadPageCallBytes},
      {LoopKind::kPingPong, "ping-pong", "round trip", true, 1, 1},
  };
  return loops;
}

uint64_t read_call_bytes(LoopKind k) {
  if (k == LoopKind::kReadCached) return kReadCallBytes;
  if (k == LoopKind::kReadPage) return kReadPageCallBytes;
  return 0;
}

const ThroughputLoop* find_throughput_loop(std::string_view name) {
  for (const ThroughputLoop& l : throughput_loops()) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

}  // namespace mmreplay::tools::calibrate
