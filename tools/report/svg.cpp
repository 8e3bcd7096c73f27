#include "tools/report/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace mmreplay::report {
namespace {

// Layout, in SVG user units (px at 100% zoom).
constexpr double kWidth = 760;
constexpr double kPlotHeight = 300;
constexpr double kMarginLeft = 78;
constexpr double kMarginRight = 44;  // room for the last x tick label
constexpr double kMarginTop = 34;
constexpr double kAxisBelow = 52;  // tick labels and the x axis label
constexpr double kLegendRow = 20;
constexpr double kLegendSwatch = 34;  // line sample plus marker
constexpr double kCharWidth = 6.6;    // estimate for 12px sans-serif
constexpr double kMarkerRadius = 3.6;
constexpr double kTickLength = 5;

constexpr double kBarHeight = 13;
constexpr double kBarGap = 3;
constexpr double kGroupHeader = 20;
constexpr double kGroupGap = 8;
constexpr double kBarLabelColumn = 170;
constexpr double kBarNoteColumn = 190;

const char* const kColours[] = {"#E69F00", "#56B4E9", "#009E73", "#0072B2",
                                "#D55E00", "#CC79A7", "#F0E442"};
const char* const kDashes[] = {"", "8 4", "2 3", "10 3 2 3", "4 4", "1 2", "12 4 2 4 2 4"};
const Marker kMarkers[] = {Marker::kCircle,  Marker::kSquare,      Marker::kTriangle,
                           Marker::kDiamond, Marker::kCross,       Marker::kPlus,
                           Marker::kStar,    Marker::kTriangleDown};
constexpr const char* kReferenceColour = "#777777";
constexpr const char* kReferenceDash = "2 4";

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Maps data coordinates to the plot rectangle.
struct Frame {
  double left, top, width, height;
  const Axis* x;
  const Axis* y;

