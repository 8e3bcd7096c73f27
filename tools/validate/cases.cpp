#include "tools/validate/cases.h"

namespace mmreplay::validate {

const std::vector<ValidationCase>& all_cases() {
  static const std::vector<ValidationCase> kCases = {
      seed_000_madv_free(),         seed_000_madv_free_rewrite(),
      seed_001_uncharge(),          seed_002_madvisev(),
      seed_002_madvisev_rewrite(),  seed_002_bulk_free(),
      seed_002_bulk_free_rewrite(), seed_003_predictive(),
      seed_003_mmtests(),           seed_004_bh_lru(),
      seed_004_frequent_cma(),
  };
  return kCases;
}

const ValidationCase* find_case(std::string_view name) {
  for (const ValidationCase& c : all_cases()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace mmreplay::validate
