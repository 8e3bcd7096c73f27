// See exit_code.h.

#include "tools/cli/exit_code.h"

#include <cstdio>

namespace mmreplay::tools {

int exit_status(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return kExitOk;
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kCorruption:
      return kExitBadInput;
    case StatusCode::kIOError:
    case StatusCode::kResourceExhausted:
      return kExitFailure;
    case StatusCode::kInternal:
      return kExitSoftware;
  }
  return kExitSoftware;
}

int report_status(std::string_view who, const Status& status) {
  if (!status.is_ok()) {
    std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(who.size()), who.data(),
                 status.message().c_str());
  }
  return exit_status(status);
}

}  // namespace mmreplay::tools
