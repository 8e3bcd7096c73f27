// The part of a results JSON file (schema 1, replay/results_json.h) that the HTML report draws:
// per run its policy, CPUs, throughput, operation and lock histograms (summary and buckets) and
// counters. Loading checks the shape and says what is wrong, naming the file and the run.

#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/status.h"

namespace mmreplay::report {

struct BucketData {
  uint64_t low;
  uint64_t high;
  uint64_t count;
};

struct HistogramData {
  uint64_t count = 0;
  double mean_ns = 0;
  uint64_t p50_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0, min_ns = 0, max_ns = 0;
  std::vector<BucketData> buckets;  // non-empty buckets in value order
};

struct LockData {
  uint64_t acquisitions = 0;
  uint64_t contentions = 0;
  uint64_t bounces = 0;
  HistogramData wait;
  HistogramData hold;
};

struct RunData {
  uint64_t index = 0;
  std::string policy;
  uint32_t cpus = 0;
  std::string profile;
  uint64_t makespan_ns = 0;
  uint64_t operations = 0;
  double throughput_ops_per_s = 0;
  std::map<std::string, HistogramData> ops;
  std::map<std::string, LockData> locks;
  std::map<std::string, uint64_t> counters;
};

struct StudyData {
  std::string source;      // the file it came from
  std::string command;     // replay, compare, scale
  std::string trace;       // the first trace's path
  std::string generator;   // the first trace's generator, "" if recorded
  size_t trace_count = 0;  // scale --workload generates one trace per core count
  std::vector<RunData> runs;

  // True for a scale study, or any study whose runs differ in CPU count.
  bool is_scale() const;
};

// Reads `path`; errors read "PATH: what is wrong".
Status load_study(const std::string& path, StudyData* study);

// Same, from the file's text; `name` stands for the file in messages. What load_study does after
// reading, apart so that the fuzz target can feed it bytes.
Status parse_study(const std::string& text, const std::string& name, StudyData* study);

// Same, from parsed JSON; `name` stands for the file in messages.
Status study_from_json(const nlohmann::json& j, const std::string& name, StudyData* study);

}  // namespace mmreplay::report
