#include "replay/results_json.h"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "formats/trace_hash.h"
#include "replay/policy_spec.h"

namespace mmreplay::replay {
namespace {

const char* timing_name(Timing t) {
  return t == Timing::kOpen ? "open" : "closed";
}
const char* placement_name(Placement p) {
  switch (p) {
    case Placement::kPack:
      return "pack";
    case Placement::kAsRecorded:
      return "as-recorded";
    case Placement::kSpread:
      break;
  }
  return "spread";
}

nlohmann::json trace_to_json(const formats::TraceReader& r) {
  const formats::TraceMeta& m = r.meta();
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [k, v] : m.params) params[k] = v;
  // What reading the trace reported: recovery, chunks dropped by --skip-damaged.
  nlohmann::json warnings = nlohmann::json::array();
  for (const std::string& w : r.warnings()) warnings.push_back(w);
  return {{"path", r.path()},
          {"content_hash", formats::trace_content_hash(r)},
          {"warnings", warnings},
          {"generator", m.generator},
          {"params", params},
          {"recorded_by", m.recorder.tool},
          {"command_line", m.recorder.command_line},
          {"threads", m.threads.size()},
          {"events", r.total_events()},
          {"chunks", r.chunks().size()},
          {"file_bytes", r.file_size()},
          {"machine",
           {{"cpus", m.recorder.cpus},
            {"memory_bytes", m.recorder.memory_bytes},
            {"swap_bytes", m.recorder.swap_bytes},
            {"swap_device", m.recorder.swap_device},
            {"min_free_kbytes", m.recorder.min_free_kbytes},
            {"memcg_limit_bytes", m.recorder.memcg_limit_bytes}}}};
}

}  // namespace

nlohmann::json histogram_to_json(const kernelsim::Histogram& h) {
  nlohmann::json buckets = nlohmann::json::array();
  h.for_each_bucket([&](uint64_t low, uint64_t high, uint64_t count) {
    buckets.push_back({low, high, count});
  });
  return {{"count", h.count()},         {"mean_ns", h.mean()},
          {"p50_ns", h.percentile(50)}, {"p90_ns", h.percentile(90)},
          {"p99_ns", h.percentile(99)}, {"p999_ns", h.percentile(99.9)},
          {"max_ns", h.max()},          {"min_ns", h.min()},
          {"sum_ns", h.sum()},          {"buckets", buckets}};
}

nlohmann::json run_to_json(size_t index, const RunResult& r) {
  nlohmann::json ops = nlohmann::json::object();
  for (const auto& [key, h] : r.ops) ops[key] = histogram_to_json(h);
  nlohmann::json locks = nlohmann::json::object();
  for (const auto& [key, l] : r.locks) {
    locks[key] = {{"acquisitions", l.acquisitions},
                  {"contentions", l.contentions},
                  {"bounces", l.bounces},
                  {"wait", histogram_to_json(l.wait)},
                  {"hold", histogram_to_json(l.hold)}};
  }
  nlohmann::json per_cpu = nlohmann::json::array();
  for (size_t c = 0; c < r.per_cpu.size(); ++c) {
    per_cpu.push_back({{"cpu", c},
                       {"ipis_sent", r.per_cpu[c].ipis_sent},
                       {"ipis_received", r.per_cpu[c].ipis_received},
                       {"irq_ns", r.per_cpu[c].irq_ns},
                       {"context_switches", r.per_cpu[c].context_switches},
                       {"busy_ns", r.per_cpu[c].busy_ns},
                       {"idle_ns", r.per_cpu[c].idle_ns}});
  }
  nlohmann::json j = {{"index", index},
                      {"policy", r.spec.policy_name},
                      {"policy_knobs", r.effective_policy},
                      {"cpus", r.cpus},
                      {"profile", r.spec.profile},
                      {"timing", timing_name(r.spec.timing)},
                      {"placement", placement_name(r.spec.placement)},
                      {"cache", cache_start_name(r.spec.cache)},
                      {"machine",
                       {{"cpus", r.cpus},
                        {"memory_bytes", r.memory_bytes},
                        {"swap_bytes", r.swap_bytes},
                        {"min_free_kbytes", r.min_free_kbytes},
                        {"memcg_limit_bytes", r.memcg_limit_bytes}}},
                      {"makespan_ns", r.makespan_ns},
                      {"operations", r.operations},
                      {"throughput_ops_per_s", r.throughput_ops_per_s()},
                      {"events_replayed", r.events_replayed},
                      {"ops", ops},
                      {"locks", locks},
                      {"counters", r.counters},
                      {"open_loop_lateness", histogram_to_json(r.open_loop_lateness)},
                      {"per_cpu", per_cpu}};
  // Only with --machine, so results without one read as they always did.
  if (!r.spec.machine.empty()) j["machine"]["preset"] = r.spec.machine;
  // Only when the OOM killer ran: each kill as the kernel logs it.
  if (!r.oom_kills.empty()) {
    nlohmann::json kills = nlohmann::json::array();
    for (const OomKillResult& k : r.oom_kills) {
      kills.push_back({{"at_ns", k.at_ns},
                       {"pid", k.pid},
                       {"comm", k.comm},
                       {"invoked_by", k.invoked_by},
                       {"constraint", k.memcg ? "memcg" : "none"},
                       {"anon_rss_kb", k.anon_rss_kb},
                       {"file_rss_kb", k.file_rss_kb},
                       {"swapents_kb", k.swapents_kb},
                       {"pgtables_kb", k.pgtables_kb}});
    }
    j["oom_kills"] = kills;
  }
  // Only for zram, so results of a block device read as they always did.
  if (r.swap_device != kernelsim::SwapDevice::kBlock) {
    j["machine"]["swap_device"] = swap_device_name(r.swap_device);
  }
  return j;
}