  static double unit(const Axis& a, double v) {
    v = std::clamp(v, a.min, a.max);
    if (a.log) return (std::log10(v) - std::log10(a.min)) / (std::log10(a.max) - std::log10(a.min));
    return (v - a.min) / (a.max - a.min);
  }
  double px(double v) const { return left + unit(*x, v) * width; }
  double py(double v) const { return top + height - unit(*y, v) * height; }
};

void marker(std::ostream& out, Marker m, double cx, double cy, const char* colour) {
  const double r = kMarkerRadius;
  const std::string x = num(cx), y = num(cy);
  switch (m) {
    case Marker::kCircle:
      out << "<circle cx=\"" << x << "\" cy=\"" << y << "\" r=\"" << num(r) << "\" fill=\""
          << colour << "\"/>";
      return;
    case Marker::kSquare:
      out << "<rect x=\"" << num(cx - r) << "\" y=\"" << num(cy - r) << "\" width=\"" << num(2 * r)
          << "\" height=\"" << num(2 * r) << "\" fill=\"" << colour << "\"/>";
      return;
    case Marker::kTriangle:
    case Marker::kTriangleDown: {
      const double s = m == Marker::kTriangle ? 1 : -1;
      out << "<path d=\"M" << x << "," << num(cy - s * r) << " L" << num(cx + r) << ","
          << num(cy + s * r) << " L" << num(cx - r) << "," << num(cy + s * r) << " Z\" fill=\""
          << colour << "\"/>";
      return;
    }
    case Marker::kDiamond:
      out << "<path d=\"M" << x << "," << num(cy - r) << " L" << num(cx + r) << "," << y << " L"
          << x << "," << num(cy + r) << " L" << num(cx - r) << "," << y << " Z\" fill=\"" << colour
          << "\"/>";
      return;
    case Marker::kCross:
    case Marker::kPlus:
    case Marker::kStar: {
      out << "<path d=\"";
      if (m != Marker::kPlus) {
        out << "M" << num(cx - r) << "," << num(cy - r) << " L" << num(cx + r) << "," << num(cy + r)
            << " M" << num(cx - r) << "," << num(cy + r) << " L" << num(cx + r) << ","
            << num(cy - r) << " ";
      }
      if (m != Marker::kCross) {
        out << "M" << num(cx - r) << "," << y << " L" << num(cx + r) << "," << y << " M" << x << ","
            << num(cy - r) << " L" << x << "," << num(cy + r);
      }
      out << "\" stroke=\"" << colour << "\" stroke-width=\"1.8\" fill=\"none\"/>";
      return;
    }
  }
}

void open_svg(std::ostream& out, double height, const std::string& title) {
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"img\" width=\""
      << num(kWidth) << "\" height=\"" << num(height) << "\" viewBox=\"0 0 " << num(kWidth) << " "
      << num(height) << "\" font-family=\"sans-serif\" font-size=\"12\">";
  out << "<title>" << xml_escape(title) << "</title>";
  out << "<text class=\"chart-title\" x=\"" << num(kWidth / 2)
      << "\" y=\"20\" text-anchor=\"middle\" "
      << "font-size=\"14\" font-weight=\"bold\">" << xml_escape(title) << "</text>";
}

void axes(std::ostream& out, const Frame& f) {
  out << "<g class=\"axes\" stroke=\"#000\" fill=\"none\">";
  out << "<rect x=\"" << num(f.left) << "\" y=\"" << num(f.top) << "\" width=\"" << num(f.width)
      << "\" height=\"" << num(f.height) << "\" stroke-width=\"1\"/>";
  out << "</g><g class=\"grid\" stroke=\"#dddddd\" stroke-width=\"1\">";
  for (const Tick& t : f.x->ticks) {
    out << "<line x1=\"" << num(f.px(t.value)) << "\" y1=\"" << num(f.top) << "\" x2=\""
        << num(f.px(t.value)) << "\" y2=\"" << num(f.top + f.height) << "\"/>";
  }
  for (const Tick& t : f.y->ticks) {
    out << "<line x1=\"" << num(f.left) << "\" y1=\"" << num(f.py(t.value)) << "\" x2=\""
        << num(f.left + f.width) << "\" y2=\"" << num(f.py(t.value)) << "\"/>";
  }
  out << "</g><g class=\"ticks\" fill=\"#000\">";
  const double bottom = f.top + f.height;
  for (const Tick& t : f.x->ticks) {
    const double x = f.px(t.value);
    out << "<line x1=\"" << num(x) << "\" y1=\"" << num(bottom) << "\" x2=\"" << num(x)
        << "\" y2=\"" << num(bottom + kTickLength) << "\" stroke=\"#000\"/>";
    out << "<text x=\"" << num(x) << "\" y=\"" << num(bottom + 18) << "\" text-anchor=\"middle\">"
        << xml_escape(t.label) << "</text>";
  }
  for (const Tick& t : f.y->ticks) {
    const double y = f.py(t.value);
    out << "<line x1=\"" << num(f.left - kTickLength) << "\" y1=\"" << num(y) << "\" x2=\""
        << num(f.left) << "\" y2=\"" << num(y) << "\" stroke=\"#000\"/>";
    out << "<text x=\"" << num(f.left - 8) << "\" y=\"" << num(y + 4) << "\" text-anchor=\"end\">"
        << xml_escape(t.label) << "</text>";
  }
  out << "<text class=\"axis-label\" x=\"" << num(f.left + f.width / 2) << "\" y=\""
      << num(bottom + 40) << "\" text-anchor=\"middle\">" << xml_escape(f.x->label) << "</text>";
  const double mid = f.top + f.height / 2;
  out << "<text class=\"axis-label\" x=\"16\" y=\"" << num(mid) << "\" text-anchor=\"middle\" "
      << "transform=\"rotate(-90 16 " << num(mid) << ")\">" << xml_escape(f.y->label) << "</text>";
  out << "</g>";
}

// Legend entries laid out in rows below the plot; returns the rows used.
struct LegendEntry {
  std::string label;
  SeriesStyle style;
  bool reference;
};

int legend_rows(const std::vector<LegendEntry>& entries) {
  int rows = entries.empty() ? 0 : 1;
  double x = kMarginLeft;
  for (const auto& e : entries) {
    const double w = kLegendSwatch + 8 + kCharWidth * static_cast<double>(e.label.size()) + 18;
    if (x + w > kWidth - kMarginRight && x > kMarginLeft) {
      ++rows;
      x = kMarginLeft;
    }
    x += w;
  }
  return rows;
}

void legend(std::ostream& out, const std::vector<LegendEntry>& entries, double top) {
  out << "<g class=\"legend\">";
  double x = kMarginLeft, y = top;
  for (const auto& e : entries) {
    const double w = kLegendSwatch + 8 + kCharWidth * static_cast<double>(e.label.size()) + 18;
    if (x + w > kWidth - kMarginRight && x > kMarginLeft) {
      x = kMarginLeft;
      y += kLegendRow;
    }
    const char* colour = e.reference ? kReferenceColour : e.style.colour;
    const char* dash = e.reference ? kReferenceDash : e.style.dash;
    out << "<g class=\"legend-entry\"><line x1=\"" << num(x) << "\" y1=\"" << num(y) << "\" x2=\""
        << num(x + kLegendSwatch) << "\" y2=\"" << num(y) << "\" stroke=\"" << colour
        << "\" stroke-width=\"2\"";
    if (*dash) out << " stroke-dasharray=\"" << dash << "\"";
    out << "/>";
    if (!e.reference) marker(out, e.style.marker, x + kLegendSwatch / 2, y, colour);
    out << "<text x=\"" << num(x + kLegendSwatch + 8) << "\" y=\"" << num(y + 4) << "\">"
        << xml_escape(e.label) << "</text></g>";
    x += w;
  }
  out << "</g>";
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

SeriesStyle series_style(size_t i) {
  constexpr size_t nc = std::size(kColours), nd = std::size(kDashes), nm = std::size(kMarkers);
  return {kColours[i % nc], kDashes[i % nd], kMarkers[i % nm]};
}

const std::vector<std::string>& okabe_ito_colours() {
  static const std::vector<std::string> colours(std::begin(kColours), std::end(kColours));
  return colours;
}

std::vector<Tick> log_ticks(double min, double max,
                            const std::function<std::string(double)>& format) {
  std::vector<Tick> ticks;
  const int lo = static_cast<int>(std::floor(std::log10(min) + 1e-9));
  const int hi = static_cast<int>(std::ceil(std::log10(max) - 1e-9));
  const bool fine = hi - lo <= 2;
  for (int d = lo; d <= hi; ++d) {
    const double decade = std::pow(10.0, d);
    for (double m : {1.0, 2.0, 5.0}) {
      if (m != 1.0 && !fine) continue;
      const double v = decade * m;
      if (v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9)) ticks.push_back({v, format(v)});
    }
  }
  return ticks;
}

std::vector<Tick> linear_ticks(double min, double max, int target,
                               const std::function<std::string(double)>& format) {
  std::vector<Tick> ticks;
  const double raw = (max - min) / std::max(1, target);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = power * m;
    if (step >= raw) break;
  }
  for (double v = std::ceil(min / step - 1e-9) * step; v <= max * (1 + 1e-9) + 1e-12; v += step) {
    ticks.push_back({v, format(v)});
  }
  return ticks;
}

