#include "kernelsim/arch/x86/tlb.h"

#include <algorithm>
#include <cassert>

#include "kernelsim/kernel/smp_ipi.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

SimTime switch_mm_irqs_off(Simulation& sim, Cpu& cpu, Mm* next) {
  Mm* prev = cpu.loaded_mm;
  if (next == nullptr) {
    // A task without an mm borrows the loaded one, like a kernel thread.
    if (prev != nullptr) cpu.is_lazy = true;
    return SimTime::zero();
  }
  if (prev == next) {
    if (!cpu.is_lazy) return SimTime::zero();
    cpu.is_lazy = false;
    // 4.19+: a lazy CPU skipped by flushes catches up now if its tlb_gen is stale.
    if (sim.config().lazy_tlb == LazyTlbMode::kSkip && cpu.loaded_mm_tlb_gen < next->tlb_gen) {
      cpu.loaded_mm_tlb_gen = next->tlb_gen;
      cpu.stlb.flush_all();
      ++cpu.counters.tlb_lazy_flushes;
      return sim.costs().tlb_flush_full;
    }
    return SimTime::zero();
  }
  if (prev != nullptr) prev->cpumask.clear(cpu.id);
  // choose_new_asid() + load_new_mm_cr3(): without PCID the CR3 write drops the old mm's
  // translations; with it the ASID of `next` keeps them unless its tlb_gen moved on.
  cpu.stlb.load_mm(next, next->tlb_gen, cpu.loaded_mm_tlb_gen, sim.config().pcid == PcidMode::kOn);
  cpu.loaded_mm = next;
  cpu.is_lazy = false;
  next->cpumask.set(cpu.id);
  next->ran_on.set(cpu.id);  // 6.14+: set here, cleared only by a flush that finds it elsewhere
  cpu.loaded_mm_tlb_gen = next->tlb_gen;
  return sim.costs().switch_mm;
}

void enter_lazy_tlb(Cpu& cpu) {
  if (cpu.loaded_mm != nullptr) cpu.is_lazy = true;
}

void leave_mm(Simulation& sim, Cpu& cpu) {
  if (cpu.loaded_mm == nullptr) return;
  assert(cpu.loaded_mm->cpumask.test(cpu.id) && "invariant (2)");
  cpu.loaded_mm->cpumask.clear(cpu.id);
  // switch_mm_irqs_off(NULL, &init_mm, NULL): a CR3 write, to init_mm's ASID under PCID.
  cpu.stlb.load_mm(nullptr, 0, cpu.loaded_mm_tlb_gen, sim.config().pcid == PcidMode::kOn);
  cpu.loaded_mm = nullptr;
  cpu.is_lazy = false;
  ++cpu.counters.leave_mm;
}

