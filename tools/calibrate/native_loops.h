// Running a throughput loop (throughput_loops.h) on this machine, untraced: `workers` workers
// pinned to the first `workers` allowed CPUs (processes from fork() in process mode, threads
// otherwise), each running rounds until `seconds` have passed on its own clock. Throughput is the
// sum over workers of their operations over their own elapsed time, as will-it-scale sums its
// per-task counters.
//
// Each worker also reads its own CPU time: ops_per_cpu_s is the sum over workers of operations
// per CPU-second, which a machine shared with other work disturbs far less than the wall clock
// (for loops whose workers never sleep; the ping-pong's do), and busy is the workers' CPU time
// over their wall time (near 1 when they had their CPUs to themselves).
//
// IPIs come from the TLB line of /proc/interrupts read before and after (proc_counters.h); they
// count the whole machine, so other work's shootdowns are counted too.

#pragma once

#include <optional>
#include <string>

#include "tools/calibrate/throughput_loops.h"

namespace mmreplay::tools::calibrate {

struct NativeSample {
  bool ok = false;
  std::string error;  // why not, when !ok
  double ops_per_s = 0;
  double ops_per_cpu_s = 0;
  double busy = 0;
  uint64_t ops = 0;
  std::optional<double> ipis_per_op;  // nullopt: /proc/interrupts has no TLB line
};

struct NativeRun {
  double seconds = 0.25;  // per worker, on its own clock
  // Workers run SCHED_FIFO while timed (needs CAP_SYS_NICE; refused otherwise, EPERM): on a
  // machine shared with other work they then have their CPUs to themselves, so the wall clock
  // measures the loop and not the sharing. The kernel's RT throttling
  // (sched_rt_runtime_us, 95% by default) still leaves the other work a share.
  bool realtime = false;
  // The workers run on the allowed CPUs from this one on (an index into them, 0 = the first):
  // one worker on each CPU in turn (host_capacity.h).
  int first_cpu = 0;
};

// REQUIRES: 1 <= workers, run.first_cpu + workers <= allowed_cpus() (the ping-pong: workers is
// its CPU count, 1 or 2).
NativeSample run_native_loop(const ThroughputLoop& loop, int workers, const NativeRun& run);

}  // namespace mmreplay::tools::calibrate
