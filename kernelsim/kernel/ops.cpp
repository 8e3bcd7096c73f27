// The op loop: one Op at a time through the kernel path it models.

#include "kernelsim/kernel/thread.h"

#include "kernelsim/fs/read_write.h"
#include "kernelsim/kernel/fork.h"
#include "kernelsim/kernel/futex.h"
#include "kernelsim/mm/cma_alloc.h"
#include "kernelsim/mm/madvise.h"
#include "kernelsim/mm/memory.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/mmap.h"
#include "kernelsim/mm/mprotect.h"
#include "kernelsim/mm/mremap.h"
#include "kernelsim/mm/truncate.h"
#include "kernelsim/mm/user_access.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// Records a syscall's result on the task and counts failures.
void set_result(Task& t, int64_t r) {
  t.last_result = r;
  if (r < 0) ++t.sim().vm().ops_failed;
}

// A page-fault op: a user fault, or one taken in a syscall's copy to or from user memory. The
// fault path's own coroutine, with no frame here.
Co<FaultResult> fault_of(Task& t, const Op& op) {
  const uint64_t page = op.addr & ~(PAGE_SIZE - 1);
  if ((op.flags & X86_PF_USER) != 0) return do_user_addr_fault(t, page, op.write);
  return do_kernel_copy_fault(t, page, op.write);  // in its syscall's user copy
}

int64_t fault_errno(FaultResult r) {
  return r == FaultResult::kSegv ? -ERRNO_EFAULT : r == FaultResult::kOom ? -ERRNO_ENOMEM : 0;
}

}  // namespace

Co<bool> do_op(Task& t, const Op& op) {
  switch (op.kind) {
    case OpKind::kThink:
      co_await do_think(t, op.duration);
      break;
    case OpKind::kSleep:
      co_await do_sleep(t, op.duration);
      break;
    case OpKind::kBlock:  // the trace's futex/nanosleep/poll/wait4: off CPU, woken by a timer
      co_await do_sleep(t, op.duration, /*recorded=*/true);
      break;
    case OpKind::kMmap:
      set_result(t, co_await sys_mmap(t, op));
      break;
    case OpKind::kMunmap:
      set_result(t, co_await sys_munmap(t, op.addr, op.len));
      break;
    case OpKind::kMprotect:
      set_result(t, co_await sys_mprotect(t, op.addr, op.len, op.prot));
      break;
    case OpKind::kMremap:
      set_result(t, co_await sys_mremap(t, op));
      break;
    case OpKind::kBrk:
      t.last_result = co_await sys_brk(t, op.addr, op.addr_recorded);
      break;
    case OpKind::kMadvise:
      set_result(t, co_await sys_madvise(t, op.addr, op.len, op.advice));
      break;
    case OpKind::kMadviseVector:
      set_result(t, co_await sys_madvise_vec(t, op.ranges, op.advice));
      break;
    case OpKind::kPageFault:
      t.last_result = fault_errno(co_await fault_of(t, op));
      break;
    case OpKind::kTouch:
      t.last_result =
          static_cast<int64_t>(co_await do_touch(t, op.addr, op.len, op.write, op.stride));
      break;
    case OpKind::kThreadStart:
      t.work(t.sim().costs().thread_create);
      break;
    case OpKind::kThreadExit:
      co_return false;
    case OpKind::kMmCreate:
      co_await do_mm_switch(t, op.mm_id, op.parent_mm_id);
      break;
    case OpKind::kMmExit:
      if (t.mm() != nullptr) co_await exit_mmap(t, *t.mm());
      break;
    case OpKind::kFileRead:
      set_result(t, co_await ksys_read(t, op.file, op.offset, op.len,
                                       op.splice_source ? ReadTarget::kSplice : ReadTarget::kUser));
      break;
    case OpKind::kFileWrite:
      set_result(t, co_await ksys_write(t, op.file, op.offset, op.len, op.continues_call));
      break;
    case OpKind::kFsync:
      set_result(t, co_await do_fsync(t, op.file));
      break;
    case OpKind::kFileTruncate:
      set_result(t, co_await do_truncate(t, op.file, op.offset, op.len));
      break;
    case OpKind::kContigAlloc:
      set_result(t, co_await cma_alloc(t, op.handle, op.len));
      break;
    case OpKind::kContigFree:
      set_result(t, co_await cma_release(t, op.handle));
      break;
    case OpKind::kSyscallFailed:
      // The checks that refuse a call (an occupied MAP_FIXED_NOREPLACE range, a missing path)
      // are short beside the entry and exit: the recorded failure replays as those.
      t.work(t.sim().costs().syscall_entry);
      t.last_result = -op.advice;
      break;
    case OpKind::kFutexWake:
      co_await futex_wake(t, op.handle, op.flags);
      break;
    case OpKind::kFutexWait:
      co_await futex_wait(t, op.handle, op.duration);
      break;
    case OpKind::kWaitChild:
      co_await do_wait(t, op.child, op.duration, (op.flags & kWaitAnyChild) != 0);
      break;
    case OpKind::kClone: {
      // Named, not a temporary inside the conditional: GCC 12 at -O1 with ASan otherwise warns
      // that the co_await result may be used uninitialized (-Wmaybe-uninitialized).
      bool started = false;
      started = co_await do_clone(t, op.child);
      t.last_result = started ? static_cast<int64_t>(op.child) : 0;
      break;
    }
  }
  co_return true;
}

Co<void> run_body(Task& t, Co<void> body) {
  co_await body;
  co_await do_exit(t);
}

Co<void> run_thread(Task& t, std::unique_ptr<OpSource> source) {
  Op op;
  while (source->next(op)) {
    const SimTime start = t.clock();
    bool go_on = true;
    // A recorded event is most often a think gap and a page fault: those two run from here, not
    // through do_op()'s frame (150-190 instructions a frame, sim/co.h). The same calls as do_op().
    if (op.kind == OpKind::kThink) {
      co_await do_think(t, op.duration);
    } else if (op.kind == OpKind::kPageFault) {
      t.last_result = fault_errno(co_await fault_of(t, op));
    } else {
      go_on = co_await do_op(t, op);
    }
    t.sim().stats().record_op(op.kind, t.clock() - start);
    if (!go_on || t.oom_killed) break;
  }
  co_await do_exit(t);
}

}  // namespace mmreplay::kernelsim
