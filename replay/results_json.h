// The JSON results of a study (schema 1, documented in README "Results JSON"):
//   { "schema": 1, "trace": {...}, "traces": [...], "study": {...}, "runs": [...], "host": {...} }
// Everything outside "host" is deterministic: the same study gives byte-identical JSON on any
// number of host threads. Each histogram carries its summary (count, mean, p50 ... max) and its
// non-empty buckets, so reports and .hgrm files can be made again from the JSON alone.

#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/status.h"
#include "replay/study.h"

namespace mmreplay::replay {

inline constexpr int kResultsSchema = 1;

// What the study was, as the command line described it.
struct StudyInfo {
  std::string command;  // "replay", "compare", "scale"
  std::vector<std::string> trace_paths;
  size_t runs_total = 0;  // runs in the whole study (all shards)
  Shard shard;
};

nlohmann::json histogram_to_json(const kernelsim::Histogram& h);
nlohmann::json run_to_json(size_t index, const RunResult& run);
nlohmann::json study_to_json(const StudyInfo& info, const Study& study, const StudyResult& result);

// Merges shard results: same study, disjoint runs; the result is what the unsharded study gives
// (runs in index order), with host figures summed. Errors name the file.
Status merge_results(const std::vector<std::string>& paths, nlohmann::json* merged);

// One results file's text and the name that stands for it in messages.
struct ResultsText {
  std::string name;
  std::string text;
};
// merge_results on files already read: what it does after reading them, apart so that the fuzz
// target can feed it bytes.
Status merge_results_text(const std::vector<ResultsText>& inputs, nlohmann::json* merged);

}  // namespace mmreplay::replay
