#include "replay/results_table.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace mmreplay::replay {
namespace {

std::string fixed(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string ratio(double v, double base) {
  if (base <= 0) return v <= 0 ? "=" : "new";
  return fixed("%.2fx", v / base);
}

std::string pad(const std::string& s, size_t w, bool left = false) {
  if (s.size() >= w) return s;
  return left ? s + std::string(w - s.size(), ' ') : std::string(w - s.size(), ' ') + s;
}

void histogram_rows(std::ostream& out, const std::string& title,
                    const std::vector<const kernelsim::Histogram*>& hs,
                    const std::vector<std::string>& labels) {
  size_t lw = 6;
  for (const auto& l : labels) lw = std::max(lw, l.size());
  out << title << "\n";
  out << "  " << pad("run", lw, true) << pad("count", 11) << pad("p50", 10) << pad("p90", 10)
      << pad("p99", 10) << pad("p99.9", 10) << pad("max", 10) << pad("mean", 10)
      << pad("p99/first", 11) << pad("mean/first", 11) << "\n";
  const kernelsim::Histogram& first = *hs.front();
  for (size_t i = 0; i < hs.size(); ++i) {
    const kernelsim::Histogram& h = *hs[i];
    out << "  " << pad(labels[i], lw, true) << pad(std::to_string(h.count()), 11)
        << pad(format_ns(static_cast<double>(h.percentile(50))), 10)
        << pad(format_ns(static_cast<double>(h.percentile(90))), 10)
        << pad(format_ns(static_cast<double>(h.percentile(99))), 10)
        << pad(format_ns(static_cast<double>(h.percentile(99.9))), 10)
        << pad(format_ns(static_cast<double>(h.max())), 10) << pad(format_ns(h.mean()), 10)
        << pad(ratio(static_cast<double>(h.percentile(99)),
                     static_cast<double>(first.percentile(99))),
               11)
        << pad(ratio(h.mean(), first.mean()), 11) << "\n";
  }
}

// The OOM kills of every run, one line each in the words of the kernel's log, so that a native
// run's dmesg can be set beside them.
void print_oom_kills(std::ostream& out, const std::vector<RunResult>& runs,
                     const std::vector<std::string>& labels) {
  bool any = false;
  for (const RunResult& r : runs) any = any || !r.oom_kills.empty();
  if (!any) return;
  out << "OOM kills\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    for (const OomKillResult& k : runs[i].oom_kills) {
      out << "  " << labels[i] << ": at " << format_ns(static_cast<double>(k.at_ns))
          << (k.memcg ? " memory cgroup out of memory" : " out of memory") << ": Killed process "
          << k.pid << " (" << k.comm << ") anon-rss:" << k.anon_rss_kb
          << "kB, file-rss:" << k.file_rss_kb << "kB, swapents:" << k.swapents_kb
          << "kB, pgtables:" << k.pgtables_kb << "kB; invoked by " << k.invoked_by << "\n";
    }
  }
}

}  // namespace

std::string format_ns(double ns) {
  if (ns < 1e3) return fixed("%.0fns", ns);
  if (ns < 1e6) return fixed("%.2fus", ns / 1e3);
  if (ns < 1e9) return fixed("%.2fms", ns / 1e6);
  return fixed("%.3fs", ns / 1e9);
}

void print_comparison(std::ostream& out, const std::vector<RunResult>& runs,
                      const std::vector<std::string>& labels) {
  if (runs.empty()) return;
  size_t lw = 6;
  for (const auto& l : labels) lw = std::max(lw, l.size());
  out << "summary\n  " << pad("run", lw, true) << pad("makespan", 12) << pad("ops/s", 14)
      << pad("vs first", 10) << "\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    out << "  " << pad(labels[i], lw, true)
        << pad(format_ns(static_cast<double>(runs[i].makespan_ns)), 12)
        << pad(fixed("%.0f", runs[i].throughput_ops_per_s()), 14)
        << pad(ratio(static_cast<double>(runs[i].makespan_ns),
                     static_cast<double>(runs[0].makespan_ns)),
               10)
        << "\n";
  }
  for (const auto& [op, h0] : runs.front().ops) {
    std::vector<const kernelsim::Histogram*> hs;
    bool any = false;
    for (const RunResult& r : runs) {
      hs.push_back(&r.ops.at(op));
      any = any || r.ops.at(op).count() > 0;
    }
    if (any) histogram_rows(out, "op " + op + " latency", hs, labels);
  }
  std::map<std::string, bool> lock_names;
  for (const RunResult& r : runs) {
    for (const auto& [name, l] : r.locks) lock_names[name] = true;
  }
  const LockResult empty;
  for (const auto& [name, _] : lock_names) {
    std::vector<const kernelsim::Histogram*> hs;
    std::vector<std::string> l2;
    bool contended = false;
    for (size_t i = 0; i < runs.size(); ++i) {
      auto it = runs[i].locks.find(name);
      const LockResult& l = it == runs[i].locks.end() ? empty : it->second;
      hs.push_back(&l.wait);
      contended = contended || l.contentions > 0;
      l2.push_back(labels[i] + " (" + std::to_string(l.contentions) + "/" +
                   std::to_string(l.acquisitions) + " contended)");
    }
    if (contended) histogram_rows(out, "lock " + name + " wait", hs, l2);
  }
  out << "counters\n  " << pad("counter", 26, true);
  for (const auto& l : labels) out << pad(l, std::max<size_t>(12, l.size() + 2));
  out << "\n";
  for (const auto& [name, v0] : runs.front().counters) {
    bool any = false;
    for (const RunResult& r : runs) any = any || (r.counters.count(name) && r.counters.at(name));
    if (!any) continue;
    out << "  " << pad(name, 26, true);
    for (size_t i = 0; i < runs.size(); ++i) {
      auto it = runs[i].counters.find(name);
      out << pad(std::to_string(it == runs[i].counters.end() ? 0 : it->second),
                 std::max<size_t>(12, labels[i].size() + 2));
    }
    out << "\n";
  }
  print_oom_kills(out, runs, labels);
}

void print_scaling(std::ostream& out, const std::vector<RunResult>& runs) {
  out << "  " << pad("policy", 24, true) << pad("cpus", 6) << pad("ops/s", 14)
      << pad("speed-up", 10) << pad("fault p50", 11) << pad("fault p99", 11) << pad("top lock", 26)
      << pad("contended", 11) << "\n";
  std::map<std::string, double> base;
  for (const RunResult& r : runs) {
    const double tput = r.throughput_ops_per_s();
    auto [it, fresh] = base.emplace(r.spec.policy_name, tput);
    const auto& fault = r.ops.at("fault").count() > 0 ? r.ops.at("fault") : r.ops.at("touch");
    std::string top = "-";
    uint64_t top_contended = 0;
    for (const auto& [name, l] : r.locks) {
      if (name != "mmap_sem" && l.contentions > top_contended) {
        top = name;
        top_contended = l.contentions;
      }
    }
    out << "  " << pad(r.spec.policy_name, 24, true) << pad(std::to_string(r.cpus), 6)
        << pad(fixed("%.0f", tput), 14)
        << pad(fixed("%.2fx", it->second > 0 ? tput / it->second : 0), 10)
        << pad(format_ns(static_cast<double>(fault.percentile(50))), 11)
        << pad(format_ns(static_cast<double>(fault.percentile(99))), 11) << pad(top, 26)
        << pad(std::to_string(top_contended), 11) << "\n";
    (void)fresh;
  }
}

}  // namespace mmreplay::replay
