// calibrate's fit from measured figures to profile fields, on synthetic figures: the splits in
// the default ratios, the TLB figures from the mprotect slopes, the guards against noise.

#include <gtest/gtest.h>

#include "tools/calibrate/calibrate.h"

namespace mmreplay::tools::calibrate {
namespace {

using kernelsim::CostProfile;

Figure figure(const std::string& key, double median) {
  Figure f = figure_of(key, key, "unit");
  f.measured = true;
  f.ns = Spread{median, median * 0.9, median * 1.1, 9};
  return f;
}

TEST(FitProfile, SplitsAnAnonFaultInTheDefaultRatios) {
  const CostProfile def = kernelsim::cost_profile_default();
  const double parts = static_cast<double>(
      (def.fault_entry + def.find_vma + def.fault_bookkeeping + def.clear_page + def.pcp_alloc)
          .count_ns());
  std::vector<std::string> notes;
  const auto p = fit_profile({figure("anon_fault", 2 * parts)}, "calibrate D H", &notes);
  EXPECT_EQ(p.costs.clear_page.count_ns(), 2 * def.clear_page.count_ns());
  EXPECT_EQ(p.costs.fault_entry.count_ns(), 2 * def.fault_entry.count_ns());
  EXPECT_EQ(p.costs.syscall_entry, def.syscall_entry);  // not measured: the default's
  ASSERT_TRUE(p.sources.contains("clear_page"));
  EXPECT_NE(p.sources.at("clear_page").find("calibrate D H median of 9"), std::string::npos);
  EXPECT_NE(p.sources.at("clear_page").find("default profile's ratios"), std::string::npos);
  EXPECT_FALSE(is_calibrated(p, "syscall_entry"));
  EXPECT_EQ(p.sources.at("syscall_entry").rfind("default profile", 0), 0u);
}

TEST(FitProfile, TlbFlushesFromTheMprotectSlopes) {
  std::vector<std::string> notes;
  const auto p = fit_profile(
      {figure("mprotect_page_invlpg", 130), figure("mprotect_page", 10), figure("full_flush", 500)},
      "calibrate D H", &notes);
  EXPECT_EQ(p.costs.pte_change_prot.count_ns(), 10);
  EXPECT_EQ(p.costs.tlb_flush_single.count_ns(), 120);
  EXPECT_EQ(p.costs.tlb_flush_full.count_ns(), 500);
  EXPECT_TRUE(notes.empty());
}

TEST(FitProfile, FullFlushNeverBelowOnePageAndNonPositiveKeepsDefault) {
  std::vector<std::string> notes;
  const auto p = fit_profile({figure("mprotect_page_invlpg", 130), figure("mprotect_page", 10),
                              figure("full_flush", 50), figure("munmap_split", -20)},
                             "calibrate D H", &notes);
  EXPECT_EQ(p.costs.tlb_flush_full, p.costs.tlb_flush_single);
  EXPECT_EQ(p.costs.vma_split, kernelsim::cost_profile_default().vma_split);
  EXPECT_EQ(notes.size(), 2u);
}

TEST(FitProfile, SkippedFiguresLeaveTheDefault) {
  Figure swap = figure_of("swap_in", "swap", "page");
  swap.note = "skipped: no swap device";
  std::vector<std::string> notes;
  const auto p = fit_profile({swap}, "calibrate D H", &notes);
  EXPECT_EQ(p.costs.swap_in_page, kernelsim::cost_profile_default().swap_in_page);
  EXPECT_FALSE(is_calibrated(p, "swap_in_page"));
}

}  // namespace
}  // namespace mmreplay::tools::calibrate
