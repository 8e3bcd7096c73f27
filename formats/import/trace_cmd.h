// Importer for trace-cmd's trace.dat (recorded with the tracepoints `trace-replay record` uses:
// syscalls:sys_enter_* / sys_exit_* and exceptions:page_fault_user / page_fault_kernel).
//
// Which reader, and why: Debian's libtracecmd (package libtracecmd-dev, trace-cmd 3.1) reads
// trace.dat natively: every version of the file format, compressed sections, per-CPU buffers
// merged in time order, and each event's own format description from the file, so fields are
// read by the layout the recording kernel declared instead of by parsing `trace-cmd report`
// text, whose column layout changes between trace-cmd releases. It is used when CMake finds it
// (pkg-config libtracecmd); otherwise import_trace_dat() says the build lacks it. It runs in a
// child process (trace_cmd_records.h): it is not safe on damaged files.
//
// Syscall arguments are the event's fields after __syscall_nr, in order (positional, like the
// perf importer). trace.dat saved without record-tgid has no process ids: threads take their
// process from the clone that made them. The recorder info takes the CPU count and page size
// from the file.

#pragma once

#include <string>

#include "common/status.h"
#include "formats/import/import_builder.h"
#include "formats/trace_meta.h"

namespace mmreplay::formats {

// True when this build reads trace.dat (libtracecmd was found).
bool have_trace_dat_reader();

Status parse_trace_dat(const std::string& path, ImportBuilder* builder, RecorderInfo* recorder);

}  // namespace mmreplay::formats
