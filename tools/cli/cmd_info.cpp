// trace-replay info FILE [--json] [--chunks]: header, threads, events per kind, time span,
// compressed size, bytes per event and the content hash `merge` compares; --chunks lists the
// index (where each chunk lies, for a user cutting or repairing a damaged trace).

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "formats/trace_hash.h"
#include "formats/trace_stats.h"
#include "tools/cli/cli_util.h"
#include "tools/cli/commands.h"
#include "tools/cli/exit_code.h"

namespace mmreplay::tools {
namespace {

// Threads listed one per line in the text form before it summarises the rest.
constexpr size_t kThreadsShown = 16;

nlohmann::json to_json(const formats::TraceReader& reader, const formats::TraceStats& stats,
                       bool list_chunks) {
  const formats::TraceMeta& m = reader.meta();
  nlohmann::json j;
  j["file"] = reader.path();
  j["format_version"] = fmt::format("{}.{}", m.version_major, m.version_minor);
  j["recorder"] = {{"tool", m.recorder.tool},
                   {"command_line", m.recorder.command_line},
                   {"kernel_release", m.recorder.kernel_release},
                   {"cpus", m.recorder.cpus},
                   {"memory_bytes", m.recorder.memory_bytes},
                   {"page_size", m.recorder.page_size},
                   {"swap_bytes", m.recorder.swap_bytes},
                   {"tracing_cost_ns", m.recorder.tracing_cost_ns},
                   {"fault_cost_ns", m.recorder.fault_cost_ns},
                   {"sync_wakes_on_waker_cpu", m.recorder.sync_wakes_on_waker_cpu},
                   {"sync_wakes_on_other_cpu", m.recorder.sync_wakes_on_other_cpu},
                   {"min_free_kbytes", m.recorder.min_free_kbytes},
                   {"swap_device", m.recorder.swap_device},
                   {"memcg_limit_bytes", m.recorder.memcg_limit_bytes}};
  j["generator"] = m.generator;
  j["allocator"] = m.allocator;
  j["params"] = nlohmann::json::object();
  for (const auto& [k, v] : m.params) j["params"][k] = v;
  j["threads"] = nlohmann::json::array();
  for (size_t i = 0; i < m.threads.size(); ++i) {
    j["threads"].push_back({{"stream", i},
                            {"tid", m.threads[i].tid},
                            {"mm", m.threads[i].mm_id},
                            {"name", m.threads[i].name},
                            {"events", stats.per_stream[i]}});
  }
  j["files"] = nlohmann::json::array();
  for (const auto& f : m.files) {
    j["files"].push_back({{"id", f.id},
                          {"path", f.path},
                          {"size_bytes", f.size_bytes},
                          {"block_size", f.block_size},
                          {"kind", formats::file_kind_name(f.kind)},
                          {"created", f.created},
                          {"read_ahead_kb", f.read_ahead_kb}});
  }
  j["events"] = stats.events;
  j["events_per_kind"] = nlohmann::json::object();
  for (int k = 0; k < formats::kEventKindCount; ++k) {
    if (stats.per_kind[k] == 0) continue;
    j["events_per_kind"][std::string(formats::kind_name(static_cast<formats::EventKind>(k)))] =
        stats.per_kind[k];
  }
  j["vector_ranges"] = stats.vector_ranges;
  j["events_with_duration"] = stats.with_duration;
  j["first_ts_ns"] = stats.first_ts;
  j["last_ts_ns"] = stats.last_ts;
  j["span_ns"] = stats.last_ts - stats.first_ts;
  j["chunks"] = reader.chunks().size();
  j["file_bytes"] = stats.file_bytes;
  j["bytes_per_event"] = stats.bytes_per_event();
  j["index_recovered"] = reader.recovered();
  j["content_hash"] = formats::trace_content_hash(reader);
  if (list_chunks) {
    j["chunk_index"] = nlohmann::json::array();
    for (const formats::ChunkRef& c : reader.chunks()) {
      j["chunk_index"].push_back({{"offset", c.offset},
                                  {"size", c.size},
                                  {"stream", c.stream},
                                  {"seq", c.seq},
                                  {"events", c.events},
                                  {"first_ts_ns", c.first_ts},
                                  {"last_ts_ns", c.last_ts}});
    }
  }
  return j;
}

void print_text(const formats::TraceReader& reader, const formats::TraceStats& stats,
                bool list_chunks) {
  const formats::TraceMeta& m = reader.meta();
  fmt::print("file          {} ({}, {} chunks{})\n", reader.path(), human_bytes(stats.file_bytes),
             reader.chunks().size(), reader.recovered() ? ", index rebuilt" : ", indexed");
  fmt::print("format        {}.{}, content hash {}\n", m.version_major, m.version_minor,
             formats::trace_content_hash(reader));
  fmt::print("recorded by   {}\n", m.recorder.tool.empty() ? "(unknown)" : m.recorder.tool);
  if (!m.recorder.command_line.empty()) fmt::print("remake with   {}\n", m.recorder.command_line);
  if (!m.generator.empty()) {
    std::string params;
    for (const auto& [k, v] : m.params) params += fmt::format(" {}={}", k, v);
    fmt::print("generator     {}{}\n", m.generator, params);
  }
  if (!m.allocator.empty()) fmt::print("allocator     {}\n", m.allocator);
  fmt::print("machine       {} CPUs, {} memory, {} swap{}, {} B pages{}\n", m.recorder.cpus,
             human_bytes(m.recorder.memory_bytes), human_bytes(m.recorder.swap_bytes),
             m.recorder.swap_device.empty() ? "" : " (" + m.recorder.swap_device + ")",
             m.recorder.page_size,
             m.recorder.kernel_release.empty() ? "" : ", kernel " + m.recorder.kernel_release);
  if (m.recorder.min_free_kbytes != 0) {
    fmt::print("min_free      {} KB (vm.min_free_kbytes; replay on this memory uses it)\n",
               m.recorder.min_free_kbytes);
  }
  if (m.recorder.memcg_limit_bytes != 0) {
    fmt::print("memcg limit   {} (the recorded program's cgroup; replay uses it)\n",
               human_bytes(m.recorder.memcg_limit_bytes));
  }
  if (m.recorder.tracing_cost_ns != 0 || m.recorder.fault_cost_ns != 0) {
    fmt::print("tracing cost  {} ns per event, {} ns per page fault (taken out of replay gaps)\n",
               m.recorder.tracing_cost_ns, m.recorder.fault_cost_ns);
  }
  if (m.recorder.sync_wakes_on_waker_cpu + m.recorder.sync_wakes_on_other_cpu != 0) {
    fmt::print(
        "sync wake-ups {} ran on the waker's CPU, {} on another (replay's wake_affine follows "
        "the majority)\n",
        m.recorder.sync_wakes_on_waker_cpu, m.recorder.sync_wakes_on_other_cpu);
  }
  fmt::print("events        {} ({:.2f} bytes/event)\n", stats.events, stats.bytes_per_event());
  fmt::print("time span     {} s .. {} s ({} s)\n", seconds_from_ns(stats.first_ts),
             seconds_from_ns(stats.last_ts), seconds_from_ns(stats.last_ts - stats.first_ts));
  fmt::print("events per kind:\n");
  for (int k = 0; k < formats::kEventKindCount; ++k) {
    if (stats.per_kind[k] == 0) continue;
    fmt::print("  {:<16}{:>12}\n", formats::kind_name(static_cast<formats::EventKind>(k)),
               stats.per_kind[k]);
  }
  if (stats.vector_ranges > 0) fmt::print("  (vector ranges {})\n", stats.vector_ranges);
  fmt::print("threads       {}\n", m.threads.size());
  fmt::print("  {:>6} {:>10} {:>6} {:>12}  {}\n", "stream", "tid", "mm", "events", "name");
  for (size_t i = 0; i < m.threads.size() && i < kThreadsShown; ++i) {
    fmt::print("  {:>6} {:>10} {:>6} {:>12}  {}\n", i, m.threads[i].tid, m.threads[i].mm_id,
               stats.per_stream[i], m.threads[i].name);
  }
  if (m.threads.size() > kThreadsShown) {
    fmt::print("  ... {} more (--json lists all)\n", m.threads.size() - kThreadsShown);
  }
  for (const auto& f : m.files) {
    const std::string readahead =
        f.read_ahead_kb >= 0 ? fmt::format(", read_ahead_kb {}", f.read_ahead_kb) : "";
    fmt::print("file {:>4}     {} ({}, {}, {}, block {}{})\n", f.id, f.path,
               formats::file_kind_name(f.kind), f.created ? "created" : "existed",
               human_bytes(f.size_bytes), f.block_size, readahead);
  }
  if (!list_chunks) return;
  fmt::print("chunks        {}\n", reader.chunks().size());
  fmt::print("  {:>12} {:>9} {:>6} {:>6} {:>7}  {}\n", "offset", "size", "stream", "seq", "events",
             "first_ts .. last_ts (s)");
  for (const formats::ChunkRef& c : reader.chunks()) {
    fmt::print("  {:>12} {:>9} {:>6} {:>6} {:>7}  {} .. {}\n", c.offset, c.size, c.stream, c.seq,
               c.events, seconds_from_ns(c.first_ts), seconds_from_ns(c.last_ts));
  }
}

struct InfoArgs {
  std::string path;
  bool json = false;
  bool chunks = false;
};

Status run_info(const InfoArgs& args) {
  std::unique_ptr<formats::TraceReader> reader;
  if (Status s = open_trace(args.path, &reader); !s) return s;
  formats::TraceStats stats;
  if (Status s = formats::compute_stats(*reader, &stats); !s) return s;
  if (args.json) {
    std::printf("%s\n", to_json(*reader, stats, args.chunks).dump(2).c_str());
  } else {
    print_text(*reader, stats, args.chunks);
  }
  return Status::ok();
}

}  // namespace

void register_info_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("info", "Describe a trace: header, threads, events per kind");
  auto args = std::make_shared<InfoArgs>();
  cmd->add_option("file", args->path, "the .mmtrace file")->required();
  cmd->add_flag("--json", args->json, "print one JSON object instead of text");
  cmd->add_flag("--chunks", args->chunks,
                "list every chunk: offset, size, stream, seq, events, time span");
  cmd->callback(
      [args, exit_code] { *exit_code = report_status("trace-replay info", run_info(*args)); });
}

}  // namespace mmreplay::tools
