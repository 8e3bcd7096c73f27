// The op table: every operation a trace can hold or the model can run, declared once.
//
// One row per operation. formats::EventKind (the trace's kinds, formats/event.h) and
// kernelsim::OpKind (the model's input ops, kernelsim/sim/op.h) are generated from the rows, and
// every name an operation goes by comes from its row: the name `cat`, `info` and the importers
// use (and the model's name), the results key of its latency histogram (replay/run.cpp) and the
// system call it is recorded from (calibrate's validate --real). Like the kernel's own lists of
// enum/string pairs (include/trace/events/mmflags.h, the EM()/EMe() lists of migrate.h).
//
//   X(Kind, in, disk, name, results_key, syscall)
//     Kind         the enumerator, k##Kind in EventKind and/or OpKind
//     in           TRACE_AND_MODEL: a trace event the model runs; TRACE_ONLY: stored, never
//                  replayed; MODEL_ONLY: made by the replay layer, never stored
//     disk         the trace kind number, stored in a chunk's op byte: part of the on-disk format.
//                  Trace rows come first, numbered 0, 1, ... in row order; append new trace rows
//                  after the last one, never renumber. -1 for MODEL_ONLY rows.
//     name         lower-case name ("madvise_vector")
//     results_key  key of the op's latency histogram in the results ("ops"); "" = not reported
//                  (lifecycle steps, think time, observations)
//     syscall      the system call whose entry-to-exit time the op models; "" = none (faults,
//                  user-space accesses, lifecycle steps, driver calls, `block`, which stands for
//                  any of several blocking calls and names its call in the event)
//
// Invariants (static_asserts here and in formats/event.h):
//  (1) a trace row's disk number is its row number.
//  (2) names, results keys and syscalls are each unique where not empty.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

// clang-format off
#define MMREPLAY_OPS(X)                                                                           \
  X(ThreadStart,   TRACE_AND_MODEL,  0, "thread_start",   "",               "")                   \
  X(ThreadExit,    TRACE_AND_MODEL,  1, "thread_exit",    "",               "")                   \
  X(MmCreate,      TRACE_AND_MODEL,  2, "mm_create",      "",               "")                   \
  X(MmExit,        TRACE_AND_MODEL,  3, "mm_exit",        "",               "")                   \
  X(Mmap,          TRACE_AND_MODEL,  4, "mmap",           "mmap",           "mmap")               \
  X(Munmap,        TRACE_AND_MODEL,  5, "munmap",         "munmap",         "munmap")             \
  X(Mprotect,      TRACE_AND_MODEL,  6, "mprotect",       "mprotect",       "mprotect")           \
  X(Mremap,        TRACE_AND_MODEL,  7, "mremap",         "mremap",         "mremap")             \
  X(Brk,           TRACE_AND_MODEL,  8, "brk",            "brk",            "brk")                \
  X(Madvise,       TRACE_AND_MODEL,  9, "madvise",        "madvise",        "madvise")            \
  X(MadviseVector, TRACE_AND_MODEL, 10, "madvise_vector", "madvise_vector", "process_madvise")    \
  X(PageFault,     TRACE_AND_MODEL, 11, "page_fault",     "fault",          "")                   \
  X(Touch,         TRACE_AND_MODEL, 12, "touch",          "touch",          "")                   \
  X(FileRead,      TRACE_AND_MODEL, 13, "file_read",      "read",           "read")               \
  X(FileWrite,     TRACE_AND_MODEL, 14, "file_write",     "write",          "write")              \
  X(Fsync,         TRACE_AND_MODEL, 15, "fsync",          "fsync",          "fsync")              \
  X(ContigAlloc,   TRACE_AND_MODEL, 16, "contig_alloc",   "contig_alloc",   "")                   \
  X(ContigFree,    TRACE_AND_MODEL, 17, "contig_free",    "contig_free",    "")                   \
  X(Observation,   TRACE_ONLY,      18, "observation",    "",               "")                   \
  X(Block,         TRACE_AND_MODEL, 19, "block",          "",               "")                   \
  X(Clone,         TRACE_AND_MODEL, 20, "clone",          "",               "")                   \
  X(WaitChild,     TRACE_AND_MODEL, 21, "wait_child",     "",               "")                   \
  X(FutexWake,     TRACE_AND_MODEL, 22, "futex_wake",     "",               "")                   \
  X(FutexWait,     TRACE_AND_MODEL, 23, "futex_wait",     "",               "")                   \
  X(FileTruncate,  TRACE_AND_MODEL, 24, "file_truncate",  "truncate",       "ftruncate")          \
  X(Think,         MODEL_ONLY,      -1, "think",          "",               "")                   \
  X(Sleep,         MODEL_ONLY,      -1, "sleep",          "",               "")                   \
  X(SyscallFailed, MODEL_ONLY,      -1, "syscall_failed", "",               "")
