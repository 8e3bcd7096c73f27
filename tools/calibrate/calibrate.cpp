#include "tools/calibrate/calibrate.h"

#include <fmt/format.h>
#include <unistd.h>

#include <ctime>

#include "tools/calibrate/proc_counters.h"
#include "tools/calibrate/sample_stats.h"

namespace mmreplay::tools::calibrate {
namespace {

std::string today_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "unknown-host";
  return buf;
}

}  // namespace

Status run_calibration(const CalibrationOptions& o, std::ostream* progress, Calibration* out) {
  const uint64_t start = now_ns();
  const ProbeOptions po{o.quick};
  Calibration& c = *out;
  c = Calibration();
  auto add = [&](Figure f) {
    if (progress != nullptr) *progress << "  measured " << f.key << "\n" << std::flush;
    c.figures.push_back(std::move(f));
  };
  add(probe_syscall(po));
  add(probe_anon_fault(po));
  add(probe_anon_fault_fresh(po));
  for (Figure& f : probe_anon_fault_reuse(po)) add(std::move(f));
  add(probe_populate(po));
  add(probe_file_fault(po));
  add(probe_madvise_dontneed(po));
  add(probe_pte_ad_update(po));
  for (Figure& f : probe_munmap(po)) add(std::move(f));
  for (Figure& f : probe_mmap_munmap(po)) add(std::move(f));
  add(probe_mremap_expand(po));
  for (Figure& f : probe_mremap_move(po)) add(std::move(f));
  for (Figure& f : probe_cached_read(po)) add(std::move(f));
  for (Figure& f : probe_cold_read(po)) add(std::move(f));
  add(probe_cold_random_read(po));
  for (Figure& f : probe_fdatasync(po)) add(std::move(f));
  for (Figure& f : probe_truncate(po)) add(std::move(f));
  for (Figure& f : probe_kernel_fault(po)) add(std::move(f));
  for (Figure& f : probe_fork(po)) add(std::move(f));
  for (Figure& f : probe_mprotect(po)) add(std::move(f));
  add(probe_tlb_shootdown(po));
  for (Figure& f : probe_wake_ipi(po)) add(std::move(f));
  for (Figure& f : probe_context_switch(po)) add(std::move(f));
  for (Figure& f : probe_pipe_rw(po)) add(std::move(f));
  add(probe_socket_rw(po));
  add(probe_socket_stream_remote(po));
  add(probe_wakeup(po));
  for (Figure& f : probe_deep_idle(po)) add(std::move(f));
  for (Figure& f : probe_swap_in(po)) add(std::move(f));
  for (Figure& f : probe_zram(po)) add(std::move(f));
  const std::string stamp = fmt::format("calibrate {} {}", o.date.empty() ? today_utc() : o.date,
                                        o.host.empty() ? host_name() : o.host);
  c.profile = fit_profile(c.figures, stamp, &c.notes);
  if (o.throughput && !o.quick) {
    const int cpus = allowed_cpus();
    if (progress != nullptr) *progress << "  throughput loops at 1 and " << cpus << " CPUs\n";
    c.load_before = read_load1();
    c.realtime = o.throughput_options.realtime;
    const ThroughputOptions& loops = o.throughput_options;
    if (Status s = check_host(loops, cpus, true, progress, &c.capacity_before); !s) return s;
    if (Status s = measure_native(loops, cpus, progress, &c.native); !s) return s;
    if (!c.native.empty()) {
      HostDrift drift;
      if (Status s = measure_drift(loops, c.native, &drift); !s) return s;
      c.drift = drift;
    }
    if (Status s = check_host(loops, cpus, false, progress, &c.capacity_after); !s) return s;
    c.load_after = read_load1();
    if (progress != nullptr) *progress << "  fitting the loops' throughput\n" << std::flush;
    ThroughputFit fit;
    if (Status s = fit_throughput(c.profile.costs, c.native, static_cast<uint32_t>(cpus), &fit);
        !s) {
      return s;
    }
    apply_throughput_fit(fit, stamp, &c.profile);
    c.throughput = std::move(fit);
  }
  if (o.reclaim) {
    ReclaimFit fit;
    if (Status s = fit_reclaim(c.profile.costs, progress, &fit); !s) return s;
    if (fit.skip_reason.empty()) apply_reclaim_fit(fit, stamp, &c.profile);
    c.reclaim = std::move(fit);
  }
  c.elapsed_s = static_cast<double>(now_ns() - start) / kNsPerSecond;
  return Status::ok();
}

