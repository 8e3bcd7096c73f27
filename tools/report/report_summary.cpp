#include "tools/report/report_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace mmreplay::report {
namespace {

// Picks the best of `values` (lowest, or highest), then the runner-up; ties keep run order.
Win pick(const std::vector<std::string>& labels, const std::vector<double>& values, bool highest) {
  std::vector<size_t> order(values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return highest ? values[a] > values[b] : values[a] < values[b];
  });
  Win w;
  w.best = labels[order[0]];
  w.value = values[order[0]];
  if (order.size() > 1) {
    w.next = labels[order[1]];
    w.next_value = values[order[1]];
    w.tie = w.next_value == w.value;
  }
  return w;
}

}  // namespace

Compared compared_runs(const StudyData& study) {
  Compared c;
  std::set<std::string> seen;
  for (const RunData& r : study.runs) {
    if (seen.insert(r.policy).second) c.policies.push_back(r.policy);
  }
  if (study.is_scale()) {
    std::map<std::string, const RunData*> widest;
    for (const RunData& r : study.runs) {
      const RunData*& w = widest[r.policy];
      if (!w || r.cpus > w->cpus) w = &r;
    }
    for (const std::string& p : c.policies) {
      c.runs.push_back(widest[p]);
      c.labels.push_back(p);
      c.cpus = std::max(c.cpus, widest[p]->cpus);
    }
    return c;
  }
  std::map<std::string, int> uses;
  for (const RunData& r : study.runs) ++uses[r.policy];
  for (const RunData& r : study.runs) {
    c.runs.push_back(&r);
    c.labels.push_back(uses[r.policy] > 1 ? r.policy + " #" + std::to_string(r.index + 1)
                                          : r.policy);
  }
  return c;
}

std::vector<SummaryRow> summarize(const Compared& c) {
  std::vector<SummaryRow> rows;
  std::set<std::string> ops;
  for (const RunData* r : c.runs) {
    for (const auto& [name, h] : r->ops) {
      if (h.count > 0) ops.insert(name);
    }
  }
  for (const std::string& op : ops) {
    SummaryRow row;
    row.what = "op " + op;
    std::vector<std::string> labels;
    std::vector<double> p50, p99;
    for (size_t i = 0; i < c.runs.size(); ++i) {
      auto it = c.runs[i]->ops.find(op);
      if (it == c.runs[i]->ops.end() || it->second.count == 0) continue;
      labels.push_back(c.labels[i]);
      p50.push_back(static_cast<double>(it->second.p50_ns));
      p99.push_back(static_cast<double>(it->second.p99_ns));
      row.samples = std::max(row.samples, it->second.count);
    }
    row.p50 = pick(labels, p50, false);
    row.p99 = pick(labels, p99, false);
    rows.push_back(std::move(row));
  }
  SummaryRow tput;
  tput.what = "throughput";
  std::vector<double> ops_per_s;
  for (const RunData* r : c.runs) {
    ops_per_s.push_back(r->throughput_ops_per_s);
    tput.samples = std::max(tput.samples, r->operations);
  }
  tput.p50 = pick(c.labels, ops_per_s, true);
  tput.p99 = tput.p50;
  rows.push_back(std::move(tput));
  return rows;
}

std::string margin_text(const Win& w, bool higher_is_better) {
  if (w.next.empty()) return "only run";
  if (w.tie) return "tie with " + w.next;
  const double ratio = higher_is_better ? w.value / w.next_value : w.next_value / w.value;
  if (w.value <= 0 || w.next_value <= 0) {
    return std::string(higher_is_better ? "higher" : "lower") + " than " + w.next;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", ratio);
  return std::string(buf) + (higher_is_better ? " higher" : " lower") + " than " + w.next;
}

}  // namespace mmreplay::report