namespace {

FlushExtent flush_extent(const CostProfile& c, const FlushTlbInfo& info) {
  FlushExtent e;
  e.nr_pages = info.nr_pages();
  e.full = e.nr_pages > tlb_single_page_flush_ceiling;
  e.start_vpn = info.start >> PAGE_SHIFT;
  e.end_vpn = info.end >> PAGE_SHIFT;
  e.cost = e.full ? c.tlb_flush_full : c.tlb_flush_single * static_cast<int64_t>(e.nr_pages);
  return e;
}

// What the flush does to the STLB of a CPU that has `mm` loaded: every entry over the ceiling (a
// full flush), else the range's 4 KiB pages (flush_tlb_func()'s INVLPG loop; at a PMD stride that
// drops every page of the range, more than one INVLPG a stride does). A CPU running another mm
// holds none of mm's translations under its ASID: left alone, as 3.x's flush_tlb_func() returns
// when f->flush_mm is not its active mm.
void flush_stlb(Cpu& cpu, const Mm* mm, const FlushExtent& e) {
  if (cpu.loaded_mm != mm) return;
  if (e.full) {
    cpu.stlb.flush_all();
  } else {
    cpu.stlb.flush_range(e.start_vpn, e.end_vpn);
  }
}

void count_flush(const FlushExtent& e, uint64_t& single, uint64_t& full) {
  if (e.full) {
    ++full;
  } else {
    single += e.nr_pages;
  }
}

constexpr std::string_view kFlushTraceName = "flush_tlb_mm_range";

bool flush_tlb_mm_range_model(Task& t, FlushTlbInfo& info, CsdWait& wait, const FlushTlbStep& step);

// The csd queued for `target` (and its IPI, if one was sent) on the sender's track, and the
// handler on the target's IRQ track.
void trace_shootdown_ipi(TraceSink& ts, uint32_t sender_id, uint32_t sender_cpu, SimTime sent_at,
                         uint32_t target, SimTime start, SimTime handler, bool lazy) {
  const int64_t to = target;
  ts.instant(Track::task(sender_id), "csd call_function (TLB shootdown)", TraceCat::kIpi, sent_at,
             {{"target_cpu", to}});
  ts.complete(Track::irq(target), lazy ? "flush_tlb_func (lazy: leave_mm)" : "flush_tlb_func",
              TraceCat::kIpi, start, handler, {{"from_cpu", static_cast<int64_t>(sender_cpu)}});
}

// Models flush_tlb_func() as the IPI handler of the shootdown whose FlushTlbStep is `step`;
// returns its duration (the interrupt's entry is the delivery's: kernel/smp_ipi.h). It brings the
// CPU up to the tlb_gen of the flush when it was sent (a deferred handler runs later).
[[gnu::always_inline]] inline SimTime flush_tlb_func_ipi(const void* step, Cpu& cpu, SimTime start,
                                                         SimTime sent) {
  const auto& flush = *static_cast<const FlushTlbStep*>(step);
  const FlushTlbInfo& info = flush.info();
  const FlushExtent& extent = flush.extent();
  Task& initiator = flush.initiator();
  Simulation& sim = initiator.sim();
  const bool was_lazy = cpu.is_lazy;
  SimTime handler;
  if (was_lazy) {
    leave_mm(sim, cpu);
    handler = sim.costs().switch_mm;
  } else {
    count_flush(extent, cpu.counters.tlb_remote_single, cpu.counters.tlb_remote_full);
    flush_stlb(cpu, info.mm, extent);
    cpu.loaded_mm_tlb_gen = std::max(cpu.loaded_mm_tlb_gen, info.new_tlb_gen);
    handler = extent.cost;
  }
  if (TraceSink* ts = sim.trace()) {
    trace_shootdown_ipi(*ts, initiator.id(), info.initiating_cpu, sent, cpu.id, start, handler,
                        was_lazy);
  }
  return handler;
}

// One target, CPU `id`, of a shootdown from `self`, t's CPU (sim and c are t's, as the caller
// has them): its csd queued (and its IPI sent) `*sent` after `now`, which grows by the send, and
// the IPI counters of both CPUs.
template <IpiHandler Handler>
[[gnu::always_inline]] inline void send_flush_ipi(Task& t, Simulation& sim, const CostProfile& c,
                                                  Cpu& self, uint32_t id, SimTime now,
                                                  const void* info, CsdWait& wait, SimTime* sent) {
  Cpu& target = sim.cpu(id);
  *sent += c.ipi_send;
  const SimTime sent_at = now + *sent;
  if (send_call_function_ipi<Handler>(
          t, target, sent_at, sent_at + sim.topology().ipi_delivery(self.id, id), info, wait)) {
    ++self.counters.ipis_sent;
  }
  ++target.counters.ipis_received;
}

// Models flush_tlb_func() on a CPU that mm_cpumask kept (mm_cpumask=lazy) but that runs another
// mm now: it leaves the mask (TLB_REMOTE_WRONG_CPU) and flushes nothing.
[[gnu::always_inline]] inline SimTime leave_stale_cpumask_ipi(const void* step, Cpu& cpu,
                                                              SimTime /*start*/, SimTime /*sent*/) {
  const auto& flush = *static_cast<const FlushTlbStep*>(step);
  flush.info().mm->ran_on.clear(cpu.id);
  ++cpu.counters.tlb_remote_wrong_cpu;
  return SimTime::zero();
}

// should_trim_cpumask() came due for mm (mm_cpumask=lazy): the CPUs its lazily kept mask holds
// that run another mm, not lazy, are sent the IPI that takes them out. Returns how many. Out of
// line: once a second per mm, kept off the shootdown's hot loop.
[[gnu::noinline]] uint32_t trim_cpumask(Task& t, Mm& mm, const FlushTlbStep& step, CsdWait& wait,
                                        SimTime* sent) {
  Simulation& sim = t.sim();
  Cpu& self = t.cpu();
  const SimTime now = sim.now();
  mm.next_trim_cpumask = now + SimTime::ns(MM_CPUMASK_TRIM_INTERVAL_NS);
  uint32_t trimmed = 0;
  mm.ran_on.for_each([&](uint32_t id) {
    Cpu& target = sim.cpu(id);
    if (id == self.id || mm.cpumask.test(id) || target.is_lazy) return;
    ++trimmed;
    send_flush_ipi<&leave_stale_cpumask_ipi>(t, sim, sim.costs(), self, id, now, &step, wait, sent);
  });
  return trimmed;
}

// Models native_flush_tlb_multi(): IPIs to the other CPUs of the mm, acked into `wait`; returns
// the time spent sending. The handlers read `info` from `step`, whose it is. Under
// mm_cpumask=lazy the mask also holds CPUs that ran the mm and run another now: should_flush_tlb()
// leaves them out but once a second (should_trim_cpumask()), when they are sent the IPI that takes
// them out of the mask.
SimTime flush_tlb_multi(Task& t, const FlushTlbInfo& info, CsdWait& wait,
                        const FlushTlbStep& step) {
  Simulation& sim = t.sim();
  Cpu& self = t.cpu();
  const CostProfile& c = sim.costs();
  const SimTime now = sim.now();
  const bool freed = info.freed_tables;
  SimTime sent = SimTime::zero();
  uint32_t expected = 0;
  Mm& mm = *info.mm;
  // Sent first, before any handler of the flush itself can take a CPU out of mm's cpumask
  // (leave_mm()) and so make it look stale too.
  if (sim.config().mm_cpumask == MmCpumaskMode::kLazy && now >= mm.next_trim_cpumask)
    expected += trim_cpumask(t, mm, step, wait, &sent);
  mm.cpumask.for_each([&](uint32_t id) {
    if (id == self.id) return;
    Cpu& target = sim.cpu(id);
    if (target.is_lazy && sim.config().lazy_tlb == LazyTlbMode::kSkip && !freed) return;
    ++expected;
    // send_flush_ipi() written out: this loop is a 64-CPU shootdown's hot path, and the helper
    // cost its one-page madvise benchmark 0.3% more host instructions.
    sent += c.ipi_send;
    const SimTime sent_at = now + sent;
    if (send_call_function_ipi<&flush_tlb_func_ipi>(
            t, target, sent_at, sent_at + sim.topology().ipi_delivery(self.id, id), &step, wait)) {
      ++self.counters.ipis_sent;
    }
    ++target.counters.ipis_received;
  });
  if (expected > 0) ++sim.vm().nr_tlb_shootdowns;
  return sent;
}

// Models a paravirt flush_tlb_multi() (pv_ops.mmu.flush_tlb_multi), after Hyper-V's
// hyperv_flush_tlb_multi() (arch/x86/hyperv/mmu.c); Xen's xen_flush_tlb_multi() and a PVM
// guest's PVM_HC_FLUSH_TLB_MULTI replace the IPIs alike. flush_tlb_mm_range() calls it when any
// CPU but this one is in mm_cpumask; it names every CPU of the mask, this one included, but lazy
// ones when no page table was freed (do_lazy && cpu_is_lazy(): the same skip as the native
// should_flush_tlb()), and one hypercall has the host invalidate them. No IPI reaches the guest
// and no handler runs there, so nothing leaves the mm and no CPU's cpu_tlbstate tlb_gen moves: a
// lazy CPU returning to the mm still flushes (switch_mm_irqs_off()). Returns the vCPUs named.
uint32_t flush_tlb_multi_pv(Simulation& sim, const Cpu& self, const FlushTlbInfo& info,
                            const FlushExtent& e) {
  uint32_t named = 0;
  info.mm->cpumask.for_each([&](uint32_t id) {
    Cpu& target = sim.cpu(id);
    if (id != self.id) {
      if (target.is_lazy && sim.config().lazy_tlb == LazyTlbMode::kSkip && !info.freed_tables) {
        return;
      }
      ++target.counters.tlb_pv_remote;
    }
    flush_stlb(target, info.mm, e);  // the host invalidates the vCPU's translations
    ++named;
  });
  if (named > 0) ++sim.vm().nr_tlb_pv_flushes;
  return named;
}

}  // namespace

