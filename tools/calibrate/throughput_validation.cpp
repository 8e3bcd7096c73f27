#include "tools/calibrate/throughput_validation.h"

#include <fmt/format.h>

#include <cmath>

#include "replay/cost_profile_json.h"
#include "tools/calibrate/host_capacity.h"
#include "tools/calibrate/probes.h"
#include "tools/calibrate/proc_counters.h"

namespace mmreplay::tools::calibrate {

Status run_throughput_validation(const ThroughputValidationOptions& o, std::ostream& out) {
  kernelsim::CostProfile costs;
  if (Status s = replay::resolve_cost_profile(o.profile, &costs); !s) return s;
  const int cpus = allowed_cpus();
  const std::optional<double> load = read_load1();
  out << fmt::format(
      "validate --real --throughput: profile {}, {} CPUs, load average {} at the start; "
      "{:.2f} s per sample on the {} clock{}, up to {} samples until {} agree within {:.0f}%\n",
      o.profile, cpus, load ? fmt::format("{:.2f}", *load) : "unknown", o.loops.seconds,
      o.loops.clock == LoopClock::kCpu ? "workers' CPU" : "wall",
      o.loops.realtime ? " (workers SCHED_FIFO)" : "", o.loops.repeat.max_samples,
      o.loops.repeat.window, 100 * o.loops.repeat.tolerance);
  std::optional<HostCapacity> capacity_before, capacity_after;
  if (Status s = check_host(o.loops, cpus, true, &out, &capacity_before); !s) return s;
  std::vector<NativePoint> native;
  if (Status s = measure_native(o.loops, cpus, nullptr, &native); !s) return s;
  HostDrift drift;
  if (!native.empty()) {
    if (Status s = measure_drift(o.loops, native, &drift); !s) return s;
  }
  if (Status s = check_host(o.loops, cpus, false, &out, &capacity_after); !s) return s;
  std::vector<Comparison> rows;
  if (Status s = predict_points(native, static_cast<uint32_t>(cpus), costs, &rows); !s) return s;
  out << remote_flush_note(remote_flush_method(native)) << "\n";
  print_comparison(rows, out);
  if (!native.empty()) out << drift_note(drift) << "\n";
  if (capacity_before) out << host_capacity_note(*capacity_before, "before the loops") << "\n";
  if (capacity_after) out << host_capacity_note(*capacity_after, "after them") << "\n";
  int off = 0, unsteady = 0;
  for (const Comparison& c : rows) {
    if (std::abs(c.predicted_ops_per_s / c.native->ops_per_s.value - 1) > o.tolerance) ++off;
    if (!c.native->ops_per_s.steady) ++unsteady;
  }
  const std::optional<double> load_after = read_load1();
  out << fmt::format(
      "{} of {} loops predicted within {:.0f}% of native ops/s; {} native figures not steady "
      "(spread = (max - min) / median of the {} closest samples); load average {} at the end{}\n",
      rows.size() - static_cast<size_t>(off), rows.size(), 100 * o.tolerance, unsteady,
      o.loops.repeat.window, load_after ? fmt::format("{:.2f}", *load_after) : "unknown",
      native.empty() || native.front().ipis_per_op ? ""
                                                   : "; /proc/interrupts has no TLB line: no IPIs");
  return Status::ok();
}

}  // namespace mmreplay::tools::calibrate
