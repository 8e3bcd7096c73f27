#include "tools/calibrate/calibrate.h"

#include <fmt/format.h>
#include <unistd.h>

#include <ctime>

namespace mmreplay::tools::calibrate {
namespace {

constexpr double kNsPerSecond = 1e9;

std::string today_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "unknown-host";
  return buf;
}

}  // namespace

Calibration run_calibration(const CalibrationOptions& o, std::ostream* progress) {
  const uint64_t start = now_ns();
  const ProbeOptions po{o.quick};
  Calibration c;
  auto add = [&](Figure f) {
    if (progress != nullptr) *progress << "  measured " << f.key << "\n" << std::flush;
    c.figures.push_back(std::move(f));
  };
  add(probe_syscall(po));
  add(probe_anon_fault(po));
  add(probe_file_fault(po));
  add(probe_madvise_dontneed(po));
  for (Figure& f : probe_munmap(po)) add(std::move(f));
  for (Figure& f : probe_mmap_munmap(po)) add(std::move(f));
  add(probe_mremap_expand(po));
  for (Figure& f : probe_mremap_move(po)) add(std::move(f));
  for (Figure& f : probe_cached_read(po)) add(std::move(f));
  for (Figure& f : probe_kernel_fault(po)) add(std::move(f));
  for (Figure& f : probe_mprotect(po)) add(std::move(f));
  add(probe_tlb_shootdown(po));
  add(probe_context_switch(po));
  for (Figure& f : probe_pipe_rw(po)) add(std::move(f));
  add(probe_wakeup(po));
  add(probe_swap_in(po));
  const std::string stamp = fmt::format("calibrate {} {}", o.date.empty() ? today_utc() : o.date,
                                        o.host.empty() ? host_name() : o.host);
  c.profile = fit_profile(c.figures, stamp, &c.notes);
  c.elapsed_s = static_cast<double>(now_ns() - start) / kNsPerSecond;
  return c;
}

bool is_calibrated(const replay::CostProfileFile& p, std::string_view name) {
  const auto it = p.sources.find(std::string(name));
  return it != p.sources.end() && it->second.starts_with("calibrate ");
}

void print_calibration(const Calibration& c, std::ostream& out) {
  out << fmt::format("{:<21} {:>10} {:>17} {:>4}  {}\n", "figure", "median ns", "p10..p90 ns", "n",
                     "what (per unit) / note");
  for (const Figure& f : c.figures) {
    if (!f.measured) {
      out << fmt::format("{:<21} {:>10} {:>17} {:>4}  {}: {}\n", f.key, "-", "-", "-", f.what,
                         f.note);
      continue;
    }
    out << fmt::format("{:<21} {:>10.0f} {:>17} {:>4}  {} (per {}){}\n", f.key, f.ns.median,
                       fmt::format("{:.0f}..{:.0f}", f.ns.p10, f.ns.p90), f.ns.samples, f.what,
                       f.unit, f.note.empty() ? "" : "; " + f.note);
  }
  const kernelsim::CostProfile def = kernelsim::cost_profile_default();
  out << fmt::format("\n{:<21} {:>10} {:>10}\n", "profile field", "ns", "default");
  for (const kernelsim::CostField& f : kernelsim::cost_fields()) {
    if (!is_calibrated(c.profile, f.name)) continue;
    out << fmt::format("{:<21} {:>10} {:>10}\n", f.name, (c.profile.costs.*f.member).count_ns(),
                       (def.*f.member).count_ns());
  }
  for (const std::string& n : c.notes) out << "note: " << n << "\n";
  out << fmt::format("other fields: the default profile's. calibrate took {:.1f} s\n", c.elapsed_s);
}

}  // namespace mmreplay::tools::calibrate