namespace {

// The first key of object `a` whose value in `b` differs ("" when none): `first` before the
// others, the keys in `skip` not at all.
std::string first_differing_key(const nlohmann::json& a, const nlohmann::json& b,
                                const std::string& first = "",
                                std::initializer_list<std::string_view> skip = {}) {
  const auto differs = [&](const std::string& key) {
    return a.value(key, nlohmann::json()) != b.value(key, nlohmann::json());
  };
  if (!first.empty() && differs(first)) return first;
  for (const auto& [key, value] : a.items()) {
    if (std::find(skip.begin(), skip.end(), key) == skip.end() && differs(key)) return key;
  }
  return "";
}

// "A vs B": the two values of `key`.
std::string values_of(const nlohmann::json& a, const nlohmann::json& b, const std::string& key) {
  return a.value(key, nlohmann::json()).dump() + " vs " + b.value(key, nlohmann::json()).dump();
}

// What makes two results files shards of one study: every run's spec, the shard count and the
// traces. Every shard writes it for the whole study, so merge can compare shards that hold
// different runs (issue 15: shards of `--cpus 4` and `--cpus 8` merged silently).
nlohmann::json study_identity(const Study& study, const Shard& shard) {
  nlohmann::json specs = nlohmann::json::array();
  for (const StudyRun& run : study.runs) {
    const RunSpec& s = run.spec;
    specs.push_back({{"trace", run.trace},
                     {"policy", s.policy_name},
                     {"policy_knobs", format_policy_knobs(s.config, s.rewrites)},
                     {"cpus", s.cpus},
                     {"memory_bytes", s.memory_bytes},
                     {"swap_bytes", s.swap_bytes},
                     {"swap_device", s.swap_device},
                     {"min_free_kbytes", s.min_free_kbytes},
                     {"memcg_limit_bytes", s.memcg_limit_bytes},
                     {"cma_bytes", s.cma_bytes},
                     {"profile", s.profile},
                     {"timing", timing_name(s.timing)},
                     {"placement", placement_name(s.placement)},
                     {"cache", cache_start_name(s.cache)}});
    if (!s.machine.empty()) specs.back()["machine"] = s.machine;
  }
  return {{"shards", shard.count}, {"runs", specs}};
}

// The first difference between two identities, as "run 2: cpus 4 vs 8"; "" when equal.
std::string identity_difference(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.value("shards", nlohmann::json()) != b.value("shards", nlohmann::json())) {
    return "shard count " + a.value("shards", nlohmann::json()).dump() + " vs " +
           b.value("shards", nlohmann::json()).dump();
  }
  const nlohmann::json& ra = a["runs"];
  const nlohmann::json& rb = b["runs"];
  if (ra.size() != rb.size()) {
    return std::to_string(ra.size()) + " vs " + std::to_string(rb.size()) + " runs";
  }
  for (size_t i = 0; i < ra.size(); ++i) {
    if (const std::string key = first_differing_key(ra[i], rb[i]); !key.empty()) {
      return "run " + std::to_string(i + 1) + ": " + key + " " + values_of(ra[i], rb[i], key);
    }
  }
  return a == b ? "" : "study description";
}

