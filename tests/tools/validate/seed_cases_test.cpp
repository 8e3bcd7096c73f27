// The validation cases replayed at their `ci` scale (label `validation`): every comparison the
// seed thread makes must go the same way in the model, except the declared gaps listed here. A
// new disagreement fails, and so does a listed gap whose ci run changes direction: one that now
// agrees comes off this list and off its case (or is marked as showing at larger scales only). The
// table is printed so the CI log shows the figures; ratios outside 25% are reported, not failed.

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "tests/tools/validate/case_test_name.h"
#include "tools/validate/case_output.h"
#include "tools/validate/cases.h"
#include "tools/validate/run_case.h"

namespace mmreplay::validate {
namespace {

// The declared gaps of the cases: case, metric, arm. Each is a declared gap of its case
// (tools/validate/seed_*.cpp says why); issue 17 asks for them to be resolved by the model.
// `agrees_at_ci`: the gap shows at the case's larger scales only, and its ci run agrees.
struct ToleratedGap {
  const char* case_name;
  const char* metric;
  const char* arm;
  bool agrees_at_ci;
};
constexpr ToleratedGap kToleratedGaps[] = {
    // No stall in either arm at full size; at ci, since page-cache charges moved the timing, the
    // arms differ the thread's way (seed_003_predictive.cpp).
    {"seed-003-mmtests", "allocation stalls", "reclaim-predictive", true},
    // je.patch's deeper purges refault more under a saturated mmap_sem line
    // (seed_002_madvisev.cpp); at ci's 1,500 operations the vector arm's system time is lower.
    {"seed-002-madvisev", "system time", "vector", true},
};

const ToleratedGap* tolerated(const std::string& case_name, const Row& r) {
  for (const ToleratedGap& g : kToleratedGaps) {
    if (case_name == g.case_name && r.metric == g.metric && r.arm == g.arm) return &g;
  }
  return nullptr;
}

// True when the case declares a gap for this row at scales other than ci, and not at ci.
bool declared_beyond_ci(const ValidationCase& c, const Row& r) {
  for (const KnownGap& g : c.gaps) {
    if (g.metric != r.metric || g.arm != r.arm || g.scales.empty()) continue;
    if (std::find(g.scales.begin(), g.scales.end(), "ci") == g.scales.end()) return true;
  }
  return false;
}

class SeedCase : public ::testing::TestWithParam<std::string> {};

TEST_P(SeedCase, DirectionsAgreeWithTheThread) {
  const ValidationCase* c = find_case(GetParam());
  ASSERT_NE(c, nullptr);
  const Scale* scale = c->find_scale("ci");
  ASSERT_NE(scale, nullptr);
  CaseResult result;
  RunCaseOptions options;
  options.work_dir = ::testing::TempDir();
  const Status s = run_case(*c, *scale, options, &result);
  ASSERT_TRUE(s) << s.message();
  print_case(std::cout, result);
  EXPECT_GT(result.checked(), 0);
  for (const Row& r : result.rows) {
    if (r.baseline || !r.comparable()) continue;
    const std::string where = r.metric + " " + r.arm + ": published " +
                              direction_name(r.published_direction) + ", model " +
                              direction_name(r.model_direction);
    const ToleratedGap* g = tolerated(c->name, r);
    if (g == nullptr) {
      EXPECT_TRUE(r.direction_agrees()) << where;
    } else if (g->agrees_at_ci) {
      EXPECT_TRUE(declared_beyond_ci(*c, r)) << where << ": listed here but its case does not "
                                             << "declare it for its larger scales only";
      EXPECT_TRUE(r.direction_agrees()) << where << ": the gap now shows at ci too";
    } else {
      EXPECT_NE(r.gap, nullptr) << where << ": tolerated here but not declared by its case";
      EXPECT_FALSE(r.direction_agrees())
          << where << ": the gap is resolved; take it off kToleratedGaps and its case";
    }
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const ValidationCase& c : all_cases()) names.push_back(c.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Seeds, SeedCase, ::testing::ValuesIn(case_names()),
                         testing::case_test_name);

}  // namespace
}  // namespace mmreplay::validate
