// The "-rewrite" validation cases (issue 16): seed 000 and seed 002 asked of one DONTNEED
// per-call trace through the trace rewrites give the verdicts of the traces generated each way.

#include <gtest/gtest.h>

#include <iostream>

#include "tests/tools/validate/case_test_name.h"
#include "tools/validate/case_output.h"
#include "tools/validate/cases.h"
#include "tools/validate/run_case.h"

namespace mmreplay::validate {
namespace {

CaseResult run_ci(const std::string& name) {
  const ValidationCase* c = find_case(name);
  EXPECT_NE(c, nullptr) << name;
  CaseResult result;
  if (c == nullptr) return result;
  RunCaseOptions options;
  options.work_dir = ::testing::TempDir();
  const Status s = run_case(*c, *c->find_scale("ci"), options, &result);
  EXPECT_TRUE(s) << s.message();
  print_case(std::cout, result);
  return result;
}

class RewriteCase : public ::testing::TestWithParam<std::string> {};

TEST_P(RewriteCase, VerdictsMatchTheTracesGeneratedEachWay) {
  const CaseResult generated = run_ci(GetParam());
  const CaseResult rewritten = run_ci(GetParam() + "-rewrite");
  ASSERT_EQ(generated.rows.size(), rewritten.rows.size());
  ASSERT_GT(generated.checked(), 0);
  for (size_t i = 0; i < generated.rows.size(); ++i) {
    const Row& g = generated.rows[i];
    const Row& r = rewritten.rows[i];
    ASSERT_EQ(g.metric, r.metric);
    ASSERT_EQ(g.arm, r.arm);
    EXPECT_EQ(r.model_direction, g.model_direction) << g.metric << " " << g.arm;
    EXPECT_EQ(r.direction_agrees(), g.direction_agrees()) << g.metric << " " << g.arm;
    EXPECT_EQ(r.within_tolerance(), g.within_tolerance()) << g.metric << " " << g.arm;
  }
  EXPECT_EQ(rewritten.passed(), generated.passed());
}

// Seed 000's rewrite changes only the advice number of each call, so the figures are the same,
// not just the verdicts.
TEST(RewriteCaseFigures, Seed000FromTheDontneedTraceIsExactlyTheGeneratedOne) {
  const CaseResult generated = run_ci("seed-000-madv-free");
  const CaseResult rewritten = run_ci("seed-000-madv-free-rewrite");
  ASSERT_EQ(generated.rows.size(), rewritten.rows.size());
  for (size_t i = 0; i < generated.rows.size(); ++i) {
    EXPECT_EQ(rewritten.rows[i].model, generated.rows[i].model)
        << generated.rows[i].metric << " " << generated.rows[i].arm;
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RewriteCase,
                         ::testing::Values("seed-000-madv-free", "seed-002-madvisev",
                                           "seed-002-bulk-free"),
                         testing::case_test_name);

}  // namespace
}  // namespace mmreplay::validate
