#include "tools/report/results_model.h"

#include <cerrno>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

namespace mmreplay::report {
namespace {

// The schema this reader understands; replay::kResultsSchema writes it.
constexpr int kSchema = 1;

// nlohmann's typed getters throw on a wrong type; the callers turn that into one message line.
// A whole number of type T from a results field. nlohmann's get<T>() casts a floating value
// (2.7e115) to the integer type, which is undefined past its range: the 10-minute fuzz run of
// fuzz_results_json found it (results_corpus/crash_float_count.json).
template <class T>
T whole(const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    const uint64_t n = v.get<uint64_t>();
    if (n <= std::numeric_limits<T>::max()) return static_cast<T>(n);
  } else if (v.is_number_integer() && v.get<int64_t>() >= 0) {
    const uint64_t n = static_cast<uint64_t>(v.get<int64_t>());
    if (n <= std::numeric_limits<T>::max()) return static_cast<T>(n);
  }
  throw std::invalid_argument(v.dump() + " is not a whole number of its field's range");
}

HistogramData histogram_from_json(const nlohmann::json& j) {
  HistogramData h;
  h.count = whole<uint64_t>(j.at("count"));
  h.mean_ns = j.at("mean_ns").get<double>();
  h.p50_ns = whole<uint64_t>(j.at("p50_ns"));
  h.p90_ns = whole<uint64_t>(j.at("p90_ns"));
  h.p99_ns = whole<uint64_t>(j.at("p99_ns"));
  h.p999_ns = whole<uint64_t>(j.at("p999_ns"));
  h.min_ns = whole<uint64_t>(j.at("min_ns"));
  h.max_ns = whole<uint64_t>(j.at("max_ns"));
  uint64_t total = 0;
  for (const auto& b : j.at("buckets")) {
    if (!b.is_array() || b.size() != 3)
      throw std::invalid_argument("a bucket is not [low, high, count]");
    h.buckets.push_back({whole<uint64_t>(b[0]), whole<uint64_t>(b[1]), whole<uint64_t>(b[2])});
    total += h.buckets.back().count;
  }
  if (total != h.count) {
    throw std::invalid_argument("bucket counts add up to " + std::to_string(total) + ", not " +
                                std::to_string(h.count));
  }
  return h;
}

RunData run_from_json(const nlohmann::json& j) {
  RunData r;
  r.index = whole<uint64_t>(j.at("index"));
  r.policy = j.at("policy").get<std::string>();
  r.cpus = whole<uint32_t>(j.at("cpus"));
  r.profile = j.value("profile", std::string());
  r.makespan_ns = whole<uint64_t>(j.at("makespan_ns"));
  r.operations = whole<uint64_t>(j.at("operations"));
  r.throughput_ops_per_s = j.at("throughput_ops_per_s").get<double>();
  for (const auto& [name, h] : j.at("ops").items()) {
    try {
      r.ops[name] = histogram_from_json(h);
    } catch (const std::exception& e) {
      throw std::invalid_argument("ops." + name + ": " + e.what());
    }
  }
  for (const auto& [name, l] : j.at("locks").items()) {
    try {
      LockData& d = r.locks[name];
      d.acquisitions = whole<uint64_t>(l.at("acquisitions"));
      d.contentions = whole<uint64_t>(l.at("contentions"));
      d.bounces = l.contains("bounces") ? whole<uint64_t>(l.at("bounces")) : 0;
      d.wait = histogram_from_json(l.at("wait"));
      d.hold = histogram_from_json(l.at("hold"));
    } catch (const std::exception& e) {
      throw std::invalid_argument("locks." + name + ": " + e.what());
    }
  }
  for (const auto& [name, v] : j.at("counters").items()) r.counters[name] = whole<uint64_t>(v);
  return r;
}

}  // namespace

bool StudyData::is_scale() const {
  if (command == "scale") return true;
  std::set<uint32_t> cpus;
  for (const RunData& r : runs) cpus.insert(r.cpus);
  return cpus.size() > 1;
}

namespace {

Status study_from_json_checked(const nlohmann::json& j, const std::string& name, StudyData* s) {
  if (!j.is_object() || j.value("schema", 0) != kSchema || !j.contains("runs") ||
      !j["runs"].is_array()) {
    return Status::corruption(name + ": not a schema " + std::to_string(kSchema) +
                              " results file (no \"schema\": 1 and \"runs\" array)");
  }
  *s = StudyData();
  s->source = name;
  if (j.contains("study") && j["study"].is_object()) {
    s->command = j["study"].value("command", std::string());
  }
  if (j.contains("trace") && j["trace"].is_object()) {
    s->trace = j["trace"].value("path", std::string());
    s->generator = j["trace"].value("generator", std::string());
  }
  if (j.contains("traces") && j["traces"].is_array()) s->trace_count = j["traces"].size();
  const auto& runs = j["runs"];
  if (runs.empty()) return Status::invalid_argument(name + ": no runs");
  for (size_t i = 0; i < runs.size(); ++i) {
    // A study that kept going past a failed run marks it; a page drawn without it would compare
    // the policies that finished as if they were all (issue 15).
    if (runs[i].is_object() && runs[i].contains("failed")) {
      return Status::invalid_argument(name + ": run " + std::to_string(i + 1) +
                                      " failed and holds no results (" + runs[i]["failed"].dump() +
                                      "); rerun it");
    }
    try {
      s->runs.push_back(run_from_json(runs[i]));
    } catch (const std::exception& e) {
      return Status::corruption(name + ": run " + std::to_string(i + 1) + ": " + e.what());
    }
  }
  return Status::ok();
}

}  // namespace

Status study_from_json(const nlohmann::json& j, const std::string& name, StudyData* s) {
  // value() throws as the typed getters do when the key holds another type ({"schema": "1"},
  // "command": 5), and `report` died of the uncaught type_error (issue 15's fuzzing; the inputs are
  // in tests/fuzz/json/results_corpus/crash_*). Such a file is damaged like any other.
  try {
    return study_from_json_checked(j, name, s);
  } catch (const nlohmann::json::exception& e) {
    return Status::corruption(name + ": malformed results (" + e.what() + ")");
  }
}

Status parse_study(const std::string& text, const std::string& name, StudyData* study) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return Status::corruption(name + ": not JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::exception& e) {
    // A number past double's range (1e999) is out_of_range, not parse_error: the 10-minute
    // fuzz run found it (tests/fuzz/json/results_corpus/crash_number_out_of_range.json).
    return Status::corruption(name + ": not JSON (" + e.what() + ")");
  }
  return study_from_json(j, name, study);
}

Status load_study(const std::string& path, StudyData* study) {
  std::ifstream in(path);
  if (!in) return Status::from_errno(errno, path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_study(text.str(), path, study);
}

}  // namespace mmreplay::report
