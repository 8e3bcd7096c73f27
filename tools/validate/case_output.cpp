#include "tools/validate/case_output.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace mmreplay::validate {
namespace {

std::string num(std::optional<double> v) {
  if (!v) return "-";
  char buf[32];
  const double a = std::fabs(*v);
  if (a != 0 && (a >= 1e6 || a < 1e-3)) {
    std::snprintf(buf, sizeof buf, "%.3g", *v);
  } else if (a >= 1000) {
    std::snprintf(buf, sizeof buf, "%.0f", *v);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g", *v);
  }
  return buf;
}

std::string ratio(std::optional<double> v) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3gx", *v);
  return buf;
}

std::string pad(const std::string& s, size_t w, bool left = false) {
  if (s.size() >= w) return s + " ";
  return left ? s + std::string(w - s.size(), ' ') : std::string(w - s.size(), ' ') + s;
}

std::string verdict(const Row& r) {
  if (r.baseline) return "baseline";
  if (!r.comparable()) return "no figure";
  std::string v = r.direction_agrees() ? "agrees" : "DISAGREES";
  if (const auto e = r.ratio_error()) {
    char buf[48];
    std::snprintf(buf, sizeof buf, ", ratio %+.0f%%%s", 100 * *e,
                  r.within_tolerance() ? "" : " (>25%)");
    v += buf;
  }
  if (r.model_ratio_min && r.model_ratio_max) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "; draws %.3g-%.3gx", *r.model_ratio_min, *r.model_ratio_max);
    v += buf;
  }
  if (r.gap != nullptr) v += r.direction_agrees() ? " [declared gap, now agrees]" : " [GAP]";
  return v;
}

nlohmann::json opt(std::optional<double> v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

}  // namespace

void print_case(std::ostream& out, const CaseResult& cr) {
  const ValidationCase& vc = *cr.vc;
  out << vc.name << ": " << vc.title << "\n";
  out << "  seed " << vc.seed << " machine: " << vc.machine
      << (vc.machine_preset.empty() ? "" : " (--machine " + vc.machine_preset + ")") << "\n";
  out << "  replayed at scale '" << cr.scale->name << "' (" << cr.scale->note << "), "
      << cr.scale->cpus << " CPUs, profile " << vc.profile << "\n";
  if (cr.draws > 1) {
    out << "  " << cr.draws << " draws (--seed 1.." << cr.draws
        << "): each arm's median figure, the median of the draws' ratios, their range\n";
  }
  size_t mw = 8, aw = 8;
  for (const Row& r : cr.rows) {
    mw = std::max(mw, r.metric.size() + r.unit.size() + 3);
    aw = std::max(aw, r.arm.size());
  }
  out << "  " << pad("metric", mw, true) << pad("arm", aw, true) << pad("published", 11)
      << pad("model", 11) << pad("pub ratio", 10) << pad("model ratio", 12) << "  verdict\n";
  for (const Row& r : cr.rows) {
    out << "  " << pad(r.metric + " (" + r.unit + ")", mw, true) << pad(r.arm, aw, true)
        << pad(num(r.published), 11) << pad(num(r.model), 11) << pad(ratio(r.published_ratio), 10)
        << pad(ratio(r.model_ratio), 12) << "  " << verdict(r) << "\n";
  }
  for (const Row& r : cr.rows) {
    if (r.gap != nullptr)
      out << "  known gap (" << r.metric << ", " << r.arm << "): " << r.gap->reason << "\n";
  }
  for (const Metric& m : vc.metrics) out << "  source of " << m.name << ": " << m.source << "\n";
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "  %d/%d directions agree (%d declared gap, %d failed), %d/%d ratios within 25%%; "
                "replayed in %.1f s: %s\n",
                cr.directions_agreeing(), cr.checked(), cr.gaps_disagreeing(), cr.failures(),
                cr.ratios_within_tolerance(), cr.ratios_compared(), cr.wall_seconds,
                verdict_name(cr.verdict()));
  out << buf;
}

