#include "tools/calibrate/reclaim_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "replay/policy_spec.h"
#include "replay/running_kernel.h"
#include "tools/calibrate/pressure_sandbox.h"
#include "tools/calibrate/sample_stats.h"

namespace mmreplay::tools::calibrate {
namespace {

constexpr uint64_t kSwapFileBytes = uint64_t{1} << 30;  // made only when no swap is active

// The model's run of both arms under `costs`.
struct ModelPoint {
  int64_t shrink_page_ns = 0;
  int64_t swap_out_page_ns = 0;
  BombFigures arm[2];
};

// Sum over the arms of the squared relative CPU error.
double cost_of(const ModelPoint& m, const BombFigures native[2]) {
  double sum = 0;
  for (int a = 0; a < 2; ++a) {
    const double e = (m.arm[a].cpu_seconds - native[a].cpu_seconds) / native[a].cpu_seconds;
    sum += e * e;
  }
  return sum;
}

bool within_tolerance(const ModelPoint& m, const BombFigures native[2]) {
  for (int a = 0; a < 2; ++a) {
    if (std::abs(m.arm[a].cpu_seconds - native[a].cpu_seconds) >
        kReclaimFitTolerance * native[a].cpu_seconds) {
      return false;
    }
  }
  return true;
}

Status run_model_point(replay::RunSpec spec, const kernelsim::CostProfile& base,
                       const std::string traces[2], ModelPoint* m) {
  kernelsim::CostProfile costs = base;
  costs.shrink_page = kernelsim::SimTime::ns(m->shrink_page_ns);
  costs.swap_out_page = kernelsim::SimTime::ns(m->swap_out_page_ns);
  spec.costs = costs;
  for (int a = 0; a < 2; ++a) {
    if (Status s = run_model_bomb(spec, traces[a], &m->arm[a]); !s) return s;
  }
  return Status::ok();
}

// One Newton step from m: CPU(arm) moves by scanned x d(shrink_page) + swapped x d(swap_out_page).
// CPU is the processes' (run_model_bomb() leaves kswapd out); the pages counted are kswapd's too,
// which holds while the sandbox's memcg limit, not global memory, makes the pressure (limit
// reclaim is the processes' own: the model's memory is 4x the limit).
// False when the system is singular (the arms do not tell the two costs apart).
bool newton_step(const ModelPoint& m, const BombFigures native[2], ModelPoint* next) {
  const double a00 = static_cast<double>(m.arm[0].scanned);
  const double a01 = static_cast<double>(m.arm[0].swapouts);
  const double a10 = static_cast<double>(m.arm[1].scanned);
  const double a11 = static_cast<double>(m.arm[1].swapouts);
  const double r0 = (native[0].cpu_seconds - m.arm[0].cpu_seconds) * kNsPerSecond;
  const double r1 = (native[1].cpu_seconds - m.arm[1].cpu_seconds) * kNsPerSecond;
  const double det = a00 * a11 - a01 * a10;
  if (std::abs(det) < 1e-6 * std::max(a00 * a11, 1.0)) return false;
  const double ds = (r0 * a11 - a01 * r1) / det;
  const double dw = (a00 * r1 - a10 * r0) / det;
  next->shrink_page_ns = std::max<int64_t>(0, m.shrink_page_ns + std::llround(ds));
  next->swap_out_page_ns = std::max<int64_t>(0, m.swap_out_page_ns + std::llround(dw));
  return true;
}

// Runs each arm kReclaimNativeRuns times, the arms taking turns, then an arm again while its
// spread is wide, up to kReclaimNativeMaxRuns; each arm's figures are its median run's.
Status run_native_arms(const MadvBombShape& shape, const MemcgSandbox& memcg,
                       std::ostream* progress, ReclaimFit* out) {
  const auto run_arm = [&](int a) {
    BombFigures f;
    Status s = run_native_bomb(shape, memcg, a == 1, &f);
    if (s) {
      out->native_runs[a].push_back(f);
      if (progress != nullptr) {
        *progress << fmt::format("  reclaim: madv-bomb ({}) in a memcg, run {}: {:.2f} s of CPU\n",
                                 advice_name(a == 1), out->native_runs[a].size(), f.cpu_seconds)
                  << std::flush;
      }
    }
    return s;
  };
  for (int i = 0; i < kReclaimNativeRuns; ++i) {
    for (int a = 0; a < 2; ++a) {
      if (Status s = run_arm(a); !s) return s;
    }
  }
  for (int a = 0; a < 2; ++a) {
    while (cpu_spread(out->native_runs[a]) > kReclaimNativeSpread &&
           out->native_runs[a].size() < static_cast<size_t>(kReclaimNativeMaxRuns)) {
      if (Status s = run_arm(a); !s) return s;
    }
    out->native[a] = median_cpu_run(out->native_runs[a]);
  }
  return Status::ok();
}

// "3.22 3.45 3.62 s (spread 11.6%)": an arm's runs, for the table and the sources.
std::string runs_text(const std::vector<BombFigures>& runs) {
  std::string cpu;
  for (const BombFigures& f : runs)
    cpu += fmt::format("{}{:.2f}", cpu.empty() ? "" : " ", f.cpu_seconds);
  return fmt::format("{} s (spread {:.1f}%)", cpu, 100 * cpu_spread(runs));
}

}  // namespace

double cpu_spread(const std::vector<BombFigures>& runs) {
  if (runs.size() < 2) return 0;
  std::vector<double> cpu;
  for (const BombFigures& f : runs) cpu.push_back(f.cpu_seconds);
  std::sort(cpu.begin(), cpu.end());
  const double median = cpu[cpu.size() / 2];
  return median > 0 ? (cpu.back() - cpu.front()) / median : 0;
}

const BombFigures& median_cpu_run(const std::vector<BombFigures>& runs) {
  std::vector<size_t> order(runs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&runs](size_t x, size_t y) { return runs[x].cpu_seconds < runs[y].cpu_seconds; });
  return runs[order[order.size() / 2]];
}

