// Checks a Chrome trace-event JSON timeline the way Perfetto reads it: parse, then per track
// (pid, tid) every "X" has a dur, ts never decreases in file order and slices nest.

#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace mmreplay::replay::testing {

inline int64_t ns_of(const nlohmann::json& us) {
  return std::llround(us.get<double>() * 1000.0);
}

struct TimelineSummary {
  size_t slices = 0;
  size_t instants = 0;
  size_t counters = 0;
  std::map<int64_t, std::string> thread_names;  // tid -> name
  int64_t min_ts = INT64_MAX;
  int64_t max_end = INT64_MIN;
};

// Fails the test (non-fatally) on every broken rule; returns what it saw.
inline TimelineSummary check_timeline(const nlohmann::json& doc) {
  TimelineSummary s;
  EXPECT_TRUE(doc.is_array());
  std::map<std::pair<int64_t, int64_t>, int64_t> last_ts;            // track -> last ts
  std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>> open;  // track -> end stack
  std::map<std::string, int64_t> last_counter;
  for (const nlohmann::json& e : doc) {
    const std::string ph = e.at("ph");
    if (ph == "M") {
      if (e.at("name") == "thread_name") s.thread_names[e.at("tid")] = e.at("args").at("name");
      continue;
    }
    const int64_t ts = ns_of(e.at("ts"));
    s.min_ts = std::min(s.min_ts, ts);
    if (ph == "C") {
      ++s.counters;
      const std::string name = e.at("name");
      auto it = last_counter.find(name);
      if (it != last_counter.end()) {
        EXPECT_GE(ts, it->second) << "counter " << name << " went back";
      }
      last_counter[name] = ts;
      s.max_end = std::max(s.max_end, ts);
      continue;
    }
    const std::pair<int64_t, int64_t> track{e.at("pid"), e.at("tid")};
    EXPECT_TRUE(s.thread_names.count(track.second)) << "tid " << track.second << " has no name";
    auto lt = last_ts.find(track);
    if (lt != last_ts.end()) {
      EXPECT_GE(ts, lt->second) << "ts went back on tid " << track.second << ": " << e.dump();
    }
    last_ts[track] = ts;
    if (ph == "i") {
      ++s.instants;
      s.max_end = std::max(s.max_end, ts);
      continue;
    }
    EXPECT_EQ(ph, "X") << e.dump();
    EXPECT_TRUE(e.contains("dur")) << e.dump();
    if (!e.contains("dur")) continue;
    ++s.slices;
    const int64_t end = ts + ns_of(e.at("dur"));
    EXPECT_GE(end, ts) << e.dump();
    s.max_end = std::max(s.max_end, end);
    std::vector<int64_t>& stack = open[track];
    while (!stack.empty() && stack.back() <= ts) stack.pop_back();
    if (!stack.empty()) {
      EXPECT_LE(end, stack.back()) << "partial overlap on tid " << track.second << ": " << e.dump();
    }
    stack.push_back(end);
  }
  return s;
}

// Events whose name starts with `prefix` (and of phase `ph` when given).
inline size_t count_named(const nlohmann::json& doc, const std::string& prefix,
                          const std::string& ph = "") {
  size_t n = 0;
  for (const nlohmann::json& e : doc) {
    if (e.at("ph") == "M" || !e.contains("name")) continue;
    if (!ph.empty() && e.at("ph") != ph) continue;
    if (e.at("name").get<std::string>().rfind(prefix, 0) == 0) ++n;
  }
  return n;
}

}  // namespace mmreplay::replay::testing