void print_summary(std::ostream& out, const std::vector<CaseResult>& results) {
  out << "summary\n";
  int verdicts[3] = {0, 0, 0};  // by Verdict: PASS, GAP, FAIL
  int gaps = 0, failures = 0, outside = 0, compared = 0;
  for (const CaseResult& cr : results) {
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  "  %-28s %-8s directions %d/%d (gap %d, fail %d), ratios outside 25%% %d/%d  "
                  "%s\n",
                  cr.vc->name.c_str(), cr.scale->name.c_str(), cr.directions_agreeing(),
                  cr.checked(), cr.gaps_disagreeing(), cr.failures(), cr.ratios_outside_tolerance(),
                  cr.ratios_compared(), verdict_name(cr.verdict()));
    out << buf;
    ++verdicts[static_cast<size_t>(cr.verdict())];
    gaps += cr.gaps_disagreeing();
    failures += cr.failures();
    outside += cr.ratios_outside_tolerance();
    compared += cr.ratios_compared();
  }
  out << "  " << results.size() << " cases: " << verdicts[0] << " PASS, " << verdicts[1] << " GAP, "
      << verdicts[2] << " FAIL; directions disagreeing: " << gaps << " declared gaps, " << failures
      << " failures; ratios outside 25%: " << outside << "/" << compared << "\n";
}

nlohmann::json case_to_json(const CaseResult& cr) {
  const ValidationCase& vc = *cr.vc;
  nlohmann::json j;
  j["case"] = vc.name;
  j["seed"] = vc.seed;
  j["title"] = vc.title;
  j["workload"] = vc.workload;
  j["machine"] = vc.machine;
  if (!vc.machine_preset.empty()) j["machine_preset"] = vc.machine_preset;
  j["profile"] = vc.profile;
  j["scale"] = {{"name", cr.scale->name},
                {"params", cr.scale->params},
                {"cpus", cr.scale->cpus},
                {"draws", cr.draws},
                {"note", cr.scale->note}};
  nlohmann::json arms = nlohmann::json::array();
  for (size_t a = 0; a < vc.arms.size(); ++a) {
    nlohmann::json arm = {{"label", vc.arms[a].label},
                          {"policy", vc.arms[a].policy},
                          {"extra_params", vc.arms[a].extra_params}};
    if (a < cr.runs.size()) arm["effective_policy"] = cr.runs[a].effective_policy;
    arms.push_back(arm);
  }
  j["arms"] = arms;
  nlohmann::json rows = nlohmann::json::array();
  for (const Row& r : cr.rows) {
    nlohmann::json row = {{"metric", r.metric},
                          {"unit", r.unit},
                          {"arm", r.arm},
                          {"baseline", r.baseline},
                          {"published", opt(r.published)},
                          {"model", opt(r.model)}};
    if (!r.baseline) {
      row["published_ratio"] = opt(r.published_ratio);
      row["model_ratio"] = opt(r.model_ratio);
      if (r.model_ratio_min) {
        row["model_ratio_min"] = *r.model_ratio_min;
        row["model_ratio_max"] = opt(r.model_ratio_max);
      }
      row["published_direction"] = direction_name(r.published_direction);
      row["model_direction"] = direction_name(r.model_direction);
      row["direction_agrees"] =
          r.comparable() ? nlohmann::json(r.direction_agrees()) : nlohmann::json();
      row["ratio_error"] = opt(r.ratio_error());
      row["within_25_percent"] =
          r.ratio_error() ? nlohmann::json(r.within_tolerance()) : nlohmann::json();
      if (r.gap != nullptr) row["known_gap"] = r.gap->reason;
    }
    rows.push_back(row);
  }
  j["rows"] = rows;
  j["checked"] = cr.checked();
  j["directions_agreeing"] = cr.directions_agreeing();
  j["ratios_within_25_percent"] = cr.ratios_within_tolerance();
  j["ratios_compared"] = cr.ratios_compared();
  j["gaps_disagreeing"] = cr.gaps_disagreeing();
  j["failures"] = cr.failures();
  j["verdict"] = verdict_name(cr.verdict());
  j["passed"] = cr.passed();
  j["wall_seconds"] = cr.wall_seconds;
  return j;
}

nlohmann::json cases_to_json(const std::vector<CaseResult>& results) {
  nlohmann::json j;
  j["schema"] = 1;
  j["tolerance"] = kRatioTolerance;
  j["cases"] = nlohmann::json::array();
  for (const CaseResult& cr : results) j["cases"].push_back(case_to_json(cr));
  return j;
}

}  // namespace mmreplay::validate