Status fit_reclaim(const kernelsim::CostProfile& costs, std::ostream* progress, ReclaimFit* out) {
  *out = ReclaimFit();
  const std::string dir = make_var_tmp_dir("reclaim");
  if (dir.empty()) return Status::io_error("cannot make a folder in /var/tmp");
  replay::RunSpec spec;
  spec.policy_name = std::string(replay::kRunningKernelPreset);
  if (Status s = replay::resolve_policy(spec.policy_name, &spec.config, &spec.rewrites); !s) {
    std::filesystem::remove_all(dir);
    return s;
  }
  out->policy = replay::describe_policy(spec.policy_name);
  Status status = Status::ok();
  {
    PressureSandbox box;
    out->skip_reason = box.set_up(out->shape.memcg_limit_bytes, dir, kSwapFileBytes);
    if (out->skip_reason.empty()) {
      set_bomb_machine(out->shape, box.swap.total_bytes(), &spec);
      const std::string traces[2] = {dir + "/dontneed.mmtrace", dir + "/free.mmtrace"};
      status = run_native_arms(out->shape, box.memcg, progress, out);
      for (int a = 0; a < 2 && status; ++a) {
        status = write_bomb_trace(out->shape, a == 1, traces[a]);
      }
      ModelPoint best{costs.shrink_page.count_ns(), costs.swap_out_page.count_ns(), {}};
      if (status) status = run_model_point(spec, costs, traces, &best);
      if (status) std::copy(best.arm, best.arm + 2, out->before);
      for (int step = 0; status && step < kReclaimFitSteps && !within_tolerance(best, out->native);
           ++step) {
        ModelPoint target;
        if (!newton_step(best, out->native, &target)) break;
        // Backtracking: the model's arms are not linear in the costs (a slower reclaim lets the
        // free arm reuse more of its lazy pages before they are discarded), so a full step can
        // overshoot; halve it until it improves.
        bool improved = false;
        for (int half = 0; status && !improved && half <= kReclaimFitHalvings; ++half) {
          ModelPoint next;
          next.shrink_page_ns =
              best.shrink_page_ns + ((target.shrink_page_ns - best.shrink_page_ns) >> half);
          next.swap_out_page_ns =
              best.swap_out_page_ns + ((target.swap_out_page_ns - best.swap_out_page_ns) >> half);
          status = run_model_point(spec, costs, traces, &next);
          if (status && cost_of(next, out->native) < cost_of(best, out->native)) {
            best = next;
            improved = true;
          }
        }
        out->steps = step + 1;
        if (!improved) break;
      }
      out->shrink_page_ns = best.shrink_page_ns;
      out->swap_out_page_ns = best.swap_out_page_ns;
      std::copy(best.arm, best.arm + 2, out->after);
    }
  }
  std::filesystem::remove_all(dir);
  return status;
}

