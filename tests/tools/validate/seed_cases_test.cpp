// The validation cases replayed at their `ci` scale (label `validation`): every comparison the
// seed thread makes must go the same way in the model (known gaps excepted, and printed). The
// table is printed so the CI log shows the figures; ratios outside 25% are reported, not failed.

#include <gtest/gtest.h>

#include <iostream>

#include "tools/validate/case_output.h"
#include "tools/validate/cases.h"
#include "tools/validate/run_case.h"

namespace mmreplay::validate {
namespace {

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
    if (r.baseline || r.gap != nullptr || !r.comparable()) continue;
    EXPECT_TRUE(r.direction_agrees())
        << r.metric << " " << r.arm << ": published " << direction_name(r.published_direction)
        << ", model " << direction_name(r.model_direction);
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const ValidationCase& c : all_cases()) names.push_back(c.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Seeds, SeedCase, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& ch : n) {
                             if (ch == '-') ch = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace mmreplay::validate
