// See fault_loop.h.

#include "tools/gen/fault_loop.h"

#include "tools/gen/program_thread.h"
#include "tools/gen/user_costs.h"

namespace mmreplay::gen {

Status emit_fault_loop(const FaultLoop& loop, EventSink& sink) {
  for (const Task& task : add_tasks(sink, loop.processes, loop.threads, loop.role)) {
    ProgramThread thread(sink, task, loop.think_ns);
    thread.start();
    for (uint64_t i = 0; i < loop.loops && thread.ok(); ++i) {
      uint64_t addr =
          loop.backing == Backing::kAnonymous
              ? thread.mmap_anon(loop.size)
              : thread.mmap_file(loop.size, task.index + 1, loop.backing == Backing::kSharedFile);
      thread.touch(addr, loop.size, /*write=*/true, user_cost::kWriteBytePerPageNs);
      thread.munmap(addr, loop.size);
    }
    thread.exit();
    if (!thread.ok()) return thread.status();
  }
  return Status::ok();
}

TraceEstimate estimate_fault_loop(const FaultLoop& loop) {
  TraceEstimate estimate;
  estimate.threads =
      static_cast<long double>(loop.processes) * static_cast<long double>(loop.threads);
  estimate.events = estimate.threads * (2 + 3 * static_cast<long double>(loop.loops));
  estimate.bytes_per_event = kRepetitiveBytesPerEvent;
  return estimate;
}

}  // namespace mmreplay::gen
