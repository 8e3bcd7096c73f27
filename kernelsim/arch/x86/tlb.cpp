#include "kernelsim/arch/x86/tlb.h"

#include <algorithm>
#include <cassert>

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

SimTime flush_cost(const CostProfile& c, uint64_t nr_pages) {
  return nr_pages > tlb_single_page_flush_ceiling
             ? c.tlb_flush_full
             : c.tlb_flush_single * static_cast<int64_t>(nr_pages);
}

// What the flush of `info` does to the STLB of a CPU that has info.mm loaded: every entry over
// the ceiling (a full flush), else the range's 4 KiB pages (flush_tlb_func()'s INVLPG loop; at a
// PMD stride that drops every page of the range, more than one INVLPG a stride does). A CPU
// running another mm holds none of info.mm's translations under its ASID: left alone, as 3.x's
// flush_tlb_func() returns when f->flush_mm is not its active mm.
void flush_stlb(Cpu& cpu, const FlushTlbInfo& info) {
  if (cpu.loaded_mm != info.mm) return;
  if (info.nr_pages() > tlb_single_page_flush_ceiling) {
    cpu.stlb.flush_all();
  } else {
    cpu.stlb.flush_range(info.start >> PAGE_SHIFT, info.end >> PAGE_SHIFT);
  }
}

void count_flush(uint64_t nr_pages, uint64_t& single, uint64_t& full) {
  if (nr_pages > tlb_single_page_flush_ceiling) {
    ++full;
  } else {
    single += nr_pages;
  }
}

constexpr std::string_view kFlushTraceName = "flush_tlb_mm_range";

bool flush_tlb_mm_range_model(Task& t, FlushTlbInfo& info, CsdWait& wait, const FlushTlbStep& step);

// ipi_send_cpu on the sender's track and the handler on the target's IRQ track.
void trace_shootdown_ipi(TraceSink& ts, uint32_t sender_id, uint32_t sender_cpu, SimTime sent_at,
                         uint32_t target, SimTime start, SimTime handler, bool lazy) {
  const int64_t to = target;
  ts.instant(Track::task(sender_id), "IPI call_function (TLB shootdown)", TraceCat::kIpi, sent_at,
             {{"target_cpu", to}});
  ts.complete(Track::irq(target), lazy ? "flush_tlb_func (lazy: leave_mm)" : "flush_tlb_func",
              TraceCat::kIpi, start, handler, {{"from_cpu", static_cast<int64_t>(sender_cpu)}});
}

// Models flush_tlb_func() run in an IPI handler on `target`; returns its duration (the
// interrupt's entry is the delivery's: kernel/smp.cpp).
// `tlb_gen` is mm->tlb_gen when the flush was sent (a deferred handler runs later).
SimTime flush_tlb_func_remote(Simulation& sim, Cpu& target, const FlushTlbInfo& info,
                              uint64_t tlb_gen) {
  const CostProfile& c = sim.costs();
  if (target.is_lazy) {
    leave_mm(sim, target);
    return c.switch_mm;
  }
  count_flush(info.nr_pages(), target.counters.tlb_remote_single, target.counters.tlb_remote_full);
  flush_stlb(target, info);
  target.loaded_mm_tlb_gen = std::max(target.loaded_mm_tlb_gen, tlb_gen);
  return flush_cost(c, info.nr_pages());
}

// Models flush_tlb_func() as the IPI handler of the shootdown whose FlushTlbStep is `step`.
SimTime flush_tlb_func_ipi(const void* step, Cpu& cpu, SimTime start, SimTime sent) {
  const auto& flush = *static_cast<const FlushTlbStep*>(step);
  const FlushTlbInfo& info = flush.info();
  Task& initiator = flush.initiator();
  Simulation& sim = initiator.sim();
  const bool was_lazy = cpu.is_lazy;
  const SimTime handler = flush_tlb_func_remote(sim, cpu, info, info.new_tlb_gen);
  if (TraceSink* ts = sim.trace()) {
    trace_shootdown_ipi(*ts, initiator.id(), info.initiating_cpu, sent, cpu.id, start, handler,
                        was_lazy);
  }
  return handler;
}