Axis percentile_axis(double edge) {
  Axis a;
  a.label = "percentile (HdrHistogram 1/(1-p) scale)";
  a.min = 1;
  a.max = edge;
  a.log = true;
  a.ticks = {{2, "50%"}, {10, "90%"}};
  std::string nines = "99";
  for (double x = 100; x <= edge * (1 + 1e-9); x *= 10) {
    a.ticks.push_back({x, nines + "%"});
    nines += nines.size() == 2 ? ".9" : "9";
  }
  return a;
}

std::string render_line_chart(const LineChart& c) {
  std::vector<LegendEntry> entries;
  for (const auto& s : c.series) {
    if (!s.label.empty()) entries.push_back({s.label, series_style(s.style), s.reference});
  }
  const double legend_top = kMarginTop + kPlotHeight + kAxisBelow + 8;
  const double height = legend_top + legend_rows(entries) * kLegendRow + 4;
  std::ostringstream out;
  open_svg(out, height, c.title);
  const Frame f{kMarginLeft, kMarginTop, kWidth - kMarginLeft - kMarginRight,
                kPlotHeight, &c.x,       &c.y};
  axes(out, f);
  out << "<g class=\"series\" fill=\"none\">";
  // Reference lines first, so data lines draw over them.
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& s : c.series) {
      if (s.reference != (pass == 0) || s.points.empty()) continue;
      const SeriesStyle st = series_style(s.style);
      const char* colour = s.reference ? kReferenceColour : st.colour;
      const char* dash = s.reference ? kReferenceDash : st.dash;
      out << "<polyline stroke=\"" << colour << "\" stroke-width=\"" << (s.reference ? "1.2" : "2")
          << "\"";
      if (*dash) out << " stroke-dasharray=\"" << dash << "\"";
      out << " points=\"";
      for (size_t i = 0; i < s.points.size(); ++i) {
        out << (i ? " " : "") << num(f.px(s.points[i].x)) << "," << num(f.py(s.points[i].y));
      }
      out << "\"/>";
      if (s.reference) continue;
      for (const Point& p : s.markers ? s.points : s.marks) {
        marker(out, st.marker, f.px(p.x), f.py(p.y), st.colour);
      }
    }
  }
  out << "</g>";
  legend(out, entries, legend_top);
  out << "</svg>";
  return out.str();
}

