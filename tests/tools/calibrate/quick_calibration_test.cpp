// A --quick calibration of this machine: its profile loads and is ordered sensibly. No speed is
// asserted: the figures are whatever this machine measures.

#include <gtest/gtest.h>

#include "tools/calibrate/calibrate.h"

namespace mmreplay::tools::calibrate {
namespace {

using kernelsim::CostProfile;

TEST(QuickCalibration, ProfileLoadsAndIsOrderedSensibly) {
  CalibrationOptions o;
  o.quick = true;
  Calibration c;
  ASSERT_TRUE(run_calibration(o, nullptr, &c));
  replay::CostProfileFile loaded;
  ASSERT_TRUE(replay::parse_cost_profile_json(replay::cost_profile_to_json(c.profile),
                                              "calibrated.json", &loaded));
  const CostProfile def = kernelsim::cost_profile_default();
  for (const kernelsim::CostField& f : kernelsim::cost_fields()) {
    // A field the default profile does not charge (0) stays 0 where this machine did not let
    // calibrate measure it.
    if ((def.*f.member).count_ns() == 0 && !is_calibrated(loaded, f.name)) continue;
    EXPECT_GT((loaded.costs.*f.member).count_ns(), 0) << f.name;
  }
  // Measured where this machine allows: the syscall and the faults always.
  EXPECT_TRUE(is_calibrated(loaded, "syscall_entry"));
  EXPECT_TRUE(is_calibrated(loaded, "clear_page"));
  EXPECT_EQ(loaded.sources.size(), kernelsim::cost_fields().size());  // every value has a source
  const CostProfile& k = loaded.costs;
  EXPECT_GE(k.tlb_flush_full, k.tlb_flush_single);
  const auto anon_fault =
      k.fault_entry + k.find_vma + k.fault_bookkeeping + k.clear_page + k.pcp_alloc;
  EXPECT_GT(anon_fault, k.syscall_entry);
  if (is_calibrated(loaded, "swap_in_page")) {
    EXPECT_GT(k.swap_in_page, k.clear_page);
  }
  for (const Figure& f : c.figures) {
    if (!f.measured) {
      EXPECT_NE(f.note.find("skipped"), std::string::npos) << f.key;
    }
  }
}

}  // namespace
}  // namespace mmreplay::tools::calibrate