bool FlushTlbStep::run_now() {
  TraceSink* ts = task_.sim().trace();
  if (ts != nullptr)
    ts->begin(Track::task(task_.id()), kFlushTraceName, TraceCat::kTlb, task_.clock());
  extent_ = flush_extent(task_.sim().costs(), info_);
  return flush_tlb_mm_range_model(task_, info_, wait_, *this);
}

namespace {

// The flush itself; FlushTlbStep `step` wraps it in the tlb_flush tracepoint's slice. Returns
// false when t parked in csd_lock_wait() for a deferred handler.
bool flush_tlb_mm_range_model(Task& t, FlushTlbInfo& info, CsdWait& wait,
                              const FlushTlbStep& step) {
  assert(info.mm != nullptr && info.start < info.end);
  const FlushExtent& e = step.extent();
  Simulation& sim = t.sim();
  const CostProfile& c = sim.costs();
  Cpu& self = t.cpu();
  Mm& mm = *info.mm;
  ++sim.vm().nr_tlb_flush_calls;
  ++mm.tlb_gen;
  info.new_tlb_gen = mm.tlb_gen;  // get_flush_tlb_info()
  info.initiating_cpu = self.id;
  const SimTime now = sim.now();
  const bool local = self.loaded_mm == &mm;
  const uint32_t task_id = t.id();
  auto end_slice = [&sim, task_id](SimTime at) {
    if (TraceSink* ts = sim.trace())
      ts->end(Track::task(task_id), kFlushTraceName, TraceCat::kTlb, at);
  };
  if (sim.config().tlb == TlbFlushMethod::kBroadcast) {
    // INVLPGB invalidates every CPU's TLB, this one's included; TLBSYNC waits for completion.
    const SimTime cost =
        e.full ? c.invlpgb_full : c.invlpgb_per_page * static_cast<int64_t>(e.nr_pages);
    ++sim.vm().nr_tlb_broadcast;
    // The translations of the mm go on every CPU that has it loaded, this one and lazy ones
    // included, and each is then up to date with its tlb_gen (6.15+: a global ASID is always up
    // to date, so a switch back to the mm flushes nothing). CPUs that ran it earlier keep their
    // stale ASID until a switch back flushes it (tlb_gen).
    mm.cpumask.for_each([&](uint32_t id) {
      Cpu& c = sim.cpu(id);
      flush_stlb(c, &mm, e);
      if (c.loaded_mm == &mm) c.loaded_mm_tlb_gen = mm.tlb_gen;
    });
    t.advance_to(now + c.tlb_flush_overhead + cost + c.tlbsync);
    end_slice(t.clock());
    return true;
  }
  const CpuMask& mask = mm.cpumask;
  const bool others = mask.any_but(self.id);  // cpumask_any_but()
  if (sim.config().tlb == TlbFlushMethod::kParavirt && others) {
    // The host flushes the range on every vCPU named, this one included, in parallel.
    SimTime end = now + c.tlb_flush_overhead;
    if (flush_tlb_multi_pv(sim, self, info, e) > 0) end += c.pv_flush_tlb_multi + e.cost;
    t.advance_to(end);
    end_slice(t.clock());
    return true;
  }
  const SimTime sent = flush_tlb_multi(t, info, wait, step);
  SimTime local_end = now + c.tlb_flush_overhead + sent;
  if (local) {
    count_flush(e, self.counters.tlb_local_single, self.counters.tlb_local_full);
    flush_stlb(self, &mm, e);
    self.loaded_mm_tlb_gen = mm.tlb_gen;
    local_end += e.cost;
  }
  // The local flush runs while the handlers do (5.12+); then csd_lock_wait() for every ack.
  return wait.wait(local_end, end_slice);
}

}  // namespace

