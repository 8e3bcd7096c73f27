#include "formats/import/import.h"

#include <cassert>

#include "formats/import/line_reader.h"
#include "formats/import/perf_script.h"
#include "formats/import/strace.h"
#include "formats/import/trace_cmd.h"

namespace mmreplay::formats {
namespace {

Status parse_lines(ImportFormat format, LineReader* lines, ImportBuilder* builder,
                   RecorderInfo* recorder) {
  if (format == ImportFormat::kPerfScript) return parse_perf_script(lines, builder, recorder);
  return parse_strace(lines, builder, recorder);
}

}  // namespace

bool import_format_from_name(std::string_view name, ImportFormat* format) {
  if (name == "perf-script") {
    *format = ImportFormat::kPerfScript;
  } else if (name == "strace") {
    *format = ImportFormat::kStrace;
  } else if (name == "trace-cmd") {
    *format = ImportFormat::kTraceCmd;
  } else {
    return false;
  }
  return true;
}

std::string_view import_format_name(ImportFormat format) {
  switch (format) {
    case ImportFormat::kPerfScript:
      return "perf-script";
    case ImportFormat::kStrace:
      return "strace";
    case ImportFormat::kTraceCmd:
      return "trace-cmd";
  }
  return "unknown";
}

Status import_file(ImportFormat format, const std::string& path, ImportedTrace* trace,
                   ImportReport* report) {
  ImportBuilder builder(path);
  RecorderInfo recorder;
  Status status;
  if (format == ImportFormat::kTraceCmd) {
    status = parse_trace_dat(path, &builder, &recorder);
  } else {
    auto lines = LineReader::open(path, &status);
    if (!lines) return status;
    status = parse_lines(format, lines.get(), &builder, &recorder);
  }
  if (!status) return status;
  *trace = builder.finish(std::move(recorder), report);
  return Status::ok();
}

Status import_text(ImportFormat format, const std::string& name, std::string_view text,
                   ImportedTrace* trace, ImportReport* report) {
  assert(format != ImportFormat::kTraceCmd);
  ImportBuilder builder(name);
  RecorderInfo recorder;
  auto lines = LineReader::from_string(name, text);
  Status status = parse_lines(format, lines.get(), &builder, &recorder);
  if (!status) return status;
  *trace = builder.finish(std::move(recorder), report);
  return Status::ok();
}

}  // namespace mmreplay::formats