void apply_throughput_fit(const ThroughputFit& fit, const std::string& stamp,
                          replay::CostProfileFile* p) {
  const std::vector<CostGroup>& groups = throughput_groups();
  for (size_t g = 0; g < groups.size(); ++g) {
    for (std::string_view name : groups[g].fields) {
      const kernelsim::CostField* f = kernelsim::find_cost_field(name);
      const int64_t before = (p->costs.*f->member).count_ns();
      p->costs.*f->member = fit.costs.*f->member;
      std::string& source = p->sources[std::string(name)];
      const std::string was =
          source.starts_with("calibrate ") ? "the probes' value" : "the default profile's value";
      source = fmt::format(
          "{} throughput fit: group {} x{:.3f} of {} ns ({}), least squares over the loops' "
          "ops/s and IPIs at 1 and all CPUs; before it: {}",
          stamp, groups[g].name, fit.multipliers[g], before, was, source);
    }
  }
}

bool is_calibrated(const replay::CostProfileFile& p, std::string_view name) {
  const auto it = p.sources.find(std::string(name));
  return it != p.sources.end() && it->second.starts_with("calibrate ");
}

void print_calibration(const Calibration& c, std::ostream& out) {
  out << fmt::format("{:<21} {:>10} {:>17} {:>4}  {}\n", "figure", "median ns", "p10..p90 ns", "n",
                     "what (per unit) / note");
  for (const Figure& f : c.figures) {
    if (!f.measured) {
      out << fmt::format("{:<21} {:>10} {:>17} {:>4}  {}: {}\n", f.key, "-", "-", "-", f.what,
                         f.note);
      continue;
    }
    out << fmt::format("{:<21} {:>10.0f} {:>17} {:>4}  {} (per {}){}\n", f.key, f.ns.median,
                       fmt::format("{:.0f}..{:.0f}", f.ns.p10, f.ns.p90), f.ns.samples, f.what,
                       f.unit, f.note.empty() ? "" : "; " + f.note);
  }
  const kernelsim::CostProfile def = kernelsim::cost_profile_default();
  out << fmt::format("\n{:<21} {:>10} {:>10}\n", "profile field", "ns", "default");
  for (const kernelsim::CostField& f : kernelsim::cost_fields()) {
    if (!is_calibrated(c.profile, f.name)) continue;
    out << fmt::format("{:<21} {:>10} {:>10}\n", f.name, (c.profile.costs.*f.member).count_ns(),
                       (def.*f.member).count_ns());
  }
  for (const kernelsim::CostSizeField& f : kernelsim::cost_size_fields()) {
    if (!is_calibrated(c.profile, f.name)) continue;
    out << fmt::format("{:<21} {:>10} {:>10}  ({})\n", f.name, c.profile.costs.*f.member,
                       def.*f.member, f.unit);
  }
  for (const std::string& n : c.notes) out << "note: " << n << "\n";
  if (c.throughput) {
    const ThroughputFit& t = *c.throughput;
    out << "\nthroughput fit: multipliers of the probes' values";
    const std::vector<CostGroup>& groups = throughput_groups();
    for (size_t g = 0; g < groups.size(); ++g) {
      out << fmt::format(" {}={:.3f}", groups[g].name, t.multipliers[g]);
    }
    auto load = [](const std::optional<double>& l) {
      return l ? fmt::format("{:.2f}", *l) : std::string("unknown");
    };
    const bool cpu = !c.native.empty() && c.native.front().clock == LoopClock::kCpu;
    out << fmt::format("\nloops on the {} clock{}; load average {} before them, {} after",
                       cpu ? "workers' CPU" : "wall", c.realtime ? " (workers SCHED_FIFO)" : "",
                       load(c.load_before), load(c.load_after));
    out << "\n" << remote_flush_note(remote_flush_method(c.native));
    out << fmt::format(
        "\nsum of squared relative errors {:.4f} -> {:.4f} ({} iterations) -> {:.4f} (a pattern "
        "search's {} moves); {} model evaluations\nbefore the fit:\n",
        t.solver.start_cost, t.solver.lm_cost, t.solver.iterations, t.solver.cost,
        t.solver.polish_moves, t.solver.evaluations);
    print_comparison(t.before, out);
    out << "after the fit:\n";
    print_comparison(t.after, out);
    if (c.drift) out << drift_note(*c.drift) << "\n";
    if (c.capacity_before)
      out << host_capacity_note(*c.capacity_before, "before the loops") << "\n";
    if (c.capacity_after) out << host_capacity_note(*c.capacity_after, "after them") << "\n";
  }
  if (c.reclaim) print_reclaim_fit(*c.reclaim, out);
  out << fmt::format("other fields: the default profile's. calibrate took {:.1f} s\n", c.elapsed_s);
}

}  // namespace mmreplay::tools::calibrate
