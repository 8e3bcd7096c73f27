// A --quick calibration of this machine: its profile loads, every value has a source, and the
// fit's own guarantees hold. No speed and no order between measured times is asserted: the
// figures are whatever this machine measures.

#include <gtest/gtest.h>

#include <algorithm>

#include "tools/calibrate/calibrate.h"

namespace mmreplay::tools::calibrate {
namespace {

using kernelsim::CostProfile;

TEST(QuickCalibration, ProfileLoadsAndKeepsTheFitsGuarantees) {
  CalibrationOptions o;
  o.quick = true;
  Calibration c;
  ASSERT_TRUE(run_calibration(o, nullptr, &c));
  replay::CostProfileFile loaded;
  ASSERT_TRUE(replay::parse_cost_profile_json(replay::cost_profile_to_json(c.profile),
                                              "calibrated.json", &loaded));
  const CostProfile def = kernelsim::cost_profile_default();
  const bool zram = std::any_of(c.figures.begin(), c.figures.end(),
                                [](const Figure& f) { return f.key == "zram_read" && f.measured; });
  for (const kernelsim::CostField& f : kernelsim::cost_fields()) {
    // A field the default profile does not charge (0) stays 0 where this machine did not let
    // calibrate measure it.
    if ((def.*f.member).count_ns() == 0 && !is_calibrated(loaded, f.name)) continue;
    // On a machine that swaps to zram the device has no queue of its own (profile_fit.cpp).
    if (zram && f.name == "swap_io_page") {
      EXPECT_EQ(loaded.costs.swap_io_page.count_ns(), 0);
      continue;
    }
    EXPECT_GT((loaded.costs.*f.member).count_ns(), 0) << f.name;
  }
  // Measured where this machine allows: the syscall and the faults always.
  EXPECT_TRUE(is_calibrated(loaded, "syscall_entry"));
  EXPECT_TRUE(is_calibrated(loaded, "clear_page"));
  // Every value has a source, the times' and the sizes'.
  EXPECT_EQ(loaded.sources.size(),
            kernelsim::cost_fields().size() + kernelsim::cost_size_fields().size());
  // What the fit guarantees whatever the machine measured (an order between two measured times,
  // such as a fault above a syscall, failed here once under load: a syscall median of 19.2 us):
  // a full flush is never cheaper than one page, and the anon fault's parts add up to the figure
  // they were split from (each part rounded to a nanosecond).
  const CostProfile& k = loaded.costs;
  EXPECT_GE(k.tlb_flush_full, k.tlb_flush_single);
  const auto anon_fault =
      k.fault_entry + k.find_vma + k.fault_bookkeeping + k.clear_page + k.pcp_alloc;
  for (const Figure& f : c.figures) {
    if (f.key == "anon_fault" && f.measured) {
      EXPECT_NEAR(static_cast<double>(anon_fault.count_ns()), f.ns.median, 5.0);
    }
  }
  for (const Figure& f : c.figures) {
    if (!f.measured) {
      EXPECT_NE(f.note.find("skipped"), std::string::npos) << f.key;
    }
  }
}

}  // namespace
}  // namespace mmreplay::tools::calibrate
