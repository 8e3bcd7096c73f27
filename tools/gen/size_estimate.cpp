// Events to bytes, and bytes to words; see size_estimate.h.

#include "tools/gen/size_estimate.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace mmreplay::gen {

namespace {

constexpr long double kBinaryStep = 1024;
constexpr long double kDecimalStep = 1000;

// "%.1f" followed by the unit; keeps one function for both scales.
std::string with_unit(long double value, const char* unit) {
  std::array<char, 64> text{};
  std::snprintf(text.data(), text.size(), "%.1Lf %s", value, unit);
  return text.data();
}

}  // namespace

long double estimated_bytes(const TraceEstimate& estimate) {
  return kTraceHeaderBytes + estimate.threads * kBytesPerThread +
         estimate.events * static_cast<long double>(estimate.bytes_per_event);
}

std::string human_size(long double bytes) {
  static constexpr std::array<const char*, 7> kUnits = {"bytes", "KiB", "MiB", "GiB",
                                                        "TiB",   "PiB", "EiB"};
  if (bytes < kBinaryStep) return with_unit(bytes, kUnits[0]);
  size_t unit = 0;
  while (bytes >= kBinaryStep && unit + 1 < kUnits.size()) {
    bytes /= kBinaryStep;
    ++unit;
  }
  if (bytes >= kBinaryStep) {  // past EiB: no unit is left, a power of ten says it
    std::array<char, 64> text{};
    std::snprintf(text.data(), text.size(), "%.1Le EiB", bytes);
    return text.data();
  }
  return with_unit(bytes, kUnits[unit]);
}

std::string describe_estimate(const TraceEstimate& estimate) {
  static constexpr std::array<const char*, 5> kCounts = {"", "K", "M", "G", "T"};
  long double events = estimate.events;
  size_t unit = 0;
  while (events >= kDecimalStep && unit + 1 < kCounts.size()) {
    events /= kDecimalStep;
    ++unit;
  }
  std::array<char, 64> count{};
  if (events >= kDecimalStep) {
    std::snprintf(count.data(), count.size(), "%.1Le", estimate.events);
  } else if (unit == 0) {
    std::snprintf(count.data(), count.size(), "%.0Lf", events);
  } else {
    std::snprintf(count.data(), count.size(), "%.1Lf%s", events, kCounts[unit]);
  }
  return "about " + human_size(estimated_bytes(estimate)) + " (" + count.data() + " events)";
}

long double log_uniform_mean(long double min, long double max) {
  if (max <= min) return min;
  return (max - min) / std::log(max / min);
}

long double ceil_div(long double a, long double b) {
  return std::ceil(a / b);
}

}  // namespace mmreplay::gen