// clang-format on

// MMREPLAY_OP_IF_TRACE_##in(...) and MMREPLAY_OP_IF_MODEL_##in(...) keep their arguments for the
// rows of that side and drop them for the others: how EventKind and OpKind pick their rows.
// MMREPLAY_OP_IS_MODEL_##in is true for the model's rows.
#define MMREPLAY_OP_IF_TRACE_TRACE_AND_MODEL(...) __VA_ARGS__
#define MMREPLAY_OP_IF_TRACE_TRACE_ONLY(...) __VA_ARGS__
#define MMREPLAY_OP_IF_TRACE_MODEL_ONLY(...)
#define MMREPLAY_OP_IF_MODEL_TRACE_AND_MODEL(...) __VA_ARGS__
#define MMREPLAY_OP_IF_MODEL_TRACE_ONLY(...)
#define MMREPLAY_OP_IF_MODEL_MODEL_ONLY(...) __VA_ARGS__
#define MMREPLAY_OP_IS_MODEL_TRACE_AND_MODEL true
#define MMREPLAY_OP_IS_MODEL_TRACE_ONLY false
#define MMREPLAY_OP_IS_MODEL_MODEL_ONLY true

namespace mmreplay::common {

// The rows, in table order: OpRow::kMmap is the row of mmap.
enum class OpRow : uint8_t {
#define MMREPLAY_OP_ROW(Kind, in, disk, name, key, syscall) k##Kind,
  MMREPLAY_OPS(MMREPLAY_OP_ROW)
#undef MMREPLAY_OP_ROW
};

struct OpInfo {
  int disk;                      // trace kind number; -1: never in a trace
  bool modelled;                 // kernelsim::OpKind has it
  std::string_view name;         // as `cat` prints it
  std::string_view results_key;  // "" = no latency histogram in the results
  std::string_view syscall;      // "" = not one system call
};

inline constexpr OpInfo kOpTable[] = {
#define MMREPLAY_OP_INFO(Kind, in, disk, name, key, syscall) \
  {disk, MMREPLAY_OP_IS_MODEL_##in, name, key, syscall},
    MMREPLAY_OPS(MMREPLAY_OP_INFO)
#undef MMREPLAY_OP_INFO
};
inline constexpr size_t kOpRowCount = sizeof(kOpTable) / sizeof(kOpTable[0]);

constexpr const OpInfo& op_info(OpRow row) {
  return kOpTable[static_cast<size_t>(row)];
}

// The row named `name` (an OpInfo::name), or nullptr.
constexpr const OpInfo* find_op(std::string_view name) {
  for (const OpInfo& op : kOpTable) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

namespace detail {
constexpr bool unique_where_set(std::string_view OpInfo::*column) {
  for (size_t i = 0; i < kOpRowCount; ++i) {
    for (size_t j = i + 1; j < kOpRowCount; ++j) {
      if (!(kOpTable[i].*column).empty() && kOpTable[i].*column == kOpTable[j].*column)
        return false;
    }
  }
  return true;
}
}  // namespace detail
static_assert(detail::unique_where_set(&OpInfo::name) &&
                  detail::unique_where_set(&OpInfo::results_key) &&
                  detail::unique_where_set(&OpInfo::syscall),
              "op table (2): a name, results key or syscall names one row");

}  // namespace mmreplay::common
