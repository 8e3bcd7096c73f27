// Printing validation results: a table per case with the published and the model's figures side
// by side, and the same as JSON (`trace-replay validate --json`).

#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "tools/validate/case_result.h"

namespace mmreplay::validate {

void print_case(std::ostream& out, const CaseResult& result);
// One line per case: checked comparisons, directions agreeing, ratios within 25%.
void print_summary(std::ostream& out, const std::vector<CaseResult>& results);

nlohmann::json case_to_json(const CaseResult& result);
nlohmann::json cases_to_json(const std::vector<CaseResult>& results);

}  // namespace mmreplay::validate