// Models native_flush_tlb_multi(): IPIs to the other CPUs of the mm, acked into `wait`; returns
// the time spent sending. The handlers read `info` from `step`, whose it is.
SimTime flush_tlb_multi(Task& t, const FlushTlbInfo& info, CsdWait& wait,
                        const FlushTlbStep& step) {
  Simulation& sim = t.sim();
  Cpu& self = t.cpu();
  const CostProfile& c = sim.costs();
  const SimTime now = sim.now();
  const bool freed = info.freed_tables;
  SimTime sent = SimTime::zero();
  uint32_t expected = 0;
  info.mm->cpumask.for_each([&](uint32_t id) {
    if (id == self.id) return;
    Cpu& target = sim.cpu(id);
    if (target.is_lazy && sim.config().lazy_tlb == LazyTlbMode::kSkip && !freed) return;
    ++expected;
    sent += c.ipi_send;
    const SimTime sent_at = now + sent;
    send_call_function_ipi(t, target, sent_at, sent_at + sim.topology().ipi_delivery(self.id, id),
                           &flush_tlb_func_ipi, &step, wait);
    ++target.counters.ipis_received;
    ++self.counters.ipis_sent;
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
uint32_t flush_tlb_multi_pv(Simulation& sim, const Cpu& self, const FlushTlbInfo& info) {
  uint32_t named = 0;
  info.mm->cpumask.for_each([&](uint32_t id) {
    Cpu& target = sim.cpu(id);
    if (id != self.id) {
      if (target.is_lazy && sim.config().lazy_tlb == LazyTlbMode::kSkip && !info.freed_tables) {
        return;
      }
      ++target.counters.tlb_pv_remote;
    }
    flush_stlb(target, info);  // the host invalidates the vCPU's translations
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
  return flush_tlb_mm_range_model(task_, info_, wait_, *this);
}

namespace {

// The flush itself; FlushTlbStep `step` wraps it in the tlb_flush tracepoint's slice. Returns
// false when t parked in csd_lock_wait() for a deferred handler.
bool flush_tlb_mm_range_model(Task& t, FlushTlbInfo& info, CsdWait& wait,
                              const FlushTlbStep& step) {
  assert(info.mm != nullptr && info.start < info.end);
  Simulation& sim = t.sim();
  const CostProfile& c = sim.costs();
  Cpu& self = t.cpu();
  Mm& mm = *info.mm;
  const uint64_t nr = info.nr_pages();
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
    const SimTime cost = nr > tlb_single_page_flush_ceiling
                             ? c.invlpgb_full
                             : c.invlpgb_per_page * static_cast<int64_t>(nr);
    ++sim.vm().nr_tlb_broadcast;
    // The translations of the mm go on every CPU that has it loaded, this one and lazy ones
    // included, and each is then up to date with its tlb_gen (6.15+: a global ASID is always up
    // to date, so a switch back to the mm flushes nothing). CPUs that ran it earlier keep their
    // stale ASID until a switch back flushes it (tlb_gen).
    mm.cpumask.for_each([&](uint32_t id) {
      Cpu& c = sim.cpu(id);
      flush_stlb(c, info);
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
    if (flush_tlb_multi_pv(sim, self, info) > 0) end += c.pv_flush_tlb_multi + flush_cost(c, nr);
    t.advance_to(end);
    end_slice(t.clock());
    return true;
  }
  const SimTime sent = flush_tlb_multi(t, info, wait, step);
  SimTime local_end = now + c.tlb_flush_overhead + sent;
  if (local) {
    count_flush(nr, self.counters.tlb_local_single, self.counters.tlb_local_full);
    flush_stlb(self, info);
    self.loaded_mm_tlb_gen = mm.tlb_gen;
    local_end += flush_cost(c, nr);
  }
  // The local flush runs while the handlers do (5.12+); then csd_lock_wait() for every ack.
  return wait.wait(local_end, end_slice);
}

}  // namespace

}  // namespace mmreplay::kernelsim
