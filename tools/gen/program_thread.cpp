// Event emission with per-thread clocks; see program_thread.h.

#include "tools/gen/program_thread.h"

#include <algorithm>

#include "tools/gen/params.h"
#include "tools/gen/user_costs.h"

namespace mmreplay::gen {

using formats::Event;
using formats::Range;
namespace ev = formats::ev;

// Generated tids start here so they never look like the real pid 0/1 of a captured trace.
constexpr uint64_t kFirstTid = 1000;

std::vector<Task> add_tasks(EventSink& sink, uint64_t processes, uint64_t threads_per_process,
                            const std::string& role, uint64_t first_index, uint64_t first_mm) {
  std::vector<Task> tasks;
  tasks.reserve(processes * threads_per_process);
  uint64_t index = first_index;
  for (uint64_t p = 0; p < processes; ++p) {
    for (uint64_t t = 0; t < threads_per_process; ++t, ++index) {
      formats::ThreadInfo info;
      info.tid = kFirstTid + index;
      info.mm_id = first_mm + p;
      info.name = role + "." + std::to_string(p) + "." + std::to_string(t);
      Task task;
      task.stream = sink.add_thread(std::move(info));
      task.mm_id = first_mm + p;
      task.index = index;
      tasks.push_back(task);
    }
  }
  return tasks;
}

ProgramThread::ProgramThread(EventSink& sink, const Task& task, uint64_t think_ns,
                             uint64_t start_ns)
    : sink_(sink), task_(task), space_(task.index), think_ns_(think_ns), now_ns_(start_ns) {}

void ProgramThread::emit(const Event& event, uint64_t user_ns, std::span<const Range> ranges) {
  if (!status_.is_ok()) return;
  status_ = sink_.append(task_.stream, event, ranges);
  now_ns_ += user_ns + think_ns_;
}

void ProgramThread::start() {
  emit(ev::thread_start(now_ns_), 0);
}
void ProgramThread::exit() {
  emit(ev::thread_exit(now_ns_), 0);
}

uint64_t ProgramThread::mmap_anon(uint64_t len, uint64_t align) {
  uint64_t addr = space_.map(len, std::max(align, kPageSize));
  if (addr == 0) {
    if (status_.is_ok()) {
      status_ = Status::resource_exhausted("task " + std::to_string(task_.index) + ": mapping of " +
                                           std::to_string(len) + " bytes does not fit its " +
                                           std::to_string(kTaskSliceBytes >> 30) + " GiB slice");
    }
    return 0;
  }
  emit(ev::mmap(now_ns_, addr, len, kProtRead | kProtWrite, kMapPrivate | kMapAnonymous),
       user_cost::kSyscallNs);
  return addr;
}

uint64_t ProgramThread::mmap_file(uint64_t len, uint64_t file_id, bool shared, uint64_t offset) {
  uint64_t addr = space_.map(len, kPageSize);
  if (addr == 0) {
    if (status_.is_ok()) {
      status_ = Status::resource_exhausted("task " + std::to_string(task_.index) +
                                           ": file mapping does not fit its slice");
    }
    return 0;
  }
  emit(ev::mmap(now_ns_, addr, len, kProtRead | kProtWrite, shared ? kMapShared : kMapPrivate,
                file_id, offset),
       user_cost::kSyscallNs);
  return addr;
}

void ProgramThread::munmap(uint64_t addr, uint64_t len) {
  space_.unmap(addr, len);
  emit(ev::munmap(now_ns_, addr, len), user_cost::kSyscallNs);
}

void ProgramThread::mprotect(uint64_t addr, uint64_t len, uint32_t prot) {
  emit(ev::mprotect(now_ns_, addr, len, prot), user_cost::kSyscallNs);
}

// The touch covers whole pages: the model sees pages, not bytes, and a byte-granular length
// (a malloc'd object's size) would cost the trace ~2 bytes of entropy per event for nothing.
void ProgramThread::touch(uint64_t addr, uint64_t len, bool write, uint64_t ns_per_page) {
  if (len == 0) return;
  const uint64_t first = addr / kPageSize * kPageSize;
  const uint64_t end = (addr + len + kPageSize - 1) / kPageSize * kPageSize;
  const uint64_t pages = (end - first) / kPageSize;
  emit(ev::touch(now_ns_, first, end - first, write, kPageSize), pages * ns_per_page);
}

void ProgramThread::madvise(uint64_t addr, uint64_t len, uint64_t advice) {
  emit(ev::madvise(now_ns_, addr, len, advice), user_cost::kSyscallNs);
}

void ProgramThread::madvise_ranges(std::span<const Range> ranges, uint64_t advice,
                                   uint64_t per_call) {
  if (per_call <= 1) {
    for (const Range& range : ranges) madvise(range.addr, range.len, advice);
    return;
  }
  // The ranges fill vectors of `per_call` in the order given; madvisev() rejects ranges that are
  // out of order or overlap (do_madvisev(), seed 002), so each vector is sorted by address
  // before the call (je.patch's pages_purge_vec() qsorts each iovec).
  std::vector<Range> vec;
  for (size_t first = 0; first < ranges.size(); first += per_call) {
    size_t count = std::min<size_t>(per_call, ranges.size() - first);
    vec.assign(ranges.begin() + static_cast<std::ptrdiff_t>(first),
               ranges.begin() + static_cast<std::ptrdiff_t>(first + count));
    std::sort(vec.begin(), vec.end(),
              [](const Range& a, const Range& b) { return a.addr < b.addr; });
    emit(ev::madvise_vector(now_ns_, advice),
         user_cost::kSyscallNs + count * user_cost::kPurgeRangeNs, vec);
  }
}

void ProgramThread::file_read(uint64_t file_id, uint64_t offset, uint64_t len, uint64_t user_ns) {
  emit(ev::file_read(now_ns_, file_id, offset, len), user_ns);
}

void ProgramThread::file_write(uint64_t file_id, uint64_t offset, uint64_t len, uint64_t user_ns) {
  emit(ev::file_write(now_ns_, file_id, offset, len), user_ns);
}

void ProgramThread::fsync(uint64_t file_id) {
  emit(ev::fsync(now_ns_, file_id), user_cost::kSyscallNs);
}

void ProgramThread::contig_alloc(uint64_t handle, uint64_t bytes) {
  emit(ev::contig_alloc(now_ns_, handle, bytes), user_cost::kSyscallNs);
}

void ProgramThread::contig_free(uint64_t handle) {
  emit(ev::contig_free(now_ns_, handle), user_cost::kSyscallNs);
}

}  // namespace mmreplay::gen
