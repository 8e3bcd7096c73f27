// Replaying a validation case: generate each arm's trace at the chosen scale, run one study with
// an arm per run on TBB workers, and compute the rows.

#pragma once

#include <string>

#include "common/status.h"
#include "tools/validate/case_result.h"

namespace mmreplay::validate {

struct RunCaseOptions {
  int threads = 0;           // host worker threads; 0 = all cores
  std::string work_dir;      // where traces are generated; "" = the system temp directory
  bool keep_traces = false;  // leave the generated traces in work_dir
};

// Errors: a case that fails check_case() (extract.h), before anything runs; a generator or run
// failure.
Status run_case(const ValidationCase& vc, const Scale& scale, const RunCaseOptions& options,
                CaseResult* result);

}  // namespace mmreplay::validate
