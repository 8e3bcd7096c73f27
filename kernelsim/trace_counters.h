// The vm counters a timeline plots, sampled into a TraceSink (sim/trace_sink.h).
//
// Simulation::run() calls trace_vm_counters() after an event when the sink's counter_interval()
// has passed since the last sample, and once at the end: a bounded rate, whatever the number of
// page allocations. Sampled: free pages against the zone watermarks (/proc/zoneinfo), the LRU
// list sizes (nr_inactive_anon, nr_active_anon, nr_inactive_file, nr_active_file in
// /proc/vmstat) and swap slots in use (SwapTotal - SwapFree); then every event counter of
// common/counters.h (VmCounters, and CpuCounters summed over the CPUs) as a track of its own,
// named by its results key, once it is not zero.

#pragma once

namespace mmreplay::kernelsim {

class Simulation;
class TraceSink;

// One sample of each counter group at sim.now(). Reads only; changes nothing in the model.
void trace_vm_counters(const Simulation& sim, TraceSink& sink);

}  // namespace mmreplay::kernelsim
