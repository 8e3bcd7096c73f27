#include "replay/trace_op_source.h"

#include <algorithm>

#include "kernelsim/mm/memory.h"

namespace mmreplay::replay {

using formats::EventKind;
using kernelsim::Op;
using kernelsim::OpKind;
using kernelsim::SimTime;

TraceOpSource::TraceOpSource(EventStream stream, Timing timing, uint64_t origin_ns,
                             SourceCounters* counters, formats::GapCosts costs,
                             const TraceRewrites& rewrites)
    : stream_(std::move(stream), rewrites,
              timing == Timing::kClosed ? std::optional(costs) : std::nullopt, &counters->gaps,
              &counters->rewrites),
      timing_(timing),
      origin_ns_(origin_ns),
      counters_(counters),
      gaps_hold_fault_time_(timing == Timing::kClosed && costs.fault_ns > 0) {}

uint64_t TraceOpSource::gap_before_current(const Op& last) {
  const formats::Event& e = stream_.event();
  if (timing_ == Timing::kOpen) {
    const uint64_t due = e.ts_ns - origin_ns_;
    const uint64_t now = task_ ? static_cast<uint64_t>(task_->clock().count_ns()) : 0;
    if (now > due) {
      counters_->open_loop_lateness.record(now - due);
      return 0;
    }
    counters_->open_loop_lateness.record(0);
    return due - now;
  }
  // The thread's first event is where its task starts (Replayer spawns it at that time); the
  // think time comes from the recorded events, before any rewrite (trace_rewrite.h).
  const uint64_t gap = stream_.think_ns();
  if (task_ != nullptr && task_->wp_copied) [[unlikely]]
    return less_wp_copy_surplus(last, gap);
  return gap;
}

uint64_t TraceOpSource::less_wp_copy_surplus(const Op& last, uint64_t gap) {
  task_->wp_copied = false;  // `last`'s: it never outlives it
  // Only after a user-mode fault: a copy inside a syscall (MADV_POPULATE_WRITE, a user copy) is
  // in the call's recorded duration, not in the gap after it. (A trace with a fault cost comes
  // from record, whose faults have no end: ThinkClock took the fault cost after each.)
  const bool after_user_fault =
      last.kind == OpKind::kPageFault && (last.flags & kernelsim::X86_PF_USER) != 0;
  if (!gaps_hold_fault_time_ || !after_user_fault) return gap;
  const auto surplus =
      static_cast<uint64_t>(kernelsim::wp_copy_surplus(task_->sim().costs()).count_ns());
  const uint64_t take = std::min(gap, surplus);
  counters_->gaps.removed_ns += take;
  if (take < surplus) ++counters_->gaps.clamps;
  return gap - take;
}

bool TraceOpSource::next(Op& op) {
  for (;;) {
    if (!have_event_) {
      if (!stream_.next()) return false;
      ++counters_->events;
      have_event_ = true;
      think_emitted_ = false;
      const uint64_t gap = gap_before_current(op);
      if (gap > 0) {
        op.set_think(SimTime::ns(static_cast<int64_t>(gap)));
        think_emitted_ = true;
        return true;
      }
    }
    have_event_ = false;
    if (translate(op)) return true;
    ++counters_->skipped[static_cast<size_t>(stream_.event().kind)];
  }
}

bool TraceOpSource::translate(Op& op) const {
  const formats::Event& e = stream_.event();
  switch (e.kind) {
    case EventKind::kThreadStart:
      op.reset(OpKind::kThreadStart);
      return true;
    case EventKind::kThreadExit:
      op = Op::thread_exit();
      return true;
    case EventKind::kMmCreate:
      op = Op::mm_create(static_cast<uint32_t>(e.arg0), static_cast<uint32_t>(e.arg1));
      return true;
    case EventKind::kMmExit:
      op = Op::mm_exit();
      return true;
    case EventKind::kMmap:
      op = e.arg1 == 0 ? Op::mmap_anon(e.addr, e.len, e.prot(), e.map_flags())
                       : Op::mmap_file(e.addr, e.len, e.prot(), e.map_flags(),
                                       static_cast<uint32_t>(e.arg1), e.arg2);
      op.addr_recorded = true;  // events carry the address the kernel returned (event.h)
      return true;
    case EventKind::kMunmap:
      op = Op::munmap(e.addr, e.len);
      return true;
    case EventKind::kMprotect:
      op = Op::mprotect(e.addr, e.len, static_cast<uint32_t>(e.arg0));
      return true;
    case EventKind::kMremap:
      op = Op::mremap(e.addr, e.len, e.arg1, static_cast<uint32_t>(e.arg2), e.arg0);
      op.addr_recorded = true;  // arg0: the new address, moved or not (0: not recorded)
      return true;
    case EventKind::kBrk:
      op = Op::brk(e.addr);
      op.addr_recorded = true;
      return true;
    case EventKind::kMadvise:
      op = Op::madvise(e.addr, e.len, static_cast<int>(e.arg0));
      return true;
    case EventKind::kMadviseVector: {
      std::vector<kernelsim::AddrRange> ranges;
      ranges.reserve(e.range_count);
      for (const formats::Range& r : stream_.ranges()) ranges.push_back({r.addr, r.len});
      op = Op::madvise_vec(std::move(ranges), static_cast<int>(e.arg0));
      return true;
    }
    case EventKind::kPageFault:
      op.set_page_fault(e.addr, e.is_write(), !e.is_kernel_mode());
      if (e.is_kernel_mode()) ++counters_->kernel_mode_faults;
      return true;
    case EventKind::kTouch:
      op = Op::touch(e.addr, e.len, e.is_write(), e.arg0);
      return true;
    case EventKind::kFileRead:
      op = Op::file_read(static_cast<uint32_t>(e.arg0), e.arg1, e.len);
      op.splice_source = e.is_kernel_mode();
      return true;
    case EventKind::kFileWrite:
      op = Op::file_write(static_cast<uint32_t>(e.arg0), e.arg1, e.len);
      op.continues_call = e.is_continued();
      return true;
    case EventKind::kFsync:
      op = Op::fsync(static_cast<uint32_t>(e.arg0));
      return true;
    case EventKind::kFileTruncate:
      // The two "unknown" markers are the same value on both sides of the layer.
      static_assert(formats::kTruncatedPagesUnknown == kernelsim::kPagesDroppedUnknown);
      op = Op::file_truncate(static_cast<uint32_t>(e.arg0), e.arg1, e.arg2);
      return true;
    case EventKind::kContigAlloc:
      op = Op::contig_alloc(e.arg0, e.len);
      return true;
    case EventKind::kContigFree:
      op = Op::contig_free(e.arg0);
      return true;
    case EventKind::kObservation:
      // A call the kernel refused runs as a syscall that fails; only with its duration, which
      // then is out of the gaps (without one, its time is still in the gap after it).
      if (e.arg0 == static_cast<uint64_t>(formats::ObservationKind::kFailedCall) &&
          e.has_duration()) {
        op = Op::syscall_failed(static_cast<int>(e.arg1));
        ++counters_->failed_calls;
        return true;
      }
      return false;  // what the real kernel did: compared with, never replayed
    case EventKind::kBlock:
      // Off CPU for the recorded time; unknown when the capture did not time the call. A wait
      // the ordering edge after it ended (a poll woken by a pipe write) sleeps in that edge, and
      // one a child's exit interrupted sleeps in the wait for any child after it.
      if (!e.has_duration() || e.is_woken_by_edge() || e.is_any_child()) return false;
      op = Op::block(SimTime::ns(static_cast<int64_t>(e.duration_ns)));
      return true;
    case EventKind::kFutexWake:
      // A pipe's wake-up is sync (event.h kSyncOrderUaddr): the wakee may move to this CPU.
      op = Op::futex_wake(e.arg0, e.arg1 == formats::kSyncOrderUaddr ? kernelsim::WF_SYNC : 0);
      return true;
    case EventKind::kFutexWait:
      op = Op::futex_wait(e.arg0,
                          SimTime::ns(e.has_duration() ? static_cast<int64_t>(e.duration_ns) : 0));
      return true;
    case EventKind::kWaitChild:
      // Until the child exits in the replay (any of its siblings, for a wait that named none);
      // its recorded time when the child is not traced.
      op = Op::wait_child(e.arg0,
                          SimTime::ns(e.has_duration() ? static_cast<int64_t>(e.duration_ns) : 0),
                          e.is_any_child());
      return true;
    case EventKind::kClone:
      op = Op::clone(e.arg0);  // starts the child's task (run.cpp spawned it waiting for this)
      return true;
  }
  return false;
}

}  // namespace mmreplay::replay
