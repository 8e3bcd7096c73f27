// The small programs that `validate --real` records: loops of mm syscalls on anonymous memory,
// run in a child process (`trace-replay calibrate --run-program NAME`) under `record`, and once
// more untraced with each call timed from user space (`--call-times FILE`), so that what the
// recorder adds to a call can be told from what the call costs.

#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/status.h"

namespace mmreplay::tools::calibrate {

// Per results key (common/op_table.h: "mmap", "munmap", "madvise", "mprotect"), the time of each
// of a program's calls in ns, in order, from just before the syscall to just after it returned.
using CallTimes = std::map<std::string, std::vector<uint64_t>>;

// "anon-mmap" (mmap, write every page, munmap), "madvise" (write, MADV_DONTNEED),
// "mprotect" (write, PROT_READ, PROT_READ|PROT_WRITE). Each mapping is made as
// map_anon_pages() makes it (mmap, then MADV_NOHUGEPAGE: an madvise call of its own).
const std::vector<std::string>& real_program_names();

// Runs program `name` in this process, timing its calls into `times` when it is not null; false
// for an unknown name or a failed call.
bool run_real_program(const std::string& name, CallTimes* times = nullptr);

// Writes `times` to `path` as text, a call a line ("KEY NS").
Status write_call_times(const std::string& path, const CallTimes& times);
// Reads what write_call_times() wrote; InvalidArgument naming the file and line of a bad line.
Status read_call_times(const std::string& path, CallTimes* times);

}  // namespace mmreplay::tools::calibrate
