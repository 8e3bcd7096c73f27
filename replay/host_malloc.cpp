#include "replay/host_malloc.h"

#include <cstddef>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace mmreplay::replay {

void tune_host_malloc() {
#if defined(__GLIBC__)
  // The largest threshold glibc accepts on 64-bit (DEFAULT_MMAP_THRESHOLD_MAX). Setting either
  // value also turns off glibc's own adjustment of both.
  constexpr int kMmapThreshold = 32 << 20;
  constexpr int kTrimThreshold = 256 << 20;
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
#endif
}

}  // namespace mmreplay::replay
