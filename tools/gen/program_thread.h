// ProgramThread: one thread of a generated program, writing its calls and accesses as events
// of its own stream, on its own clock.
//
// Every call emits one event stamped with the thread's clock, then advances the clock by the
// user-space cost of that operation (user_costs.h) plus the workload's --think time. The clock
// only moves forward, so each stream is monotonic (TraceWriter's REQUIRES). The first failed
// append is kept (status()) and later calls do nothing, so a recipe can check once at the end.
//
// Also here: the task layout of process and thread modes (add_tasks) and the Linux mmap constants
// the recipes use.

#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "formats/event.h"
#include "tools/gen/address_space.h"
#include "tools/gen/event_sink.h"

namespace mmreplay::gen {

// include/uapi/asm-generic/mman-common.h and mman.h (x86-64 values).
inline constexpr uint32_t kProtRead = 0x1;
inline constexpr uint32_t kProtWrite = 0x2;
inline constexpr uint32_t kMapShared = 0x01;
inline constexpr uint32_t kMapPrivate = 0x02;
inline constexpr uint32_t kMapAnonymous = 0x20;

// One task of the program: its stream, its address space (mm) and its global number.
struct Task {
  uint32_t stream = 0;
  uint64_t mm_id = 0;
  uint64_t index = 0;  // 0-based over the whole trace; also picks the AddressSpace slice
};

// Adds processes x threads_per_process tasks named "ROLE.P.T". Threads of one process share an
// mm (thread mode: processes = 1); each process has its own (process mode: threads = 1).
// first_index numbers the tasks (and their address-space slices); first_mm the mm ids.
std::vector<Task> add_tasks(EventSink& sink, uint64_t processes, uint64_t threads_per_process,
                            const std::string& role, uint64_t first_index = 0,
                            uint64_t first_mm = 1);

class ProgramThread {
 public:
  ProgramThread(EventSink& sink, const Task& task, uint64_t think_ns, uint64_t start_ns = 0);

  uint64_t now() const { return now_ns_; }
  const Task& task() const { return task_; }
  AddressSpace& address_space() { return space_; }
  const Status& status() const { return status_; }
  bool ok() const { return status_.is_ok(); }

  // User-space work that is no call of its own (computing, copying before a call).
  void spend(uint64_t ns) { now_ns_ += ns; }
  // A barrier: waits until `ts` when it lies ahead.
  void wait_until(uint64_t ts) {
    if (ts > now_ns_) now_ns_ = ts;
  }

  void start();
  void exit();

  // Maps `len` bytes in this task's slice and emits the mmap; returns 0 (and records an error)
  // when the slice is full.
  uint64_t mmap_anon(uint64_t len, uint64_t align = 0);
  uint64_t mmap_file(uint64_t len, uint64_t file_id, bool shared, uint64_t offset = 0);
  void munmap(uint64_t addr, uint64_t len);
  void mprotect(uint64_t addr, uint64_t len, uint32_t prot);

  // An access to every page of [addr, addr + len); `ns_per_page` is its user-space cost.
  void touch(uint64_t addr, uint64_t len, bool write, uint64_t ns_per_page);

  void madvise(uint64_t addr, uint64_t len, uint64_t advice);
  // Advises every range: one madvise per range when per_call is 1, else vector calls
  // (madvisev, seed 002) of up to per_call ranges each, filled in the order given and each
  // sorted by address as madvisev() needs.
  void madvise_ranges(std::span<const formats::Range> ranges, uint64_t advice, uint64_t per_call);

  void file_read(uint64_t file_id, uint64_t offset, uint64_t len, uint64_t user_ns);
  void file_write(uint64_t file_id, uint64_t offset, uint64_t len, uint64_t user_ns);
  void fsync(uint64_t file_id);
  void contig_alloc(uint64_t handle, uint64_t bytes);
  void contig_free(uint64_t handle);

 private:
  void emit(const formats::Event& event, uint64_t user_ns,
            std::span<const formats::Range> ranges = {});

  EventSink& sink_;
  Task task_;
  AddressSpace space_;
  uint64_t think_ns_;
  uint64_t now_ns_;
  Status status_;
};

}  // namespace mmreplay::gen
