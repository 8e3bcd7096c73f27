#include "kernelsim/arch/x86/tlb.h"

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
      ++cpu.counters.tlb_lazy_flushes;
      return sim.costs().tlb_flush_full;
    }
    return SimTime::zero();
  }
  if (prev != nullptr) prev->cpumask.clear(cpu.id);
  cpu.loaded_mm = next;
  cpu.is_lazy = false;
  next->cpumask.set(cpu.id);
  cpu.loaded_mm_tlb_gen = next->tlb_gen;
  return sim.costs().switch_mm;
}

void enter_lazy_tlb(Cpu& cpu) {
  if (cpu.loaded_mm != nullptr) cpu.is_lazy = true;
}

void leave_mm(Cpu& cpu) {
  if (cpu.loaded_mm == nullptr) return;
  assert(cpu.loaded_mm->cpumask.test(cpu.id) && "invariant (2)");
  cpu.loaded_mm->cpumask.clear(cpu.id);
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

void count_flush(uint64_t nr_pages, uint64_t& single, uint64_t& full) {
  if (nr_pages > tlb_single_page_flush_ceiling) {
    ++full;
  } else {
    single += nr_pages;
  }
}

constexpr std::string_view kFlushTraceName = "flush_tlb_mm_range";

// ipi_send_cpu on the sender's track and the handler on the target's IRQ track.
void trace_shootdown_ipi(TraceSink& ts, const Task& sender, SimTime sent_at, uint32_t target,
                         SimTime start, SimTime handler, bool lazy) {
  const int64_t to = target;
  ts.instant(Track::task(sender.id()), "IPI call_function (TLB shootdown)", TraceCat::kIpi, sent_at,
             {{"target_cpu", to}});
  ts.complete(Track::irq(target), lazy ? "flush_tlb_func (lazy: leave_mm)" : "flush_tlb_func",
              TraceCat::kIpi, start, handler,
              {{"from_cpu", static_cast<int64_t>(sender.cpu().id)}});
}

void flush_tlb_mm_range_model(Task& t, const FlushTlbInfo& info);

// Models flush_tlb_func() run in an IPI handler on `target`; returns the handler's duration.
SimTime flush_tlb_func_remote(Simulation& sim, Cpu& target, const FlushTlbInfo& info) {
  const CostProfile& c = sim.costs();
  if (target.is_lazy) {
    leave_mm(target);
    return c.ipi_handler_entry + c.switch_mm;
  }
  count_flush(info.nr_pages(), target.counters.tlb_remote_single, target.counters.tlb_remote_full);
  target.loaded_mm_tlb_gen = info.mm->tlb_gen;
  return c.ipi_handler_entry + flush_cost(c, info.nr_pages());
}

// Models native_flush_tlb_multi(): IPIs to the other CPUs of the mm; returns the last ack time
// (or `now` when nothing was sent) and the time spent sending.
SimTime flush_tlb_multi(Task& t, const FlushTlbInfo& info, SimTime* send_time) {
  Simulation& sim = t.sim();
  Cpu& self = t.cpu();
  const CostProfile& c = sim.costs();
  const SimTime now = sim.now();
  const bool freed = info.freed_tables;
  SimTime sent = SimTime::zero();
  SimTime last_ack = now;
  uint32_t expected = 0;
  uint32_t acked = 0;
  info.mm->cpumask.for_each([&](uint32_t id) {
    if (id == self.id) return;
    Cpu& target = sim.cpu(id);
    if (target.is_lazy && sim.config().lazy_tlb == LazyTlbMode::kSkip && !freed) return;
    ++expected;
    sent += c.ipi_send;
    const SimTime start = max(now + sent + c.ipi_delivery, target.irq_busy_until);
    const bool was_lazy = target.is_lazy;
    const SimTime handler = flush_tlb_func_remote(sim, target, info);
    if (TraceSink* ts = sim.trace())
      trace_shootdown_ipi(*ts, t, now + sent, target.id, start, handler, was_lazy);
    target.irq_busy_until = start + handler;
    if (target.curr != nullptr) target.pending_steal += handler;
    target.counters.irq_ns += static_cast<uint64_t>(handler.count_ns());
    ++target.counters.ipis_received;
    ++self.counters.ipis_sent;
    last_ack = max(last_ack, target.irq_busy_until + c.cacheline_transfer);
    ++acked;
  });
  assert(acked == expected && "invariant (1): initiator must collect every ack");
  if (expected > 0) ++sim.vm().nr_tlb_shootdowns;
  *send_time = sent;
  return last_ack;
}

}  // namespace

void flush_tlb_mm_range_now(Task& t, const FlushTlbInfo& info) {
  TraceSink* ts = t.sim().trace();
  if (ts != nullptr) ts->begin(Track::task(t.id()), kFlushTraceName, TraceCat::kTlb, t.clock());
  flush_tlb_mm_range_model(t, info);
  if (ts != nullptr) ts->end(Track::task(t.id()), kFlushTraceName, TraceCat::kTlb, t.clock());
}

namespace {

// The flush itself; flush_tlb_mm_range_now() wraps it in the tlb_flush tracepoint's slice.
void flush_tlb_mm_range_model(Task& t, const FlushTlbInfo& info) {
  assert(info.mm != nullptr && info.start < info.end);
  Simulation& sim = t.sim();
  const CostProfile& c = sim.costs();
  Cpu& self = t.cpu();
  Mm& mm = *info.mm;
  const uint64_t nr = info.nr_pages();
  ++sim.vm().nr_tlb_flush_calls;
  ++mm.tlb_gen;
  const SimTime now = sim.now();
  const bool local = self.loaded_mm == &mm;
  if (sim.config().tlb == TlbFlushMethod::kBroadcast) {
    // INVLPGB invalidates every CPU's TLB, this one's included; TLBSYNC waits for completion.
    const SimTime cost = nr > tlb_single_page_flush_ceiling
                             ? c.invlpgb_full
                             : c.invlpgb_per_page * static_cast<int64_t>(nr);
    ++sim.vm().nr_tlb_broadcast;
    if (local) self.loaded_mm_tlb_gen = mm.tlb_gen;
    t.advance_to(now + c.tlb_flush_overhead + cost + c.tlbsync);
    return;
  }
  SimTime sent;
  const SimTime last_ack = flush_tlb_multi(t, info, &sent);
  SimTime local_end = now + c.tlb_flush_overhead + sent;
  if (local) {
    count_flush(nr, self.counters.tlb_local_single, self.counters.tlb_local_full);
    self.loaded_mm_tlb_gen = mm.tlb_gen;
    local_end += flush_cost(c, nr);
  }
  t.advance_to(max(local_end, last_ack));
}

}  // namespace

}  // namespace mmreplay::kernelsim
