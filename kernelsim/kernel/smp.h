// Cross-CPU function calls (kernel/smp.c): smp_call_function_many() with wait=1, as the bh_lru
// invalidation of fs/bh_invalidate.h sends them.
//
// Delivery is the shootdown IPI model of arch/x86/tlb.cpp (native_flush_tlb_multi()): the sender
// pays ipi_send per target, each handler starts ipi_delivery later (or when the target's previous
// handler ends), costs ipi_handler_entry plus what `func` returns, and is stolen from the task
// running there; the sender spins until the last ack (one cacheline_transfer after the handler).
// Only the handler differs from a TLB shootdown, so the figures are the same CostProfile fields.

#pragma once

#include <cstdint>
#include <functional>

#include "kernelsim/sched/cpumask.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

struct Cpu;
class Task;

// Models smp_call_function_many(mask, func, NULL, wait=1) from t's CPU at now() == t.clock():
// runs func(target) in an IPI handler on every CPU of `targets` except t's own, and advances t
// to the last ack. func does the handler's state change and returns its duration beyond
// ipi_handler_entry. Returns the IPIs sent. REQUIRES: called right after a SharedStep.
uint32_t smp_call_function_many_now(Task& t, const CpuMask& targets,
                                    const std::function<SimTime(Cpu&)>& func);

}  // namespace mmreplay::kernelsim
