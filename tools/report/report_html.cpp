#include "tools/report/report_html.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "formats/atomic_file.h"
#include "tools/report/report_charts.h"
#include "tools/report/report_summary.h"
#include "tools/report/svg.h"

namespace mmreplay::report {
namespace {

// Inline style: system fonts only, charts scale down on narrow screens, figures do not split
// across printed pages.
constexpr const char* kStyle = R"(
body { font-family: sans-serif; color: #111; background: #fff; margin: 1.5em auto;
       max-width: 800px; padding: 0 1em; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #999; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #eee; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1em 0; break-inside: avoid; page-break-inside: avoid; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: 0.85em; color: #333; }
.meta { color: #444; font-size: 0.9em; }
@media print { body { margin: 0; max-width: none; } h2 { break-before: page; }
  #summary h2 { break-before: avoid; } }
)";

std::string esc(const std::string& s) {
  return xml_escape(s);
}

std::string latency_text(double ns) {
  char buf[48];
  if (ns < 1e3)
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  else if (ns < 1e6)
    std::snprintf(buf, sizeof buf, "%.3g \xC2\xB5s", ns / 1e3);
  else if (ns < 1e9)
    std::snprintf(buf, sizeof buf, "%.3g ms", ns / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.3g s", ns / 1e9);
  return buf;
}

std::string rate_text(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f ops/s", v);
  return buf;
}

std::string study_title(const StudyData& s, size_t n) {
  std::string t = "Study " + std::to_string(n) + ": " + (s.command.empty() ? "results" : s.command);
  if (s.trace_count > 1 && !s.generator.empty()) {
    t += " " + s.generator + " (generated per core count)";
  } else if (!s.trace.empty()) {
    t += " " + std::filesystem::path(s.trace).filename().string();
  }
  return t;
}

void figure(std::ostream& out, const std::string& svg, const std::string& caption) {
  out << "<figure>" << svg << "<figcaption>" << esc(caption) << "</figcaption></figure>\n";
}

void summary_table(std::ostream& out, const StudyData& s, const Compared& c) {
  // The file name only: the page reads the same wherever the results were kept.
  out << "<p class=\"meta\">" << esc(std::filesystem::path(s.source).filename().string()) << ": "
      << s.runs.size() << " runs";
  if (c.cpus) out << "; compared at " << c.cpus << " CPUs";
  out << "; policies " << esc([&] {
    std::string all;
    for (const auto& l : c.labels) all += (all.empty() ? "" : ", ") + l;
    return all;
  }()) << "</p>\n";
  out << "<table class=\"summary\"><tr><th>measure</th><th>samples</th><th>best p50</th>"
      << "<th>p50 margin</th><th>best p99</th><th>p99 margin</th></tr>\n";
  for (const SummaryRow& row : summarize(c)) {
    const bool tput = row.what == "throughput";
    out << "<tr><td>" << esc(row.what) << "</td><td class=\"num\">" << row.samples << "</td>";
    if (tput) {
      out << "<td colspan=\"4\">" << esc(row.p50.best) << " (" << rate_text(row.p50.value) << "), "
          << esc(margin_text(row.p50, true)) << "</td></tr>\n";
      continue;
    }
    for (const Win* w : {&row.p50, &row.p99}) {
      out << "<td>" << esc(w->best) << " (" << latency_text(w->value) << ")</td><td>"
          << esc(margin_text(*w, false));
      if (!w->next.empty() && !w->tie) out << " (" << latency_text(w->next_value) << ")";
      out << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

void operations(std::ostream& out, const Compared& c) {
  std::set<std::string> ops;
  for (const RunData* r : c.runs) {
    for (const auto& [name, h] : r->ops) {
      if (h.count > 0) ops.insert(name);
    }
  }
  out << "<h3>Operation latency</h3>\n";
  const HistogramData empty;
  for (const std::string& op : ops) {
    std::vector<LatencySeries> series;
    for (size_t i = 0; i < c.runs.size(); ++i) {
      auto it = c.runs[i]->ops.find(op);
      series.push_back({c.labels[i], it == c.runs[i]->ops.end() ? &empty : &it->second});
    }
    std::string title = "op " + op + " latency percentiles";
    if (c.cpus) title += " at " + std::to_string(c.cpus) + " CPUs";
    figure(out, percentile_chart(title, series),
           "Latency of " + op +
               " at each percentile (bucket tops, as in .hgrm files); markers at "
               "50%, 90%, 99%, 99.9%, 99.99%.");
  }
}

void locks(std::ostream& out, const Compared& c) {
  std::set<std::string> contended, quiet;
  for (const RunData* r : c.runs) {
    for (const auto& [name, l] : r->locks) {
      if (l.contentions > 0)
        contended.insert(name);
      else if (l.acquisitions > 0)
        quiet.insert(name);
    }
  }
  out << "<h3>Locks</h3>\n";
  const HistogramData empty;
  for (const std::string& lock : contended) {
    quiet.erase(lock);
    std::vector<LatencySeries> series;
    for (size_t i = 0; i < c.runs.size(); ++i) {
      auto it = c.runs[i]->locks.find(lock);
      series.push_back({c.labels[i], it == c.runs[i]->locks.end() ? &empty : &it->second.wait});
    }
    figure(out, percentile_chart("lock " + lock + " wait-time percentiles", series),
           "Time waiting for " + lock + " per acquisition that waited.");
    figure(
        out, lock_counts_chart(lock, c.labels, c.runs),
        "Each bar is scaled to the largest in its group; ratios are to " + c.labels.front() + ".");
  }
  if (contended.empty()) out << "<p>No lock was contended in any run.</p>\n";
  if (!quiet.empty()) {
    std::string names;
    for (const auto& n : quiet) names += (names.empty() ? "" : ", ") + n;
    out << "<p class=\"meta\">Taken but never contended: " << esc(names) << ".</p>\n";
  }
}

void study_section(std::ostream& out, const StudyData& s, size_t n) {
  const Compared c = compared_runs(s);
  out << "<section class=\"study\" id=\"study-" << n << "\">\n<h2>" << esc(study_title(s, n))
      << "</h2>\n";
  if (s.is_scale()) {
    out << "<h3>Scaling</h3>\n";
    figure(out, scale_throughput_chart(s, c.policies),
           "Operations per simulated second; dotted lines extend each policy's smallest core count "
           "linearly.");
    std::set<std::string> ops;
    for (const RunData& r : s.runs) {
      for (const auto& [name, h] : r.ops) {
        if (h.count > 0) ops.insert(name);
      }
    }
    for (const std::string& op : ops) {
      figure(out, scale_p99_chart(s, c.policies, op), "p99 latency of " + op + " per core count.");
    }
  }
  operations(out, c);
  locks(out, c);
  out << "<h3>Counters</h3>\n";
  figure(out, counters_chart(c.labels, c.runs),
         "Counters that are non-zero in some run; each bar is scaled to the largest in its group.");
  out << "</section>\n";
}

}  // namespace

std::string build_report(const std::vector<StudyData>& studies) {
  std::ostringstream out;
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>mmreplay report</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n"
      << "<h1>mmreplay report</h1>\n";
  out << "<section id=\"summary\">\n<h2>Summary</h2>\n";
  for (size_t i = 0; i < studies.size(); ++i) {
    out << "<h3><a href=\"#study-" << i + 1 << "\">" << esc(study_title(studies[i], i + 1))
        << "</a></h3>\n";
    summary_table(out, studies[i], compared_runs(studies[i]));
  }
  out << "<p class=\"meta\">Latencies are simulated time. Lower is better for latency, higher "
      << "for throughput; margins compare the best policy with the next best. Colours are the "
      << "Okabe-Ito palette; lines also differ by dash pattern and marker.</p>\n</section>\n";
  for (size_t i = 0; i < studies.size(); ++i) study_section(out, studies[i], i + 1);
  out << "</body>\n</html>\n";
  return out.str();
}

Status write_report(const std::vector<std::string>& inputs, const std::string& output) {
  std::vector<StudyData> studies(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (Status s = load_study(inputs[i], &studies[i]); !s) return s;
  }
  if (studies.empty()) return Status::invalid_argument("report: no results files");
  return formats::write_file_atomically(output,
                                        [&](std::ostream& out) { out << build_report(studies); });
}

}  // namespace mmreplay::report
