#include "formats/import/import.h"

#include <fmt/format.h>

#include <cassert>

#include "formats/import/line_reader.h"
#include "formats/import/perf_script.h"
#include "formats/import/strace.h"
#include "formats/import/trace_cmd.h"

namespace mmreplay::formats {
namespace {

Status parse_lines(ImportFormat format, LineReader* lines, ImportBuilder* builder,
                   RecorderInfo* recorder, const ImportOptions& options) {
  if (format == ImportFormat::kPerfScript) {
    return parse_perf_script(lines, builder, recorder, options.launcher_prologue);
  }
  return parse_strace(lines, builder, recorder);
}

// A file whose lines all failed to read as `format` (or that is empty) is not an input of it.
Status check_recognised(ImportFormat format, const std::string& path, const ImportReport& r) {
  const bool recognised = r.events > 0 || r.ignored_events > 0 || !r.observations.empty();
  if (recognised || (r.unknown_lines == 0 && r.lines > 0)) return Status::ok();
  if (r.lines == 0) {
    return Status::invalid_argument(
        fmt::format("{}: empty: no {} input", path, import_format_name(format)));
  }
  return Status::invalid_argument(
      fmt::format("{}: no line reads as {} input ({} unknown lines; {}); is --from right?", path,
                  import_format_name(format), r.unknown_lines,
                  r.unknown_examples.empty() ? "" : "first " + r.unknown_examples.front()));
}

// perf script without --header gives no machine (CPUs, memory) to replay on.
Status check_perf_header(const std::string& path, const RecorderInfo& recorder) {
  if (recorder.cpus > 0 && recorder.memory_bytes > 0) return Status::ok();
  return Status::invalid_argument(fmt::format(
      "{}: perf script output without its header (\"# nrcpus avail\", \"# total memory\": the "
      "machine to replay on): make it with `{}`",
      path, kPerfScriptCommand));
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
                   ImportReport* report, const ImportOptions& options) {
  ImportBuilder builder(path);
  builder.set_wmem_default(options.wmem_default);
  builder.set_wmem_max(options.wmem_max);
  RecorderInfo recorder;
  Status status;
  if (format == ImportFormat::kTraceCmd) {
    status = parse_trace_dat(path, &builder, &recorder);
  } else {
    auto lines = LineReader::open(path, &status);
    if (!lines) return status;
    status = parse_lines(format, lines.get(), &builder, &recorder, options);
  }
  if (!status) return status;
  const bool has_machine =
      format != ImportFormat::kPerfScript || (recorder.cpus > 0 && recorder.memory_bytes > 0);
  const RecorderInfo machine = recorder;
  ImportReport r;
  ImportedTrace t = builder.finish(std::move(recorder), &r);
  if (status = check_recognised(format, path, r); !status) return status;
  if (!has_machine && r.events > 0) return check_perf_header(path, machine);
  *trace = std::move(t);
  *report = std::move(r);
  return Status::ok();
}

Status import_text(ImportFormat format, const std::string& name, std::string_view text,
                   ImportedTrace* trace, ImportReport* report, const ImportOptions& options) {
  assert(format != ImportFormat::kTraceCmd);
  ImportBuilder builder(name);
  builder.set_wmem_default(options.wmem_default);
  builder.set_wmem_max(options.wmem_max);
  RecorderInfo recorder;
  auto lines = LineReader::from_string(name, text);
  Status status = parse_lines(format, lines.get(), &builder, &recorder, options);
  if (!status) return status;
  *trace = builder.finish(std::move(recorder), report);
  return Status::ok();
}

}  // namespace mmreplay::formats
