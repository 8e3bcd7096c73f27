#include "tools/validate/case_result.h"

#include <algorithm>
#include <cmath>

namespace mmreplay::validate {

const char* direction_name(Direction d) {
  switch (d) {
    case Direction::kLower:
      return "lower";
    case Direction::kSame:
      return "same";
    case Direction::kHigher:
      return "higher";
    case Direction::kUnknown:
      break;
  }
  return "-";
}

std::optional<double> ratio_of(std::optional<double> value, std::optional<double> base) {
  if (!value || !base || *base == 0) return std::nullopt;
  return *value / *base;
}

std::optional<double> median_of(std::vector<std::optional<double>> v) {
  if (v.empty()) return std::nullopt;
  std::vector<double> x;
  for (const std::optional<double>& e : v) {
    if (!e) return std::nullopt;
    x.push_back(*e);
  }
  std::sort(x.begin(), x.end());
  const size_t mid = x.size() / 2;
  return x.size() % 2 == 1 ? x[mid] : (x[mid - 1] + x[mid]) / 2;
}

Direction direction_of(std::optional<double> value, std::optional<double> base, double tie_band) {
  if (!value || !base) return Direction::kUnknown;
  if (*base == 0) return *value > 0 ? Direction::kHigher : Direction::kSame;
  const double r = *value / *base;
  if (r > 1 + tie_band) return Direction::kHigher;
  if (r < 1 - tie_band) return Direction::kLower;
  return Direction::kSame;
}

std::optional<double> Row::ratio_error() const {
  if (!published_ratio || !model_ratio || *published_ratio == 0) return std::nullopt;
  return *model_ratio / *published_ratio - 1;
}

bool Row::within_tolerance() const {
  const std::optional<double> e = ratio_error();
  return e && std::fabs(*e) <= kRatioTolerance;
}

int CaseResult::checked() const {
  int n = 0;
  for (const Row& r : rows) n += (!r.baseline && r.comparable()) ? 1 : 0;
  return n;
}

int CaseResult::directions_agreeing() const {
  int n = 0;
  for (const Row& r : rows) n += (!r.baseline && r.direction_agrees()) ? 1 : 0;
  return n;
}

int CaseResult::gaps_disagreeing() const {
  int n = 0;
  for (const Row& r : rows) {
    n += (!r.baseline && r.comparable() && !r.direction_agrees() && r.gap != nullptr) ? 1 : 0;
  }
  return n;
}

int CaseResult::failures() const {
  int n = 0;
  for (const Row& r : rows) {
    n += (!r.baseline && r.comparable() && !r.direction_agrees() && r.gap == nullptr) ? 1 : 0;
  }
  return n;
}

int CaseResult::ratios_compared() const {
  int n = 0;
  for (const Row& r : rows) n += (!r.baseline && r.ratio_error()) ? 1 : 0;
  return n;
}

int CaseResult::ratios_within_tolerance() const {
  int n = 0;
  for (const Row& r : rows) n += (!r.baseline && r.within_tolerance()) ? 1 : 0;
  return n;
}

Verdict CaseResult::verdict() const {
  if (failures() > 0) return Verdict::kFail;
  return gaps_disagreeing() > 0 ? Verdict::kGap : Verdict::kPass;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "PASS";
    case Verdict::kGap:
      return "GAP";
    case Verdict::kFail:
      break;
  }
  return "FAIL";
}

void compute_rows(CaseResult* cr) {
  const ValidationCase& vc = *cr->vc;
  cr->rows.clear();
  const size_t arms = vc.arms.size();
  const size_t draws = std::max<size_t>(cr->draws, 1);
  for (const Metric& m : vc.metrics) {
    // by_draw[d][a]: draw d's figure of arm a; model[a]: the arm's median over the draws.
    std::vector<std::vector<std::optional<double>>> by_draw(draws);
    for (size_t i = 0; i < cr->runs.size() && i / arms < draws; ++i)
      by_draw[i / arms].push_back(m.model(cr->runs[i]));
    std::vector<std::optional<double>> model;
    for (size_t a = 0; a < arms; ++a) {
      std::vector<std::optional<double>> of_arm;
      for (const auto& d : by_draw) of_arm.push_back(a < d.size() ? d[a] : std::nullopt);
      model.push_back(median_of(of_arm));
    }
    for (size_t a = 0; a < vc.arms.size(); ++a) {
      Row row;
      row.metric = m.name;
      row.unit = m.unit;
      row.arm = vc.arms[a].label;
      row.baseline = a == 0;
      row.published = a < m.published.size() ? m.published[a] : std::nullopt;
      row.model = a < model.size() ? model[a] : std::nullopt;
      if (a != 0) {
        std::optional<double> pub_base = m.published.empty() ? std::nullopt : m.published[0];
        if (a < m.published_base.size() && m.published_base[a]) pub_base = m.published_base[a];
        row.published_ratio = ratio_of(row.published, pub_base);
        row.model_ratio = ratio_of(row.model, model.empty() ? std::nullopt : model[0]);
        const double band = m.tie_band.value_or(vc.tie_band);
        row.published_direction = direction_of(row.published, pub_base, band);
        row.model_direction = direction_of(row.model, model[0], band);
        if (draws > 1) {
          // Each draw's ratio within the draw (the arms of a draw ran the same trace or the same
          // seed's), their median the model's; a baseline of 0 in any draw keeps the medians'.
          std::vector<std::optional<double>> ratios;
          for (const auto& d : by_draw) {
            ratios.push_back(a < d.size() ? ratio_of(d[a], d.empty() ? std::nullopt : d[0])
                                          : std::nullopt);
          }
          if (const std::optional<double> r = median_of(ratios)) {
            row.model_ratio = r;
            row.model_direction = direction_of(*r, 1.0, band);
            row.model_ratio_min = **std::min_element(ratios.begin(), ratios.end());
            row.model_ratio_max = **std::max_element(ratios.begin(), ratios.end());
          }
        }
        if (row.published_direction == Direction::kUnknown && m.expected_sign) {
          row.published_direction = *m.expected_sign < 0   ? Direction::kLower
                                    : *m.expected_sign > 0 ? Direction::kHigher
                                                           : Direction::kSame;
        }
        for (const KnownGap& g : vc.gaps) {
          const bool at_this_scale =
              g.scales.empty() ||
              (cr->scale != nullptr &&
               std::find(g.scales.begin(), g.scales.end(), cr->scale->name) != g.scales.end());
          if (g.metric == m.name && g.arm == row.arm && at_this_scale) row.gap = &g;
        }
      }
      cr->rows.push_back(row);
    }
  }
}

}  // namespace mmreplay::validate
