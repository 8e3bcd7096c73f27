// calibrate --reclaim: what reclaim costs a page on this machine, fitted through the model.
//
// No probe isolates reclaim: a page is scanned, unmapped (with its TLB flush), written to swap or
// discarded, and freed, on whichever task needed the memory. So the fit runs seed 000's
// madv-bomb (madv_bomb_runs.h) natively in a memory cgroup with swap, with MADV_DONTNEED and
// with MADV_FREE, and solves for the two profile fields that carry reclaim's per-page CPU in the
// model: shrink_page (each page shrink_page_list() takes, swapped or discarded alike) and
// swap_out_page (add_to_swap() + try_to_unmap() + pageout() of a page written to swap), so that
// the model's CPU time of both arms (its tasks' busy time) matches their user + system time. The
// dontneed arm swaps every page it reclaims and the free arm discards about half of them, which
// tells the two costs apart. Each step replays both arms, takes the model's scanned and swapped
// pages as the derivatives, and solves the 2 x 2 system (Newton's method on a near-linear model);
// a step that does not improve is halved up to kReclaimFitHalvings times; the fit stops when both
// arms are within kReclaimFitTolerance, after kReclaimFitSteps, or when no halving improves.
//
// The native bomb's CPU moves from run to run on a shared machine (one arm 2.85 s, then 4.90 s a
// minute later, on the development guest), and a fit to one run fits its noise. Each arm runs
// kReclaimNativeRuns times, the arms taking turns, and kReclaimNativeMaxRuns while its spread
// ((max - min) / median of the CPU seconds) stays above kReclaimNativeSpread; the fit takes
// each arm's median run, and the spread is printed and written into the fields' sources.
//
// The model replays the bomb as this machine's kernel (replay/running_kernel.h), not as the
// model's defaults: what reclaim costs besides its own per-page work is the kernel's too. On the
// 6.18 development guest (2026-12-06) half of the bomb's system time was reclaim's TLB flushes
// (perf: x2apic_send_IPI's MSR write 35% of the samples, the wait for the ack 15%, both under
// try_to_unmap_flush_dirty()), 0.6-0.85 IPIs a page swapped out, because 6.14+ keeps every CPU
// that ran an mm in its mm_cpumask (mm_cpumask=lazy); the defaults' eager mask sent 0.3 of the
// native IPIs, and the fit then put their time into shrink_page (2,535 ns a page against the
// default profile's 400).

#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "kernelsim/costs/cost_profile.h"
#include "replay/cost_profile_json.h"
#include "tools/calibrate/madv_bomb_runs.h"

namespace mmreplay::tools::calibrate {

inline constexpr double kReclaimFitTolerance = 0.03;
inline constexpr int kReclaimFitSteps = 6;
inline constexpr int kReclaimFitHalvings = 3;  // per step, when the full step does not improve
inline constexpr int kReclaimNativeRuns = 3;
inline constexpr int kReclaimNativeMaxRuns = 5;
inline constexpr double kReclaimNativeSpread = 0.05;

struct ReclaimFit {
  std::string skip_reason;  // non-empty: the machine could not run it (no root, memcg, swap)
  std::string policy;       // the model's, as describe_policy() names it
  MadvBombShape shape;
  BombFigures native[2];                    // [0] dontneed, [1] free: the median run of each arm's
  std::vector<BombFigures> native_runs[2];  // every native run, in the order they ran
  BombFigures before[2];                    // the model with the profile as it was
  BombFigures after[2];                     // with the fitted fields
  int64_t shrink_page_ns = 0;
  int64_t swap_out_page_ns = 0;
  int steps = 0;
};

// (max - min) / median of the runs' CPU seconds; 0 for fewer than two runs.
double cpu_spread(const std::vector<BombFigures>& runs);
// The run whose CPU seconds are the median (the upper one of an even count).
// REQUIRES: !runs.empty().
const BombFigures& median_cpu_run(const std::vector<BombFigures>& runs);

// Runs the bomb here and fits shrink_page and swap_out_page of `costs` (the rest kept).
// Ok with skip_reason set when the machine cannot; errors: a failed run of either side.
Status fit_reclaim(const kernelsim::CostProfile& costs, std::ostream* progress, ReclaimFit* out);

// Writes the fitted fields into `p`, each with a source naming the fit and `stamp`.
void apply_reclaim_fit(const ReclaimFit& fit, const std::string& stamp, replay::CostProfileFile* p);

// Native against the model before and after, and the fitted values.
void print_reclaim_fit(const ReclaimFit& fit, std::ostream& out);

}  // namespace mmreplay::tools::calibrate
