// The exit status of trace-replay, decided here and nowhere else, from the Status code of what
// the subcommand returned (DESIGN.md, "Interface conventions"):
//
//   0   ok
//   1   the environment or I/O failed: IOError, ResourceExhausted (an unwritable output, a full
//       disk, perf missing or not permitted, a reader limit such as
//       ReaderOptions::max_threads); also validate's verdict when a
//       model direction disagrees with the published one, which is a result, not an error
//   2   bad input: InvalidArgument, NotFound, Corruption (a bad flag or value, a missing input
//       file, a corrupt or foreign file, parameters whose trace gen estimates over --max-bytes);
//       CLI11's usage errors too (main.cpp)
//   70  Internal (EX_SOFTWARE of sysexits.h): a bug, such as a model deadlock or an uncaught
//       exception
//
// So the same corrupt trace gives 2 from info, cat, check and replay alike, and an unwritable
// output gives 1 from every subcommand that writes one.

#pragma once

#include <string_view>

#include "common/status.h"

namespace mmreplay::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitSoftware = 70;

// The process exit status for `status` (the table above).
int exit_status(const Status& status);

// Prints "WHO: MESSAGE" on stderr unless `status` is ok; returns exit_status(status).
int report_status(std::string_view who, const Status& status);

}  // namespace mmreplay::tools