// The first difference between two results files' traces, as "trace 1 content_hash: a vs b"; ""
// when they replayed the same traces. Paths (and the warnings that name them) are not compared:
// shards run on other machines keep their copies elsewhere, and the content hash says whether the
// copies are the same trace.
std::string traces_difference(const nlohmann::json& a, const nlohmann::json& b) {
  if (!a.is_array() || !b.is_array() || a.size() != b.size()) return "traces";
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_object() || !b[i].is_object()) return "traces";
    // The content hash first: it is what says whether two traces are the same. The path and
    // the warnings name the file where it lies.
    if (const std::string key =
            first_differing_key(a[i], b[i], "content_hash", {"path", "warnings"});
        !key.empty()) {
      return "trace " + std::to_string(i + 1) + " " + key + ": " + values_of(a[i], b[i], key);
    }
  }
  return "";
}

}  // namespace

nlohmann::json study_to_json(const StudyInfo& info, const Study& study, const StudyResult& result) {
  nlohmann::json j;
  j["schema"] = kResultsSchema;
  nlohmann::json traces = nlohmann::json::array();
  for (const auto* t : study.traces) traces.push_back(trace_to_json(*t));
  j["trace"] = traces.empty() ? nlohmann::json::object() : traces.front();
  j["traces"] = traces;
  j["study"] = {
      {"command", info.command},
      {"runs_total", info.runs_total},
      {"shard", std::to_string(info.shard.index) + "/" + std::to_string(info.shard.count)},
      {"identity", study_identity(study, info.shard)}};
  nlohmann::json runs = nlohmann::json::array();
  for (size_t i = 0; i < result.runs.size(); ++i) {
    const size_t index = result.run_index[i];
    const bool failed = i < result.run_status.size() && !result.run_status[i];
    // A failed run keeps only what names it and why: its figures are not results (merge and
    // report refuse the file, issue 15).
    nlohmann::json run = failed ? nlohmann::json{{"index", index},
                                                 {"policy", study.runs[index].spec.policy_name},
                                                 {"failed", result.run_status[i].message()}}
                                : run_to_json(index, result.runs[i]);
    run["trace"] = study.runs[index].trace;
    runs.push_back(std::move(run));
  }
  j["runs"] = runs;
  const HostStats& h = result.host;
  j["host"] = {{"wall_seconds", h.wall_seconds},       {"threads", h.threads},
               {"events_replayed", h.events_replayed}, {"events_per_second", h.events_per_second},
               {"cache_hits", h.cache.hits},           {"cache_misses", h.cache.misses},
               {"cache_hit_rate", h.cache.hit_rate()}, {"cache_capacity_chunks", h.cache_capacity},
               {"peak_rss_kb", h.peak_rss_kb}};
  return j;
}

