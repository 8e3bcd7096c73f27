// The importers' front door: pick a format by name, read a file (or, for the text formats, a
// buffer) and get the trace and a report back. `trace-replay import` and `record` call this.
//
// Errors (Status): the input cannot be opened, or a malformed line, named "FILE:LINE: ...";
// an input the format cannot be read from says which options make a readable one: strace
// without -ttt, and (import_file) perf script without --header, which gives no machine.
// import_file also rejects a file in which nothing reads as the format (every line unknown, or
// none). All of these are InvalidArgument/Corruption/NotFound (exit 2); the caller writes no
// output then. Single unknown lines are not errors; they are counted in the report.

#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "formats/import/import_builder.h"
#include "formats/import/import_report.h"

namespace mmreplay::formats {

enum class ImportFormat { kPerfScript, kStrace, kTraceCmd };

// "perf-script", "strace", "trace-cmd".
bool import_format_from_name(std::string_view name, ImportFormat* format);
std::string_view import_format_name(ImportFormat format);

// What the recorder knew of the recording machine beyond the input itself.
struct ImportOptions {
  // net.core.wmem_default in bytes (0: not known): ImportBuilder::set_wmem_default().
  uint64_t wmem_default = 0;
  // net.core.wmem_max in bytes (0: not known): ImportBuilder::set_wmem_max().
  uint64_t wmem_max = 0;
  // perf script only: perf ran record's launcher, which execs the command (tools/cli/
  // record_launch.h). The first thread's lines up to and with its first execve enter are the
  // launcher's and are left out (counted as launcher lines), so the trace starts where a
  // recording without it does: inside the command's exec, once the new mm is in place.
  bool launcher_prologue = false;
};

Status import_file(ImportFormat format, const std::string& path, ImportedTrace* trace,
                   ImportReport* report, const ImportOptions& options = {});

// The text formats from memory; `name` stands for the file name in messages. Snippets are
// welcome here: no perf header is needed and an input of unknown lines gives an empty trace.
// REQUIRES: format != kTraceCmd.
Status import_text(ImportFormat format, const std::string& name, std::string_view text,
                   ImportedTrace* trace, ImportReport* report, const ImportOptions& options = {});

}  // namespace mmreplay::formats
