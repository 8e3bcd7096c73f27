// HdrHistogram's percentile-distribution text (.hgrm), as HdrHistogram's plotFiles.html reads it
// (../shared/reference/formats.md): a header, rows "value percentile total_count 1/(1-p)" with
// the value as the bucket top, and the Mean/Max/Buckets footer. Values are in microseconds.

#pragma once

#include <ostream>

#include "kernelsim/sim/histogram.h"

namespace mmreplay::replay {

// Ticks per halving of the remaining distance to 100%, as HdrHistogram's default output uses.
inline constexpr int kHgrmTicksPerHalfDistance = 5;

void write_hgrm(std::ostream& out, const kernelsim::Histogram& h);

}  // namespace mmreplay::replay
