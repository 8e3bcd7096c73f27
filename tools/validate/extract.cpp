#include "tools/validate/extract.h"

#include "replay/result_keys.h"

namespace mmreplay::validate {
namespace {

constexpr double kNsPerSecond = 1e9;
constexpr double kNsPerMicrosecond = 1e3;

ResultKey op_key(std::string name) {
  return {ResultKey::Kind::kOp, std::move(name)};
}
ResultKey lock_key(std::string name) {
  return {ResultKey::Kind::kLock, std::move(name)};
}
ResultKey counter_key(std::string name) {
  return {ResultKey::Kind::kCounter, std::move(name)};
}

}  // namespace

Extract elapsed_seconds() {
  auto read = [](const replay::RunResult& r) -> std::optional<double> {
    return static_cast<double>(r.makespan_ns) / kNsPerSecond;
  };
  return {{}, read};
}

Extract counter(std::string name) {
  auto read = [name](const replay::RunResult& r) -> std::optional<double> {
    auto it = r.counters.find(name);
    if (it == r.counters.end()) return std::nullopt;
    return static_cast<double>(it->second);
  };
  return {{counter_key(name)}, read};
}

Extract per_cpu_rate(std::string counter_name) {
  auto read = [counter_name](const replay::RunResult& r) -> std::optional<double> {
    auto it = r.counters.find(counter_name);
    if (it == r.counters.end() || r.makespan_ns == 0 || r.cpus == 0) return std::nullopt;
    return static_cast<double>(it->second) / r.cpus /
           (static_cast<double>(r.makespan_ns) / kNsPerSecond);
  };
  return {{counter_key(counter_name)}, read};
}

Extract machine_rate(std::string counter_name) {
  auto read = [counter_name](const replay::RunResult& r) -> std::optional<double> {
    auto it = r.counters.find(counter_name);
    if (it == r.counters.end() || r.makespan_ns == 0) return std::nullopt;
    return static_cast<double>(it->second) / (static_cast<double>(r.makespan_ns) / kNsPerSecond);
  };
  return {{counter_key(counter_name)}, read};
}

Extract faults_per_second() {
  return machine_rate("faults");
}

Extract op_time_seconds(std::vector<std::string> ops, double per) {
  std::vector<ResultKey> keys;
  for (const std::string& op : ops) keys.push_back(op_key(op));
  auto read = [ops, per](const replay::RunResult& r) -> std::optional<double> {
    if (per <= 0) return std::nullopt;
    double ns = 0;
    for (const std::string& op : ops) {
      auto it = r.ops.find(op);
      if (it != r.ops.end()) ns += static_cast<double>(it->second.count()) * it->second.mean();
    }
    return ns / kNsPerSecond / per;
  };
  return {std::move(keys), read};
}

Extract lock_contentions(std::string lock) {
  auto read = [lock](const replay::RunResult& r) -> std::optional<double> {
    auto it = r.locks.find(lock);
    if (it == r.locks.end()) return 0.0;  // a known class never taken: never contended
    return static_cast<double>(it->second.contentions);
  };
  return {{lock_key(lock)}, read};
}

Extract lock_wait_seconds(std::string lock) {
  auto read = [lock](const replay::RunResult& r) -> std::optional<double> {
    auto it = r.locks.find(lock);
    if (it == r.locks.end()) return 0.0;
    const auto& w = it->second.wait;
    return static_cast<double>(w.count()) * w.mean() / kNsPerSecond;
  };
  return {{lock_key(lock)}, read};
}

Extract op_percentile_us(std::string op, double percentile) {
  auto read = [op, percentile](const replay::RunResult& r) -> std::optional<double> {
    auto it = r.ops.find(op);
    if (it == r.ops.end() || it->second.count() == 0) return std::nullopt;
    return static_cast<double>(it->second.percentile(percentile)) / kNsPerMicrosecond;
  };
  return {{op_key(op)}, read};
}

Extract op_mean_us(std::string op) {
  auto read = [op](const replay::RunResult& r) -> std::optional<double> {
    auto it = r.ops.find(op);
    if (it == r.ops.end() || it->second.count() == 0) return std::nullopt;
    return it->second.mean() / kNsPerMicrosecond;
  };
  return {{op_key(op)}, read};
}

Extract busy_cpu_seconds() {
  auto read = [](const replay::RunResult& r) -> std::optional<double> {
    uint64_t busy = 0;
    for (const replay::CpuResult& c : r.per_cpu) busy += c.busy_ns;
    return static_cast<double>(busy) / kNsPerSecond;
  };
  return {{}, read};  // per_cpu: no keyed figure
}

namespace {

std::vector<ResultKey> process_time_keys() {
  return {counter_key("busy_ns"), counter_key("kthread_ns"), counter_key("user_ns"),
          counter_key("irq_user_ns")};
}

// An Extract of RunResult::process_times(), in seconds.
template <typename Part>
Extract process_time(Part part) {
  auto read = [part](const replay::RunResult& r) -> std::optional<double> {
    auto t = r.process_times();
    if (!t) return std::nullopt;
    return static_cast<double>(part(*t)) / kNsPerSecond;
  };
  return {process_time_keys(), read};
}

}  // namespace

Extract user_cpu_seconds() {
  return process_time([](const replay::RunResult::ProcessTimes& t) { return t.user_ns; });
}

Extract system_cpu_seconds() {
  return process_time(
      [](const replay::RunResult::ProcessTimes& t) { return t.busy_ns - t.user_ns; });
}

Extract process_cpu_seconds() {
  return process_time([](const replay::RunResult::ProcessTimes& t) { return t.busy_ns; });
}

Status check_case(const ValidationCase& vc) {
  for (const Metric& m : vc.metrics) {
    for (const ResultKey& k : m.model.keys) {
      const char* what = nullptr;
      switch (k.kind) {
        case ResultKey::Kind::kOp:
          if (!replay::is_op_key(k.name)) what = "operation";
          break;
        case ResultKey::Kind::kLock:
          if (!replay::is_lock_key(k.name)) what = "lock";
          break;
        case ResultKey::Kind::kCounter:
          if (!replay::is_counter_key(k.name)) what = "counter";
          break;
      }
      if (what != nullptr) {
        return Status::invalid_argument("case " + vc.name + ", metric '" + m.name + "': unknown " +
                                        what + " '" + k.name + "' (no run has it)");
      }
    }
  }
  return Status::ok();
}

}  // namespace mmreplay::validate