namespace {

// A host counter of a shard: absent is 0; anything but a whole number in range is damage.
// nlohmann's value<uint64_t>() casts a floating value (2.7e115) to the integer type, which is
// undefined behaviour past its range, so the type is checked first (as report's whole<T>()).
uint64_t host_count(const nlohmann::json& host, const char* key) {
  if (!host.contains(key)) return 0;
  const nlohmann::json& v = host[key];
  if (!v.is_number_unsigned()) {
    throw std::invalid_argument(std::string("host.") + key + " is " + v.dump() +
                                ", not a whole number");
  }
  return v.get<uint64_t>();
}

double host_seconds(const nlohmann::json& host) {
  if (!host.contains("wall_seconds")) return 0.0;
  const nlohmann::json& v = host["wall_seconds"];
  if (!v.is_number() || !(v.get<double>() >= 0.0)) {
    throw std::invalid_argument("host.wall_seconds is " + v.dump() + ", not a number of seconds");
  }
  return v.get<double>();
}

Status merge_results_checked(const std::vector<ResultsText>& inputs, nlohmann::json* merged,
                             std::string* current) {
  std::map<uint64_t, nlohmann::json> runs;
  nlohmann::json host = {{"wall_seconds", 0.0}, {"events_replayed", 0}, {"cache_hits", 0},
                         {"cache_misses", 0},   {"peak_rss_kb", 0},     {"shards", 0}};
  for (const ResultsText& input : inputs) {
    const std::string& path = input.name;
    *current = path;
    nlohmann::json j = nlohmann::json::parse(input.text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) return Status::corruption(path + ": not JSON");
    if (!j.contains("schema") || !j["schema"].is_number_integer() ||
        j["schema"].get<int64_t>() != kResultsSchema || !j.contains("runs") ||
        !j["runs"].is_array()) {
      return Status::corruption(path + ": not a schema " + std::to_string(kResultsSchema) +
                                " results file");
    }
    const nlohmann::json& study = j["study"];
    if (!study.is_object() || !study.contains("command") || !study["command"].is_string() ||
        !study.contains("runs_total") || !study["runs_total"].is_number_unsigned() ||
        !study.contains("identity") || !study["identity"].is_object() ||
        !study["identity"].contains("runs") || !study["identity"]["runs"].is_array() ||
        !j.contains("traces") || !j["traces"].is_array() ||
        (j.contains("host") && !j["host"].is_object())) {
      return Status::corruption(path + ": results without a complete \"study\" section " +
                                "(written by an older trace-replay, or damaged)");
    }
    // Sound files that do not make up one study: the list of inputs is the bad argument.
    if (merged->is_null()) {
      *merged = j;
    } else {
      std::string difference = traces_difference((*merged)["traces"], j["traces"]);
      if (study["command"] != (*merged)["study"]["command"]) difference = "command";
      if (study["runs_total"] != (*merged)["study"]["runs_total"]) difference = "runs_total";
      if (difference.empty()) {
        difference = identity_difference((*merged)["study"]["identity"], study["identity"]);
      }
      if (!difference.empty()) {
        return Status::invalid_argument(path + ": a shard of a different study than " +
                                        inputs.front().name + " (" + difference + ")");
      }
    }
    for (const auto& run : j["runs"]) {
      if (!run.is_object() || !run.contains("index") || !run["index"].is_number_unsigned()) {
        return Status::corruption(path + ": a run without an index");
      }
      if (run.contains("failed")) {
        return Status::invalid_argument(
            path + ": run " + std::to_string(run["index"].get<uint64_t>() + 1) +
            " failed and holds no results (" + run["failed"].dump() + "); rerun it");
      }
      const uint64_t index = run.value("index", uint64_t{0});
      if (!runs.emplace(index, run).second) {
        return Status::invalid_argument(path + ": run " + std::to_string(index + 1) +
                                        " is also in another shard");
      }
    }
    const nlohmann::json h = j.value("host", nlohmann::json::object());
    host["wall_seconds"] = host["wall_seconds"].get<double>() + host_seconds(h);
    for (const char* k : {"events_replayed", "cache_hits", "cache_misses"}) {
      host[k] = host[k].get<uint64_t>() + host_count(h, k);
    }
    host["peak_rss_kb"] =
        std::max(host["peak_rss_kb"].get<uint64_t>(), host_count(h, "peak_rss_kb"));
    host["shards"] = host["shards"].get<uint64_t>() + 1;
  }
  if (merged->is_null()) return Status::invalid_argument("merge: no input files");
  const uint64_t total = (*merged)["study"].value("runs_total", uint64_t{0});
  nlohmann::json list = nlohmann::json::array();
  for (auto& [index, run] : runs) list.push_back(std::move(run));
  if (list.size() != total) {
    return Status::invalid_argument("merge: " + std::to_string(list.size()) + " of " +
                                    std::to_string(total) + " runs present; a shard is missing");
  }
  (*merged)["runs"] = list;
  (*merged)["study"]["shard"] = "1/1";
  (*merged)["study"]["identity"]["shards"] = 1;
  (*merged)["host"] = host;
  return Status::ok();
}

}  // namespace

Status merge_results_text(const std::vector<ResultsText>& inputs, nlohmann::json* merged) {
  // A results file of the right schema whose fields have the wrong types would otherwise throw
  // from nlohmann's accessors; it is a damaged or foreign file like any other.
  std::string current;
  try {
    return merge_results_checked(inputs, merged, &current);
  } catch (const nlohmann::json::exception& e) {
    return Status::corruption(current + ": malformed results (" + e.what() + ")");
  } catch (const std::invalid_argument& e) {
    return Status::corruption(current + ": malformed results (" + e.what() + ")");
  }
}

Status merge_results(const std::vector<std::string>& paths, nlohmann::json* merged) {
  std::vector<ResultsText> inputs;
  for (const std::string& path : paths) {
    std::ifstream in(path);
    if (!in) return Status::from_errno(errno, path + ": cannot open");
    std::ostringstream text;
    text << in.rdbuf();
    inputs.push_back({path, text.str()});
  }
  return merge_results_text(inputs, merged);
}

}  // namespace mmreplay::replay
