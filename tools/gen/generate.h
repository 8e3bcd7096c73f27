// Making a trace from a workload name and its parameters: the gen command's engine, also used
// directly by tests and benchmarks (with a CollectingSink instead of a file).

#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "common/status.h"
#include "formats/trace_meta.h"
#include "formats/trace_writer.h"
#include "tools/gen/event_sink.h"
#include "tools/gen/params.h"
#include "tools/gen/workload.h"

namespace mmreplay::gen {

// A workload ready to emit, with the header that describes it (threads are added by emit()).
struct PreparedWorkload {
  const WorkloadSpec* spec = nullptr;
  ParamValues values;
  std::unique_ptr<Workload> workload;
  formats::TraceMeta meta;
};

// Looks the workload up, parses `params` ("--name value" ...) and fills the header: generator
// name, every effective parameter, the files, the machine (memory scaled by --scale) and the
// `trace-replay gen ...` command line that remakes the trace (with `-o output_path` when given).
// Errors: unknown workload, unknown parameter, bad value, each on one line naming it.
Status prepare_workload(std::string_view name, std::span<const std::string> params,
                        const std::string& output_path, PreparedWorkload* out);

// Emits every event into `sink`.
Status generate_to_sink(const PreparedWorkload& prepared, EventSink& sink);

struct GenStats {
  uint64_t events = 0;
  uint64_t bytes = 0;
  uint64_t chunks = 0;
};

// Writes the trace to `path` and closes it. A trace that grows past `max_bytes` is stopped and
// abandoned (`path` keeps what it had) with WriterSink's InvalidArgument naming --max-bytes.
Status generate_to_file(const PreparedWorkload& prepared, const std::string& path,
                        const formats::WriterOptions& options, GenStats* stats,
                        uint64_t max_bytes = std::numeric_limits<uint64_t>::max());

}  // namespace mmreplay::gen