namespace {

// TLB_FLUSH_ALL of whatever mm `cpu` runs (not lazy), which is then current: the batch flush's
// work on each CPU it reaches, its own included.
void flush_loaded_mm_fully(Cpu& cpu, const FlushExtent& full) {
  flush_stlb(cpu, cpu.loaded_mm, full);
  cpu.loaded_mm_tlb_gen = cpu.loaded_mm->tlb_gen;
}

// Models flush_tlb_func() for arch_tlbbatch_flush()'s flush_tlb_info (no mm, TLB_FLUSH_ALL): the
// whole TLB of the mm this CPU runs. A lazy CPU reached (lazy_tlb=leave_mm) leaves its mm.
[[gnu::always_inline]] inline SimTime flush_tlb_all_ipi(const void* step, Cpu& cpu, SimTime start,
                                                        SimTime sent) {
  const auto& flush = *static_cast<const TlbBatchFlushStep*>(step);
  Task& initiator = flush.initiator();
  Simulation& sim = initiator.sim();
  const bool was_lazy = cpu.is_lazy;
  SimTime handler = SimTime::zero();
  if (was_lazy) {
    leave_mm(sim, cpu);
    handler = sim.costs().switch_mm;
  } else if (cpu.loaded_mm != nullptr) {
    ++cpu.counters.tlb_remote_full;
    flush_loaded_mm_fully(cpu, flush.extent());
    handler = flush.extent().cost;
  }
  if (TraceSink* ts = sim.trace()) {
    trace_shootdown_ipi(*ts, initiator.id(), initiator.cpu().id, sent, cpu.id, start, handler,
                        was_lazy);
  }
  return handler;
}

}  // namespace

