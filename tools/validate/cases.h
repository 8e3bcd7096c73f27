// The validation cases, one (or two) per seed thread, in seed order. Each is defined in its own
// file, named after the case. A "-rewrite" case asks its case's question of one trace of the
// program as shipped (DONTNEED, one madvise per range), its arms rewriting that trace at replay
// (purge_advice, madvise_batch: replay/trace_rewrite_knobs.h); its verdicts must match its case's.

#pragma once

#include <string_view>
#include <vector>

#include "tools/validate/validation_case.h"

namespace mmreplay::validate {

const std::vector<ValidationCase>& all_cases();
// nullptr when no case has that name.
const ValidationCase* find_case(std::string_view name);

ValidationCase seed_000_madv_free();          // seed_000_madv_free.cpp
ValidationCase seed_000_madv_free_rewrite();  // seed_000_madv_free.cpp
ValidationCase seed_001_uncharge();           // seed_001_uncharge.cpp
ValidationCase seed_002_madvisev();           // seed_002_madvisev.cpp
ValidationCase seed_002_bulk_free();          // seed_002_madvisev.cpp
ValidationCase seed_002_madvisev_rewrite();   // seed_002_madvisev.cpp
ValidationCase seed_002_bulk_free_rewrite();  // seed_002_madvisev.cpp
ValidationCase seed_003_predictive();         // seed_003_predictive.cpp
ValidationCase seed_003_mmtests();            // seed_003_predictive.cpp
ValidationCase seed_004_bh_lru();             // seed_004_bh_lru.cpp
ValidationCase seed_004_frequent_cma();       // seed_004_bh_lru.cpp

}  // namespace mmreplay::validate
