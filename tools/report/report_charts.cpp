#include "tools/report/report_charts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "common/counters.h"
#include "tools/report/percentile_curve.h"
#include "tools/report/svg.h"

namespace mmreplay::report {
namespace {

// Where the percentile curves carry markers: the labelled ticks.
const std::vector<double> kMarkedPercentiles = {0.5, 0.9, 0.99, 0.999, 0.9999};

std::string format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string count_label(double v) {
  if (v >= 1e9) return format("%gG", v / 1e9);
  if (v >= 1e6) return format("%gM", v / 1e6);
  if (v >= 1e3) return format("%gk", v / 1e3);
  return format("%g", v);
}

// A log axis spanning whole decades around [lo, hi].
Axis decade_axis(double lo, double hi, std::string label,
                 const std::function<std::string(double)>& fmt) {
  Axis a;
  a.label = std::move(label);
  a.log = true;
  lo = std::max(lo, 1.0);
  hi = std::max(hi, lo);
  a.min = std::pow(10.0, std::floor(std::log10(lo) + 1e-9));
  a.max = std::pow(10.0, std::ceil(std::log10(hi) - 1e-9));
  if (a.max <= a.min) a.max = a.min * 10;
  a.ticks = log_ticks(a.min, a.max, fmt);
  return a;
}

// The CPU axis of scale charts: log scale, a tick at each core count measured.
Axis cpu_axis(const std::set<uint32_t>& cpus) {
  Axis a;
  a.label = "simulated CPUs (log scale)";
  a.log = true;
  a.min = *cpus.begin();
  a.max = *cpus.rbegin();
  if (a.max <= a.min) a.max = a.min * 2;
  a.min /= 1.15;  // keep the end markers off the frame
  a.max *= 1.15;
  for (uint32_t c : cpus) a.ticks.push_back({static_cast<double>(c), std::to_string(c)});
  return a;
}

// Per policy, its runs ordered by CPUs (the first run of each core count).
std::map<std::string, std::map<uint32_t, const RunData*>> runs_by_policy(const StudyData& s) {
  std::map<std::string, std::map<uint32_t, const RunData*>> by;
  for (const RunData& r : s.runs) by[r.policy].emplace(r.cpus, &r);
  return by;
}

std::string value_note(uint64_t v, uint64_t base, bool first) {
  return std::to_string(v) +
         (first ? "" : "  (" + ratio_text(static_cast<double>(v), static_cast<double>(base)) + ")");
}

}  // namespace

std::string ratio_text(double value, double base) {
  if (base <= 0) return value <= 0 ? "=" : "new";
  return format("%.2fx", value / base);
}

std::string latency_label(double ns) {
  if (ns < 1e3) return format("%g ns", ns);
  if (ns < 1e6) return format("%g \xC2\xB5s", ns / 1e3);
  if (ns < 1e9) return format("%g ms", ns / 1e6);
  return format("%g s", ns / 1e9);
}

std::string percentile_chart(const std::string& title, const std::vector<LatencySeries>& series) {
  uint64_t max_count = 0;
  double lo = std::numeric_limits<double>::max(), hi = 1;
  for (const auto& s : series) {
    max_count = std::max(max_count, s.histogram->count);
    if (s.histogram->count == 0) continue;
    lo = std::min(lo, static_cast<double>(std::max<uint64_t>(1, s.histogram->min_ns)));
    hi = std::max(hi, static_cast<double>(s.histogram->max_ns));
    for (const BucketData& b : s.histogram->buckets) {
      lo = std::min(
          lo, static_cast<double>(std::max<uint64_t>(1, std::min(b.high, s.histogram->max_ns))));
    }
  }
  if (lo > hi) lo = 1;
  LineChart c;
  c.title = title;
  const double edge = percentile_edge(max_count);
  c.x = percentile_axis(edge);
  c.y = decade_axis(lo, hi, "latency (log scale)", latency_label);
  for (size_t i = 0; i < series.size(); ++i) {
    LineSeries ls;
    ls.label = series[i].label;
    if (series[i].histogram->count == 0) ls.label += " (no samples)";
    ls.style = i;
    ls.points = percentile_curve(*series[i].histogram, edge);
    ls.markers = false;
    ls.marks = percentile_marks(*series[i].histogram, kMarkedPercentiles, edge);
    c.series.push_back(std::move(ls));
  }
  return render_line_chart(c);
}

std::string lock_counts_chart(const std::string& lock, const std::vector<std::string>& labels,
                              const std::vector<const RunData*>& runs) {
  BarChart c;
  c.title = "lock " + lock + ": acquisitions and contention (ratio to " + labels.front() + ")";
  c.series = labels;
  BarGroup contended{"contended acquisitions", {}, {}}, all{"acquisitions", {}, {}},
      bounces{"cache-line bounces", {}, {}};
  auto get = [&](const RunData* r) {
    auto it = r->locks.find(lock);
    return it == r->locks.end() ? LockData() : it->second;
  };
  const LockData first = get(runs.front());
  for (size_t i = 0; i < runs.size(); ++i) {
    const LockData l = get(runs[i]);
    contended.values.push_back(static_cast<double>(l.contentions));
    contended.notes.push_back(value_note(l.contentions, first.contentions, i == 0));
    all.values.push_back(static_cast<double>(l.acquisitions));
    all.notes.push_back(value_note(l.acquisitions, first.acquisitions, i == 0));
    bounces.values.push_back(static_cast<double>(l.bounces));
    bounces.notes.push_back(value_note(l.bounces, first.bounces, i == 0));
  }
  c.groups = {contended, all, bounces};
  return render_bar_chart(c);
}

std::string counters_chart(const std::vector<std::string>& labels,
                           const std::vector<const RunData*>& runs) {
  BarChart c;
  c.title = "counters (ratio to " + labels.front() + ")";
  c.series = labels;
  std::set<std::string> nonzero;
  for (const RunData* r : runs) {
    for (const auto& [name, v] : r->counters) {
      if (v != 0) nonzero.insert(name);
    }
  }
  // The counters of common/counters.h in their list order (related counters together), with
  // their docs; then any others (observations, skipped_*) by name.
  std::vector<std::string> names;
  auto take = [&](const common::CounterInfo& c) {
    if (nonzero.erase(std::string(c.key)) > 0) names.emplace_back(c.key);
  };
  for (const common::CounterInfo& c : common::kVmCounterInfo) take(c);
  for (const common::CounterInfo& c : common::kCpuCounterInfo) take(c);
  names.insert(names.end(), nonzero.begin(), nonzero.end());
  for (const std::string& name : names) {
    const common::CounterInfo* info = common::find_counter(name);
    BarGroup g{name, {}, {}, info != nullptr ? std::string(info->doc) : std::string()};
    auto get = [&](const RunData* r) {
      auto it = r->counters.find(name);
      return it == r->counters.end() ? uint64_t{0} : it->second;
    };
    for (size_t i = 0; i < runs.size(); ++i) {
      g.values.push_back(static_cast<double>(get(runs[i])));
      g.notes.push_back(value_note(get(runs[i]), get(runs.front()), i == 0));
    }
    c.groups.push_back(std::move(g));
  }
  return render_bar_chart(c);
}

std::string scale_throughput_chart(const StudyData& study,
                                   const std::vector<std::string>& policies) {
  const auto by = runs_by_policy(study);
  std::set<uint32_t> cpus;
  double lo = std::numeric_limits<double>::max(), hi = 1;
  for (const RunData& r : study.runs) {
    cpus.insert(r.cpus);
    if (r.throughput_ops_per_s > 0) lo = std::min(lo, r.throughput_ops_per_s);
    hi = std::max(hi, r.throughput_ops_per_s);
  }
  if (lo > hi) lo = 1;
  LineChart c;
  c.title = "throughput against CPUs (dotted: ideal linear scaling)";
  c.x = cpu_axis(cpus);
  std::vector<LineSeries> ideal;
  for (size_t i = 0; i < policies.size(); ++i) {
    LineSeries s{policies[i], i, {}, true, {}, false};
    for (const auto& [n, r] : by.at(policies[i])) {
      s.points.push_back({static_cast<double>(n), std::max(r->throughput_ops_per_s, lo)});
    }
    LineSeries ref{i == 0 ? "ideal linear scaling" : "", i, {}, false, {}, true};
    const auto& [base_cpus, base] = *by.at(policies[i]).begin();
    for (uint32_t n : cpus) {
      if (n < base_cpus) continue;
      const double t = base->throughput_ops_per_s * n / base_cpus;
      hi = std::max(hi, t);
      ref.points.push_back({static_cast<double>(n), t});
    }
    c.series.push_back(std::move(s));
    ideal.push_back(std::move(ref));
  }
  for (auto& r : ideal) c.series.push_back(std::move(r));
  c.y = decade_axis(lo, hi, "throughput (operations/s, log scale)", count_label);
  return render_line_chart(c);
}

std::string scale_p99_chart(const StudyData& study, const std::vector<std::string>& policies,
                            const std::string& op) {
  const auto by = runs_by_policy(study);
  std::set<uint32_t> cpus;
  double lo = std::numeric_limits<double>::max(), hi = 1;
  for (const RunData& r : study.runs) {
    cpus.insert(r.cpus);
    auto it = r.ops.find(op);
    if (it == r.ops.end() || it->second.count == 0) continue;
    lo = std::min(lo, static_cast<double>(std::max<uint64_t>(1, it->second.p99_ns)));
    hi = std::max(hi, static_cast<double>(it->second.p99_ns));
  }
  if (lo > hi) lo = 1;
  LineChart c;
  c.title = "op " + op + ": p99 latency against CPUs";
  c.x = cpu_axis(cpus);
  c.y = decade_axis(lo, hi, "p99 latency (log scale)", latency_label);
  for (size_t i = 0; i < policies.size(); ++i) {
    LineSeries s{policies[i], i, {}, true, {}, false};
    for (const auto& [n, r] : by.at(policies[i])) {
      auto it = r->ops.find(op);
      if (it == r->ops.end() || it->second.count == 0) continue;
      s.points.push_back({static_cast<double>(n), static_cast<double>(it->second.p99_ns)});
    }
    c.series.push_back(std::move(s));
  }
  return render_line_chart(c);
}

}  // namespace mmreplay::report
