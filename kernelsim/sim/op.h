// Op: one input event for the model, fed from memory (kernelsim does no file I/O).
//
// A trace thread becomes a Task whose OpSource yields Ops in order; the replay layer translates
// trace events (formats/event.h) into these. Each Op is one syscall, one fault, one user-space
// access pattern, think time or a lifecycle step. Latency is measured per kind (sim/stats.h).
//
// Field use per kind (unused fields are ignored):
//   kThink       duration: user-space compute (the CPU stays busy; time-sliced if shared)
//   kSleep       duration: blocked off CPU (nanosleep, futex wait)
//   kBlock       duration: a trace's blocking syscall (futex, nanosleep, poll, wait4, ...): the
//                same sleep, counted apart from the replay layer's own kSleep
//   kMmap        addr (hint; with MAP_FIXED the exact place), len, prot, flags (MAP_*), file,
//   offset kMunmap      addr, len kMprotect    addr, len, prot kMremap      addr, len (old),
//   new_len, new_addr (with MREMAP_FIXED), flags (MREMAP_*) kBrk         addr: the new program
//   break (the first brk of an mm sets its start) kMadvise     addr, len, advice (MADV_*)
//   kMadviseVector advice, ranges: madvisev / process_madvise
//   kPageFault   addr, write: one fault as the trace saw it (spurious if already mapped); flags:
//                X86_PF_USER unless the kernel took it in a syscall's user copy
//   kTouch       addr, len, write, stride (bytes, 0 = PAGE_SIZE): accesses that fault as needed
//   kThreadStart marks the start of the thread (the clone() cost on the new thread)
//   kThreadExit  the thread exits (also at the end of its OpSource)
//   kMmCreate    mm_id, parent_mm_id: the thread continues in mm_id (exec: a fresh one; the
//                child side of fork: a copy of parent_mm_id's, kernel/fork.h)
//   kMmExit      the thread's mm is torn down now (exit_mmap()); later ops in it fail
//   kFileRead    file, offset, len: read(2) of a file range (fs/read_write.h)
//   kFileWrite   file, offset, len: write(2) of a file range
//   kFsync       file: fsync(2), writes the file's dirty blocks
//   kFileTruncate file, offset: the new size; len: the page-cache pages the recording kernel
//                dropped (kPagesDroppedUnknown: not recorded): truncation (mm/truncate.h)
//   kContigAlloc len (bytes, rounded up to pages), handle: cma_alloc() by a driver (mm/cma.h)
//   kContigFree  handle: cma_release() of that allocation
//   kClone       child: the task waiting for this clone (Simulation::spawn_thread_on_clone())
//                starts now; a child in another mm gets the copy of this task's (fork)
//   kWaitChild   child, duration: wait4 until that clone child's task has exited (do_wait());
//                for `duration` when no task has that key; flags kWaitAnyChild: a wait for any
//                child (wait4(-1)), which reaps the first of that child's siblings to exit
//   kFutexWake   handle: the wake id that replayed (kernel/futex.h); 0 = none; flags: WF_SYNC
//                for a pipe's sync wake-up (sched/wake_affine.h)
//   kFutexWait   handle, duration: sleep until wake `handle` replayed; `duration` when 0
//   kSyscallFailed advice: the errno of a call the recorded program made and the real kernel
//                refused (EEXIST, ENOENT, ...): its entry and exit, no state changes; the
//                program's own failure, so not counted in ops_failed

#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "common/op_table.h"
#include "kernelsim/constants.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

// The model's rows of the op table (common/op_table.h), in table order.
enum class OpKind : uint8_t {
#define MMREPLAY_OP_KIND(Kind, in, ...) MMREPLAY_OP_IF_MODEL_##in(k##Kind, )
  MMREPLAY_OPS(MMREPLAY_OP_KIND)
#undef MMREPLAY_OP_KIND
};
#define MMREPLAY_OP_KIND_COUNT(Kind, in, ...) MMREPLAY_OP_IF_MODEL_##in(+1)
inline constexpr int kOpKindCount = 0 MMREPLAY_OPS(MMREPLAY_OP_KIND_COUNT);
#undef MMREPLAY_OP_KIND_COUNT

