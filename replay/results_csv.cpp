#include "replay/results_csv.h"

namespace mmreplay::replay {
namespace {

// Policy names are ours ("linux-4.5+madv_free=lazy"); quote them anyway in case of commas.
std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

void row(std::ostream& out, size_t index, const RunResult& r, const char* kind,
         const std::string& name, const kernelsim::Histogram& h, uint64_t contentions) {
  out << index + 1 << ',' << quoted(r.spec.policy_name) << ',' << r.cpus << ',' << kind << ','
      << name << ',' << h.count() << ',' << static_cast<uint64_t>(h.mean()) << ','
      << h.percentile(50) << ',' << h.percentile(90) << ',' << h.percentile(99) << ','
      << h.percentile(99.9) << ',' << h.max() << ',' << contentions << '\n';
}

}  // namespace

void write_csv(std::ostream& out, const std::vector<size_t>& run_index,
               const std::vector<RunResult>& runs) {
  out << "run,policy,cpus,kind,name,count,mean_ns,p50_ns,p90_ns,p99_ns,p999_ns,max_ns,"
         "contentions\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    for (const auto& [op, h] : runs[i].ops) row(out, run_index[i], runs[i], "op", op, h, 0);
    for (const auto& [name, l] : runs[i].locks) {
      row(out, run_index[i], runs[i], "lock_wait", name, l.wait, l.contentions);
      row(out, run_index[i], runs[i], "lock_hold", name, l.hold, l.contentions);
    }
  }
}

}  // namespace mmreplay::replay