void apply_reclaim_fit(const ReclaimFit& fit, const std::string& stamp,
                       replay::CostProfileFile* p) {
  const std::string what = fmt::format(
      "{} reclaim fit: madv-bomb ({} processes x {} MiB x {} loops) in a {} MiB memcg with swap, "
      "native CPU {:.2f} s (DONTNEED) and {:.2f} s (FREE), the medians of {} and {}, the "
      "model's {:.2f} s and {:.2f} s after {} steps as policy {}",
      stamp, fit.shape.processes, fit.shape.region_bytes >> 20, fit.shape.loops,
      fit.shape.memcg_limit_bytes >> 20, fit.native[0].cpu_seconds, fit.native[1].cpu_seconds,
      runs_text(fit.native_runs[0]), runs_text(fit.native_runs[1]), fit.after[0].cpu_seconds,
      fit.after[1].cpu_seconds, fit.steps, fit.policy);
  p->costs.shrink_page = kernelsim::SimTime::ns(fit.shrink_page_ns);
  p->costs.swap_out_page = kernelsim::SimTime::ns(fit.swap_out_page_ns);
  p->sources["shrink_page"] = what + "; per page shrink_page_list() takes";
  p->sources["swap_out_page"] = what + "; per page written to swap";
}

void print_reclaim_fit(const ReclaimFit& fit, std::ostream& out) {
  if (!fit.skip_reason.empty()) {
    out << "\nreclaim fit: skipped (" << fit.skip_reason << ")\n";
    return;
  }
  const auto bound = [](int64_t ns) { return ns == 0 ? " (at its bound)" : ""; };
  out << fmt::format(
      "\nreclaim fit ({} steps, the model as {}): shrink_page {} ns{}, swap_out_page {} ns{}\n",
      fit.steps, fit.policy, fit.shrink_page_ns, bound(fit.shrink_page_ns), fit.swap_out_page_ns,
      bound(fit.swap_out_page_ns));
  out << fmt::format("{:<9} {:>10} {:>12} {:>12} {:>10} {:>12} {:>12}\n", "advice", "CPU s",
                     "model before", "model after", "elapsed s", "model before", "model after");
  for (int a = 0; a < 2; ++a) {
    out << fmt::format("{:<9} {:>10.2f} {:>12.2f} {:>12.2f} {:>10.2f} {:>12.2f} {:>12.2f}\n",
                       advice_name(a == 1), fit.native[a].cpu_seconds, fit.before[a].cpu_seconds,
                       fit.after[a].cpu_seconds, fit.native[a].seconds, fit.before[a].seconds,
                       fit.after[a].seconds);
  }
  // Below the table: its rows start with the advice, which tests/real reads.
  for (int a = 0; a < 2; ++a) {
    out << fmt::format("native runs of {}: {}, the median's in the table\n", advice_name(a == 1),
                       runs_text(fit.native_runs[a]));
  }
}

}  // namespace mmreplay::tools::calibrate
