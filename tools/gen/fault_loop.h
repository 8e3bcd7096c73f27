// The fault loop of will-it-scale's page_fault1/2/3 and of seed 001's page-fault-scale:
//
//   per task, L times:  p = mmap(size, backing); for each page: p[page] = 0; munmap(p, size)
//
// One write per page (will-it-scale's loop), emitted as one write touch with a page stride; the
// kernel's reaction (anonymous zero-fill, copy-on-write of a file page, dirtying a shared page)
// is the model's at replay. Task i maps file i+1 for the file-backed variants.

#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "tools/gen/event_sink.h"
#include "tools/gen/size_estimate.h"
#include "tools/gen/will_it_scale.h"

namespace mmreplay::gen {

struct FaultLoop {
  std::string role;  // thread-name prefix
  uint64_t processes = 1;
  uint64_t threads = 1;
  uint64_t size = 0;
  uint64_t loops = 1;
  Backing backing = Backing::kAnonymous;
  uint64_t think_ns = 0;
};

Status emit_fault_loop(const FaultLoop& loop, EventSink& sink);
// What emit_fault_loop() writes: per task, start, exit, and mmap + touch + munmap per loop.
TraceEstimate estimate_fault_loop(const FaultLoop& loop);

}  // namespace mmreplay::gen
