// Running another program from calibrate and validate --real: `record` of a real program, and the
// system's `mkswap` for validate --real --pressure.

#pragma once

#include <string>
#include <vector>

namespace mmreplay::tools::calibrate {

// Runs argv (argv[0] a path, or a name looked up in PATH) with stdout and stderr to the file
// `log` (truncated; "/dev/null" to discard them) and waits for it; its exit status, 128 + the
// signal that killed it, or -1 when it could not start.
int spawn_and_wait(const std::vector<std::string>& argv, const std::string& log);

}  // namespace mmreplay::tools::calibrate
