// What replaying a validation case gives: per metric and arm, the published and the model's
// figure, and for every arm but the baseline the two ratios against the baseline, whether their
// directions agree and how far apart they are.

#pragma once

#include <optional>
#include <string>
#include <vector>

#include "replay/run.h"
#include "tools/validate/validation_case.h"

namespace mmreplay::validate {

enum class Direction { kUnknown, kLower, kSame, kHigher };
const char* direction_name(Direction d);

// value / base as a direction, with ratios within 1 +- tie_band counting as the same.
// A zero base: a positive value is higher, zero the same.
Direction direction_of(std::optional<double> value, std::optional<double> base, double tie_band);
// value / base, nullopt when either is missing or base is 0.
std::optional<double> ratio_of(std::optional<double> value, std::optional<double> base);
// The median of `v` (the mean of the two middle values of an even count); nullopt when v is empty
// or any value is missing.
std::optional<double> median_of(std::vector<std::optional<double>> v);

struct Row {
  std::string metric;
  std::string unit;
  std::string arm;
  bool baseline = false;
  std::optional<double> published;
  std::optional<double> model;
  // Against the baseline arm (not set on the baseline row). Over several draws (Scale::draws):
  // `model` is the arm's median figure and `model_ratio` the median of the draws' ratios, each
  // taken within its draw, with their range in model_ratio_min .. model_ratio_max.
  std::optional<double> published_ratio;
  std::optional<double> model_ratio;
  std::optional<double> model_ratio_min;
  std::optional<double> model_ratio_max;
  Direction published_direction = Direction::kUnknown;
  Direction model_direction = Direction::kUnknown;
  const KnownGap* gap = nullptr;

  // Both directions known (a published figure on both sides and a model figure on both).
  bool comparable() const {
    return published_direction != Direction::kUnknown && model_direction != Direction::kUnknown;
  }
  bool direction_agrees() const { return comparable() && published_direction == model_direction; }
  // model_ratio / published_ratio - 1, when both exist.
  std::optional<double> ratio_error() const;
  bool within_tolerance() const;
};

// A case's verdict: PASS, every direction agrees; GAP, only declared gaps disagree; FAIL, any
// other disagrees.
enum class Verdict { kPass, kGap, kFail };
const char* verdict_name(Verdict v);

struct CaseResult {
  const ValidationCase* vc = nullptr;
  const Scale* scale = nullptr;
  // One per arm and draw: the arms in order, draw after draw.
  std::vector<replay::RunResult> runs;
  uint32_t draws = 1;
  std::vector<Row> rows;  // metric-major, arm order within a metric
  double wall_seconds = 0;

  // Comparisons checked: every comparable row but the baselines, declared gaps included (a gap
  // is a disagreement the case explains, not one it hides). How many agree in direction / ratio.
  int checked() const;
  int directions_agreeing() const;
  // Disagreeing directions on rows with a declared gap, and on rows without one.
  int gaps_disagreeing() const;
  int failures() const;
  int ratios_within_tolerance() const;
  // Checked comparisons that have a ratio on both sides (a published figure for both arms).
  int ratios_compared() const;
  int ratios_outside_tolerance() const { return ratios_compared() - ratios_within_tolerance(); }
  // Every checked comparison agrees in direction.
  bool passed() const { return directions_agreeing() == checked(); }
  Verdict verdict() const;
};

// Fills cr->rows from cr->runs (one per arm and draw).
void compute_rows(CaseResult* cr);

}  // namespace mmreplay::validate