TlbBatchFlushStep::TlbBatchFlushStep(Task& t, const CpuMask& targets)
    : SharedStep(t), targets_(targets), wait_(t) {
  full_.full = true;
  full_.cost = t.sim().costs().tlb_flush_full;
}

bool TlbBatchFlushStep::run_now() {
  Simulation& sim = task_.sim();
  const CostProfile& c = sim.costs();
  Cpu& self = task_.cpu();
  const SimTime now = sim.now();
  const uint32_t task_id = task_.id();
  TraceSink* ts = sim.trace();
  if (ts != nullptr) ts->begin(Track::task(task_id), kFlushTraceName, TraceCat::kTlb, now);
  ++sim.vm().nr_tlb_flush_calls;
  SimTime sent = SimTime::zero();
  uint32_t expected = 0;
  targets_.for_each([&](uint32_t id) {
    if (id == self.id) return;
    Cpu& target = sim.cpu(id);
    // should_flush_tlb(): a lazy CPU flushes when it next switches to an mm (tlb_gen).
    if (target.is_lazy && sim.config().lazy_tlb == LazyTlbMode::kSkip) return;
    ++expected;
    send_flush_ipi<&flush_tlb_all_ipi>(task_, sim, c, self, id, now, this, wait_, &sent);
  });
  if (expected > 0) ++sim.vm().nr_tlb_shootdowns;
  SimTime local_end = now + c.tlb_flush_overhead + sent;
  if (targets_.test(self.id) && self.loaded_mm != nullptr && !self.is_lazy) {
    ++self.counters.tlb_local_full;
    flush_loaded_mm_fully(self, full_);
    local_end += full_.cost;
  }
  return wait_.wait(local_end, [&sim, task_id](SimTime at) {
    if (TraceSink* sink = sim.trace())
      sink->end(Track::task(task_id), kFlushTraceName, TraceCat::kTlb, at);
  });
}

}  // namespace mmreplay::kernelsim
