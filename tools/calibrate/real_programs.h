// The small programs that `validate --real` records: loops of mm syscalls on anonymous memory,
// run in a child process (`trace-replay calibrate --run-program NAME`) under `record`.

#pragma once

#include <string>
#include <vector>

namespace mmreplay::tools::calibrate {

// "anon-mmap" (mmap, write every page, munmap), "madvise" (write, MADV_DONTNEED),
// "mprotect" (write, PROT_READ, PROT_READ|PROT_WRITE).
const std::vector<std::string>& real_program_names();

// Runs program `name` in this process; false for an unknown name.
bool run_real_program(const std::string& name);

}  // namespace mmreplay::tools::calibrate