// The op table's row of each OpKind.
inline constexpr common::OpRow kOpRowOf[kOpKindCount] = {
#define MMREPLAY_OP_ROW_OF(Kind, in, ...) MMREPLAY_OP_IF_MODEL_##in(common::OpRow::k##Kind, )
    MMREPLAY_OPS(MMREPLAY_OP_ROW_OF)
#undef MMREPLAY_OP_ROW_OF
};
constexpr const common::OpInfo& op_info(OpKind kind) {
  return common::op_info(kOpRowOf[static_cast<size_t>(kind)]);
}

// The op's name in the op table ("madvise_vector", "page_fault").
const char* op_kind_name(OpKind kind);

struct AddrRange {
  uint64_t addr = 0;
  uint64_t len = 0;
  friend bool operator==(const AddrRange&, const AddrRange&) = default;
};

// kWaitChild's flags: the wait named no child (wait4 with pid -1, 0 or -pgid).
inline constexpr uint32_t kWaitAnyChild = 1u << 0;

// kFileTruncate's len when the trace did not record the pages the real truncation dropped.
inline constexpr uint64_t kPagesDroppedUnknown = ~uint64_t{0};

// Op's fields but its vector: trivially copyable, so Op::reset() sets them all from one constant.
struct OpFields {
  OpKind kind = OpKind::kThink;
  bool write = false;
  int advice = 0;
  uint32_t prot = 0;
  uint32_t flags = 0;
  uint32_t file = 0;          // file id, 0 = anonymous
  uint32_t mm_id = 0;         // kMmCreate
  uint32_t parent_mm_id = 0;  // kMmCreate: the mm forked from (0: exec, a fresh mm)
  uint64_t addr = 0;
  uint64_t len = 0;
  uint64_t new_len = 0;   // kMremap
  uint64_t new_addr = 0;  // kMremap with MREMAP_FIXED
  uint64_t offset = 0;    // kMmap of a file: byte offset
  uint64_t stride = 0;    // kTouch
  SimTime duration;       // kThink, kSleep, kBlock, kWaitChild (fallback)
  uint64_t handle = 0;    // kContigAlloc, kContigFree: the allocation, chosen by the trace
  uint64_t child = 0;     // kClone, kWaitChild: the child's clone key (its trace tid)
  // kMmap, kMremap, kBrk: the address fields hold what the real kernel returned (a recorded
  // trace): the mmap's addr (not a hint), the mremap's new_addr (moved or not), the brk's new
  // break. The model puts the mapping there and counts addr_mismatch where its own view of the
  // address space disagrees (the range is taken). A zero address still leaves the choice to the
  // model (generated traces).
  bool addr_recorded = false;
  // kFileRead, kFileWrite: a later piece of the call before it (an AF_UNIX stream write cut at its
  // skbs): the task is already in the kernel, so no syscall entry is charged.
  bool continues_call = false;
  // kFileRead: the source of an in-kernel copy (copy_file_range(), sendfile()): its bytes go to
  // the destination's write, which follows as a continues_call piece, not to user memory.
  bool splice_source = false;
};

static_assert(std::is_trivially_copyable_v<OpFields>);

struct Op : OpFields {
  std::vector<AddrRange> ranges;  // kMadviseVector