std::string render_bar_chart(const BarChart& c) {
  std::vector<LegendEntry> entries;
  for (size_t i = 0; i < c.series.size(); ++i)
    entries.push_back({c.series[i], series_style(i), false});
  const double n = static_cast<double>(c.series.size());
  const double group_height = kGroupHeader + n * (kBarHeight + kBarGap) + kGroupGap;
  const double bars_top = kMarginTop + 4;
  const double legend_top = bars_top + group_height * static_cast<double>(c.groups.size()) + 12;
  const double height = legend_top + legend_rows(entries) * kLegendRow + 4;
  const double bar_left = 12 + kBarLabelColumn;
  const double bar_span = kWidth - bar_left - kBarNoteColumn;
  std::ostringstream out;
  open_svg(out, height, c.title);
  out << "<g class=\"bars\">";
  double y = bars_top;
  for (const BarGroup& g : c.groups) {
    out << "<text class=\"group-label\" x=\"12\" y=\"" << num(y + 14) << "\" font-weight=\"bold\">"
        << xml_escape(g.label);
    if (!g.detail.empty())
      out << "<tspan font-weight=\"normal\">: " << xml_escape(g.detail) << "</tspan>";
    out << "</text>";
    y += kGroupHeader;
    double top = 0;
    for (double v : g.values) top = std::max(top, v);
    for (size_t i = 0; i < g.values.size(); ++i) {
      const SeriesStyle st = series_style(i);
      const double w = top > 0 ? g.values[i] / top * bar_span : 0;
      out << "<text x=\"" << num(bar_left - 6) << "\" y=\"" << num(y + kBarHeight - 2)
          << "\" text-anchor=\"end\">" << xml_escape(i < c.series.size() ? c.series[i] : "")
          << "</text>";
      out << "<rect x=\"" << num(bar_left) << "\" y=\"" << num(y) << "\" width=\"" << num(w)
          << "\" height=\"" << num(kBarHeight) << "\" fill=\"" << st.colour << "\"/>";
      out << "<text x=\"" << num(bar_left + w + 6) << "\" y=\"" << num(y + kBarHeight - 2) << "\">"
          << xml_escape(i < g.notes.size() ? g.notes[i] : "") << "</text>";
      y += kBarHeight + kBarGap;
    }
    y += kGroupGap;
  }
  out << "</g>";
  legend(out, entries, legend_top);
  out << "</svg>";
  return out.str();
}

}  // namespace mmreplay::report
