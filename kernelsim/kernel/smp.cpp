#include "kernelsim/kernel/smp.h"

#include <cassert>

#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

// Models kernel/smp.c: smp_call_function_many() (wait=1); the delivery mirrors
// arch/x86/tlb.cpp flush_tlb_multi().
uint32_t smp_call_function_many_now(Task& t, const CpuMask& targets,
                                    const std::function<SimTime(Cpu&)>& func) {
  Simulation& sim = t.sim();
  const CostProfile& c = sim.costs();
  assert(sim.now() == t.clock() && "call right after a SharedStep");
  const SimTime now = sim.now();
  Cpu& self = t.cpu();
  SimTime sent = SimTime::zero();
  SimTime last_ack = now;
  uint32_t nr = 0;
  targets.for_each([&](uint32_t id) {
    if (id == self.id) return;
    Cpu& target = sim.cpu(id);
    sent += c.ipi_send;
    const SimTime start = max(now + sent + c.ipi_delivery, target.irq_busy_until);
    const SimTime handler = c.ipi_handler_entry + func(target);
    target.irq_busy_until = start + handler;
    if (target.curr != nullptr) target.pending_steal += handler;
    target.counters.irq_ns += static_cast<uint64_t>(handler.count_ns());
    last_ack = max(last_ack, target.irq_busy_until + c.cacheline_transfer);
    ++nr;
  });
  t.advance_to(max(now + sent, last_ack));
  return nr;
}

}  // namespace mmreplay::kernelsim
