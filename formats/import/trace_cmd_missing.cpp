// parse_trace_dat() for builds without libtracecmd (see trace_cmd.h).

#include "formats/import/trace_cmd.h"

namespace mmreplay::formats {

bool have_trace_dat_reader() {
  return false;
}

Status parse_trace_dat(const std::string& path, ImportBuilder*, RecorderInfo*) {
  // The request (--from trace-cmd) is one this build cannot serve: a bad argument here.
  return Status::invalid_argument(
      path +
      ": this build reads no trace.dat (libtracecmd-dev was not found at build time); use "
      "`trace-cmd report` and a perf-script-like import, or rebuild");
}

}  // namespace mmreplay::formats
