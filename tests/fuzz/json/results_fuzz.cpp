// Fuzz target for results JSON as `trace-replay merge` and `report` read it. The input is one or
// more results files separated by NUL bytes (JSON text holds none, so the fuzzer can make and
// split shards): each is loaded as `report` loads it (report::parse_study), and all of them are
// merged as `merge` merges its inputs (replay::merge_results_text). Damaged files must give a
// Status naming the file; an uncaught exception or a crash is what the fuzzer reports.

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "replay/results_json.h"
#include "tools/report/results_model.h"

namespace {
// A merge of more shards finds nothing that two or three do not; the bound keeps inputs cheap.
constexpr size_t kMaxShards = 8;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace mmreplay;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::vector<replay::ResultsText> shards;
  size_t begin = 0;
  while (shards.size() < kMaxShards) {
    const size_t end = std::min(bytes.find('\0', begin), bytes.size());
    shards.push_back({"shard" + std::to_string(shards.size()) + ".json",
                      std::string(bytes.substr(begin, end - begin))});
    if (end == bytes.size()) break;
    begin = end + 1;
  }
  for (const replay::ResultsText& shard : shards) {
    report::StudyData study;
    const Status s = report::parse_study(shard.text, shard.name, &study);
    if (s ? study.runs.empty() : s.message().rfind(shard.name + ":", 0) != 0) std::abort();
  }
  nlohmann::json merged;
  const Status s = replay::merge_results_text(shards, &merged);
  if (s && !merged["runs"].is_array()) std::abort();
  if (!s && s.message().empty()) std::abort();
  (void)merged.dump();
  return 0;
}
