// A histogram's percentile distribution as a curve on HdrHistogram's axes: x = 1/(1-p), y = the
// latency at percentile p, drawn as steps (each bucket reports its top, as .hgrm files do,
// replay/hgrm.cpp). Built from the non-empty buckets the results JSON keeps, so the curve has as
// many points as the histogram has resolution, not just the p50/p90/p99/p99.9 summary.

#pragma once

#include <vector>

#include "tools/report/results_model.h"
#include "tools/report/svg.h"

namespace mmreplay::report {

// x of percentile fraction `p` (0..1) on an axis that ends at `edge`: 1/(1-p), p = 1 at the edge.
double percentile_x(double p, double edge);

// The step curve: for each bucket, a flat segment at min(top, max) across the percentiles it
// covers. Empty for an empty histogram. REQUIRES: edge >= 1.
std::vector<Point> percentile_curve(const HistogramData& h, double edge);

// The latency at each of `percentiles` (fractions, e.g. 0.5, 0.99) as a point, for markers.
std::vector<Point> percentile_marks(const HistogramData& h, const std::vector<double>& percentiles,
                                    double edge);

// The right edge for histograms of up to `max_count` samples: the power of ten that resolves the
// highest percentile they reach, at least 10^4 (99.99%) and at most 10^6.
double percentile_edge(uint64_t max_count);

}  // namespace mmreplay::report
