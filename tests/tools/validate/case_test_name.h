// The GoogleTest name of a test parameterised by a validation case's name: "seed-000-madv-free"
// becomes "seed_000_madv_free" (test names take no '-').

#pragma once

#include <gtest/gtest.h>

#include <string>

namespace mmreplay::validate::testing {

inline std::string case_test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& ch : n) {
    if (ch == '-') ch = '_';
  }
  return n;
}

}  // namespace mmreplay::validate::testing
