// A small SVG writer for the HTML report: XML escaping, series styles (Okabe-Ito colours plus a
// dash pattern and a marker each, so lines stay apart in grey print and for colour-blind readers),
// axes with linear or log scales and their ticks, line charts and grouped bar charts with legends.
//
// Written here rather than taken from a plotting library: Debian 12 packages no C++ plotting
// library that writes SVG offline (matplotlib or gnuplot would mean a Python or external-process
// dependency for one HTML file).
//
// Invariants of every chart this module renders:
//   (1) the output is one well-formed <svg> element: all text goes through xml_escape();
//   (2) every non-empty series label appears in the chart's legend (<g class="legend">), as <text>;
//   (3) the output is deterministic: numbers are printed with fixed precision, no clocks, no ids
//       that depend on addresses.

#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mmreplay::report {

// Escapes &, <, >, " and ' for XML text and attribute values.
std::string xml_escape(std::string_view text);

enum class Marker { kCircle, kSquare, kTriangle, kDiamond, kCross, kPlus, kStar, kTriangleDown };

struct SeriesStyle {
  const char* colour;  // Okabe-Ito
  const char* dash;    // stroke-dasharray, "" for solid
  Marker marker;
};

// Style of the i-th series; colours, dashes and markers cycle at different lengths, so the first
// 56 styles are all different.
SeriesStyle series_style(size_t i);

// The Okabe-Ito colours series_style() uses, in order (black is left out: it is the axis colour).
const std::vector<std::string>& okabe_ito_colours();

struct Tick {
  double value;
  std::string label;
};

struct Axis {
  std::string label;  // with units: "latency (ns, log)"
  double min = 0;
  double max = 1;
  bool log = false;
  std::vector<Tick> ticks;
};

// Decade ticks (1, 10, 100 ...) between min and max (both > 0), with 2x and 5x ticks when the
// range spans two decades or fewer; `format` labels each value.
std::vector<Tick> log_ticks(double min, double max,
                            const std::function<std::string(double)>& format);

// About `target` evenly spaced ticks at 1, 2 or 5 times a power of ten.
std::vector<Tick> linear_ticks(double min, double max, int target,
                               const std::function<std::string(double)>& format);

// The HdrHistogram percentile axis: x = 1/(1-p) on a log scale from 1 (0%) to `edge` (a power of
// ten), ticks labelled 50%, 90%, 99%, 99.9% ... up to the edge.
Axis percentile_axis(double edge);

struct Point {
  double x;
  double y;
};

struct LineSeries {
  std::string label;          // "" keeps it out of the legend (repeated reference lines)
  size_t style = 0;           // index for series_style()
  std::vector<Point> points;  // in data coordinates, drawn in order
  bool markers = true;        // a marker on every point (false for dense curves)
  std::vector<Point> marks;   // with markers false: where to put markers instead
  bool reference = false;     // a thin grey dotted reference line (e.g. ideal scaling)
};

struct LineChart {
  std::string title;
  Axis x;
  Axis y;
  std::vector<LineSeries> series;
};

// REQUIRES: log axes have min > 0; max > min.
std::string render_line_chart(const LineChart& chart);

// One group of bars: one value per series, and a note printed after each bar ("1.52x").
struct BarGroup {
  std::string label;
  std::vector<double> values;
  std::vector<std::string> notes;
  std::string detail = {};  // shown after the label in normal weight (a counter's doc); "" = none
};

// Horizontal grouped bars; each group is scaled to its own largest value, so counters of very
// different sizes sit side by side and the notes carry the ratios.
struct BarChart {
  std::string title;
  std::vector<std::string> series;  // legend labels, one per value in each group
  std::vector<BarGroup> groups;
};

std::string render_bar_chart(const BarChart& chart);

}  // namespace mmreplay::report
