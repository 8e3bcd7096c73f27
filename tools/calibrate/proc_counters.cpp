#include "tools/calibrate/proc_counters.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>

#include "tools/calibrate/probes.h"

namespace mmreplay::tools::calibrate {
namespace {

std::optional<std::string> slurp(const char* path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool is_blank(char c) {
  return c == ' ' || c == '\t';
}

}  // namespace

std::optional<uint64_t> parse_tlb_shootdowns(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    size_t i = 0;
    while (i < line.size() && is_blank(line[i])) ++i;
    if (line.substr(i, 4) != "TLB:") continue;
    i += 4;
    // One count per CPU, then the description ("TLB shootdowns"), which is not a number.
    uint64_t sum = 0;
    bool any = false;
    while (true) {
      while (i < line.size() && is_blank(line[i])) ++i;
      if (i >= line.size() || std::isdigit(static_cast<unsigned char>(line[i])) == 0) break;
      uint64_t v = 0;
      const auto [next, ec] = std::from_chars(line.data() + i, line.data() + line.size(), v);
      if (ec != std::errc()) break;
      sum += v;
      any = true;
      i = static_cast<size_t>(next - line.data());
    }
    if (!any) return std::nullopt;
    return sum;
  }
  return std::nullopt;
}

std::optional<uint64_t> read_tlb_shootdowns() {
  const std::optional<std::string> text = slurp("/proc/interrupts");
  if (!text) return std::nullopt;
  return parse_tlb_shootdowns(*text);
}

std::optional<double> parse_load1(std::string_view text) {
  std::istringstream in{std::string(text)};
  double v = 0;
  if (!(in >> v) || v < 0) return std::nullopt;
  return v;
}

std::optional<double> read_load1() {
  const std::optional<std::string> text = slurp("/proc/loadavg");
  if (!text) return std::nullopt;
  return parse_load1(*text);
}

std::string load_refusal(double load1, int cpus) {
  if (load1 <= static_cast<double>(cpus)) return "";
  return fmt::format(
      "the 1-minute load average {:.2f} exceeds the {} CPUs: other work would be measured too "
      "(wait, or --force, best with --realtime)",
      load1, cpus);
}

Status check_machine_quiet() {
  const std::optional<double> load = read_load1();
  if (!load) return Status::ok();
  const std::string why = load_refusal(*load, allowed_cpus());
  return why.empty() ? Status::ok() : Status::invalid_argument(why);
}

}  // namespace mmreplay::tools::calibrate
