// prepare -> emit -> close; see generate.h.

#include "tools/gen/generate.h"

#include "tools/gen/registry.h"

namespace mmreplay::gen {

namespace {

constexpr const char* kRecorderTool = "trace-replay gen";

std::string command_line(const PreparedWorkload& prepared, const std::string& output_path) {
  std::string line = std::string(kRecorderTool) + " " + prepared.spec->name;
  for (const auto& [name, text] : prepared.values.effective()) line += " --" + name + " " + text;
  if (!output_path.empty()) line += " -o " + output_path;
  return line;
}

}  // namespace

Status prepare_workload(std::string_view name, std::span<const std::string> params,
                        const std::string& output_path, PreparedWorkload* out) {
  const WorkloadSpec* spec = find_workload(name);
  if (spec == nullptr) {
    return Status::invalid_argument("unknown workload '" + std::string(name) +
                                    "' (see gen --list)");
  }
  PreparedWorkload prepared;
  prepared.spec = spec;
  Status status = parse_params(spec->params, params, &prepared.values);
  if (!status.is_ok()) return status.with_context(spec->name);
  prepared.workload = spec->make(prepared.values);

  Machine machine = prepared.workload->machine();
  formats::TraceMeta& meta = prepared.meta;
  meta.generator = spec->name;
  meta.params = prepared.values.effective();
  meta.files = prepared.workload->files();
  meta.allocator = prepared.workload->allocator();
  meta.recorder.tool = kRecorderTool;
  meta.recorder.command_line = command_line(prepared, output_path);
  meta.recorder.cpus = machine.cpus;
  meta.recorder.page_size = static_cast<uint32_t>(kPageSize);
  meta.recorder.memory_bytes = prepared.values.scaled(machine.memory_bytes);
  meta.recorder.swap_bytes =
      machine.swap_bytes == 0 ? 0 : prepared.values.scaled(machine.swap_bytes);
  *out = std::move(prepared);
  return Status::ok();
}

Status generate_to_sink(const PreparedWorkload& prepared, EventSink& sink) {
  return prepared.workload->emit(sink);
}

Status generate_to_file(const PreparedWorkload& prepared, const std::string& path,
                        const formats::WriterOptions& options, GenStats* stats,
                        uint64_t max_bytes) {
  Status status;
  std::unique_ptr<formats::TraceWriter> writer =
      formats::TraceWriter::create(path, prepared.meta, options, &status);
  if (writer == nullptr || !status.is_ok()) {
    return status.is_ok() ? Status::io_error(path + ": cannot create trace") : status;
  }
  WriterSink sink(writer.get(), max_bytes);
  Status emitted = generate_to_sink(prepared, sink);
  // A generator that failed part-way leaves no trace: the writer is abandoned, not closed.
  Status closed = emitted.is_ok() ? writer->close() : Status::ok();
  if (stats != nullptr) {
    stats->events = writer->events_written();
    stats->bytes = writer->bytes_written();
    stats->chunks = writer->chunks_written();
  }
  if (!emitted.is_ok()) return emitted;
  return closed;
}

}  // namespace mmreplay::gen
