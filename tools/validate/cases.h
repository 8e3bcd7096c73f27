// The validation cases, one (or two) per seed thread, in seed order. Each is defined in its own
// file, named after the case.

#pragma once

#include <string_view>
#include <vector>

#include "tools/validate/validation_case.h"

namespace mmreplay::validate {

const std::vector<ValidationCase>& all_cases();
// nullptr when no case has that name.
const ValidationCase* find_case(std::string_view name);

ValidationCase seed_000_madv_free();  // seed_000_madv_free.cpp
ValidationCase seed_002_madvisev();   // seed_002_madvisev.cpp
ValidationCase seed_002_bulk_free();  // seed_002_madvisev.cpp

}  // namespace mmreplay::validate
