#include "tools/validate/extract.h"

namespace mmreplay::validate {
namespace {

constexpr double kNsPerSecond = 1e9;
constexpr double kNsPerMicrosecond = 1e3;

}  // namespace

Extract elapsed_seconds() {
  return [](const replay::RunResult& r) -> std::optional<double> {
    return static_cast<double>(r.makespan_ns) / kNsPerSecond;
  };
}

Extract counter(std::string name) {
  return [name](const replay::RunResult& r) -> std::optional<double> {
    auto it = r.counters.find(name);
    if (it == r.counters.end()) return std::nullopt;
    return static_cast<double>(it->second);
  };
}

Extract per_cpu_rate(std::string counter_name) {
  return [counter_name](const replay::RunResult& r) -> std::optional<double> {
    auto it = r.counters.find(counter_name);
    if (it == r.counters.end() || r.makespan_ns == 0 || r.cpus == 0) return std::nullopt;
    return static_cast<double>(it->second) / r.cpus /
           (static_cast<double>(r.makespan_ns) / kNsPerSecond);
  };
}

Extract faults_per_second() {
  return [](const replay::RunResult& r) -> std::optional<double> {
    auto it = r.counters.find("faults");
    if (it == r.counters.end() || r.makespan_ns == 0) return std::nullopt;
    return static_cast<double>(it->second) / (static_cast<double>(r.makespan_ns) / kNsPerSecond);
  };
}

Extract op_time_seconds(std::vector<std::string> ops, double per) {
  return [ops, per](const replay::RunResult& r) -> std::optional<double> {
    if (per <= 0) return std::nullopt;
    double ns = 0;
    for (const std::string& op : ops) {
      auto it = r.ops.find(op);
      if (it != r.ops.end()) ns += static_cast<double>(it->second.count()) * it->second.mean();
    }
    return ns / kNsPerSecond / per;
  };
}

Extract lock_contentions(std::string lock) {
  return [lock](const replay::RunResult& r) -> std::optional<double> {
    auto it = r.locks.find(lock);
    if (it == r.locks.end()) return 0.0;  // never taken: never contended
    return static_cast<double>(it->second.contentions);
  };
}

Extract lock_wait_seconds(std::string lock) {
  return [lock](const replay::RunResult& r) -> std::optional<double> {
    auto it = r.locks.find(lock);
    if (it == r.locks.end()) return 0.0;
    const auto& w = it->second.wait;
    return static_cast<double>(w.count()) * w.mean() / kNsPerSecond;
  };
}

Extract op_percentile_us(std::string op, double percentile) {
  return [op, percentile](const replay::RunResult& r) -> std::optional<double> {
    auto it = r.ops.find(op);
    if (it == r.ops.end() || it->second.count() == 0) return std::nullopt;
    return static_cast<double>(it->second.percentile(percentile)) / kNsPerMicrosecond;
  };
}

}  // namespace mmreplay::validate