  // Makes *this the op of kind `k` with every other field at its default, in place: what
  // `*this = Op()` then setting kind does, without building and moving a temporary. A recorded
  // replay's source sets two ops an event (a think gap and the event's own op); in place, its
  // host instructions fall 1.5% (callgrind, recorded_replay_bench: the move alone was 2%).
  void reset(OpKind k) {
    // Copied from a constant, not from a temporary: GCC zeroed the temporary on the stack with
    // `rep stos` and read it back at once, a store the loads could not forward from (perf:
    // most of TraceOpSource::translate()'s samples on those loads).
    static constexpr OpFields kDefaults{};
    static_cast<OpFields&>(*this) = kDefaults;
    kind = k;
    ranges.clear();
  }
  void set_think(SimTime d) {
    reset(OpKind::kThink);
    duration = d;
  }
  void set_page_fault(uint64_t fault_addr, bool is_write, bool user = true);

  // Builders for the common kinds.
  static Op think(SimTime d);
  static Op sleep(SimTime d);
  static Op block(SimTime d);
  static Op mmap_anon(uint64_t addr, uint64_t len, uint32_t prot, uint32_t extra_flags = 0);
  static Op mmap_file(uint64_t addr, uint64_t len, uint32_t prot, uint32_t flags, uint32_t file,
                      uint64_t offset);
  static Op munmap(uint64_t addr, uint64_t len);
  static Op mprotect(uint64_t addr, uint64_t len, uint32_t prot);
  static Op mremap(uint64_t addr, uint64_t old_len, uint64_t new_len, uint32_t flags,
                   uint64_t new_addr = 0);
  static Op brk(uint64_t addr);
  static Op madvise(uint64_t addr, uint64_t len, int advice);
  static Op madvise_vec(std::vector<AddrRange> ranges, int advice);
  static Op page_fault(uint64_t addr, bool write, bool user = true);
  static Op touch(uint64_t addr, uint64_t len, bool write, uint64_t stride = 0);
  static Op thread_exit();
  static Op mm_create(uint32_t mm_id, uint32_t parent_mm_id = 0);
  static Op mm_exit();
  static Op file_read(uint32_t file, uint64_t offset, uint64_t len);
  static Op file_write(uint32_t file, uint64_t offset, uint64_t len);
  static Op fsync(uint32_t file);
  static Op file_truncate(uint32_t file, uint64_t new_size, uint64_t pages_dropped);
  static Op contig_alloc(uint64_t handle, uint64_t bytes);
  static Op contig_free(uint64_t handle);
  static Op clone(uint64_t child);
  static Op wait_child(uint64_t child, SimTime fallback, bool any_child = false);
  static Op futex_wake(uint64_t wake_id, uint32_t wake_flags = 0);
  static Op syscall_failed(int err);
  static Op futex_wait(uint64_t wake_id, SimTime fallback);
};

inline void Op::set_page_fault(uint64_t fault_addr, bool is_write, bool user) {
  reset(OpKind::kPageFault);
  addr = fault_addr;
  write = is_write;
  flags = user ? X86_PF_USER : 0;
}

inline Op Op::think(SimTime d) {
  Op o;
  o.set_think(d);
  return o;
}

inline Op Op::page_fault(uint64_t addr, bool write, bool user) {
  Op o;
  o.set_page_fault(addr, write, user);
  return o;
}

// Where a task gets its next Op. Owned by the task.
class OpSource {
 public:
  virtual ~OpSource() = default;
  // Fills `op` and returns true, or returns false at the end of the stream. `op` comes in holding
  // the op this source filled last, run by then (run_thread() reuses one Op, filled in place),
  // or a default Op the first time: a source may read what that op was.
  virtual bool next(Op& op) = 0;
};

// An OpSource over a vector in memory (tests, generators).
class VectorOpSource final : public OpSource {
 public:
  explicit VectorOpSource(std::vector<Op> ops) : ops_(std::move(ops)) {}
  bool next(Op& op) override {
    if (pos_ >= ops_.size()) return false;
    op = ops_[pos_++];
    return true;
  }

 private:
  std::vector<Op> ops_;
  size_t pos_ = 0;
};

}  // namespace mmreplay::kernelsim
