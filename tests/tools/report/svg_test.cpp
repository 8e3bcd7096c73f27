// The SVG writer: escaping, ticks, the percentile axis, and charts that parse as XML with every
// series in the legend. Also the checker itself, so a passing report test means something.

#include "tools/report/svg.h"

#include <gtest/gtest.h>

#include <set>

#include "tests/tools/report/xml_check.h"
#include "tools/report/percentile_curve.h"

namespace mmreplay::report {
namespace {

using testing::legend_texts;
using testing::xml_error;

std::string plain(double v) {
  return std::to_string(static_cast<long long>(v));
}

TEST(XmlCheck, CatchesWhatBreaksAnSvg) {
  EXPECT_EQ(xml_error("<svg a=\"1\"><g><text>x &amp; y</text></g><rect/></svg>"), "");
  EXPECT_NE(xml_error("<svg><g></svg>"), "");                 // unbalanced
  EXPECT_NE(xml_error("<svg><text>a < b</text></svg>"), "");  // raw '<'
  EXPECT_NE(xml_error("<svg><text>a & b</text></svg>"), "");  // raw '&'
  EXPECT_NE(xml_error("<svg a=1></svg>"), "");                // unquoted attribute
  EXPECT_NE(xml_error("<svg a=\"1\" a=\"2\"></svg>"), "");    // duplicate attribute
  EXPECT_NE(xml_error("<svg></svg><svg></svg>"), "");         // two roots
  EXPECT_NE(xml_error("<svg t=\"<\"></svg>"), "");            // '<' in an attribute
}

TEST(Svg, EscapesMarkupInText) {
  EXPECT_EQ(xml_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(xml_escape("free-throttled"), "free-throttled");
}

TEST(Svg, SeriesStylesDifferInColourDashAndMarker) {
  std::set<std::string> colours;
  std::set<std::string> dashes;
  for (size_t i = 0; i < 7; ++i) {
    colours.insert(series_style(i).colour);
    dashes.insert(series_style(i).dash);
  }
  EXPECT_EQ(colours.size(), 7u);
  EXPECT_EQ(dashes.size(), 7u);
  EXPECT_NE(series_style(0).marker, series_style(1).marker);
  // All Okabe-Ito, none black (black is the axes).
  for (size_t i = 0; i < 7; ++i) EXPECT_NE(std::string(series_style(i).colour), "#000000");
}

TEST(Svg, LogTicksAtDecadesAndFinerOverShortRanges) {
  auto wide = log_ticks(1, 1e6, plain);
  ASSERT_EQ(wide.size(), 7u);
  EXPECT_EQ(wide.front().value, 1);
  EXPECT_EQ(wide.back().value, 1e6);
  auto narrow = log_ticks(100, 1e4, plain);
  std::vector<double> values;
  for (const auto& t : narrow) values.push_back(t.value);
  EXPECT_EQ(values, (std::vector<double>{100, 200, 500, 1000, 2000, 5000, 10000}));
}

TEST(Svg, LinearTicksAreRoundSteps) {
  auto t = linear_ticks(0, 100, 5, plain);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[1].value, 20);
}

TEST(Svg, PercentileAxisLabelsTheNines) {
  const Axis a = percentile_axis(1e4);
  std::vector<std::string> labels;
  for (const auto& t : a.ticks) labels.push_back(t.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"50%", "90%", "99%", "99.9%", "99.99%"}));
  EXPECT_TRUE(a.log);
  EXPECT_EQ(a.ticks[0].value, 2);  // 1/(1-0.5)
  EXPECT_EQ(a.min, 1);             // 0%
  EXPECT_EQ(percentile_axis(1e6).ticks.back().label, "99.9999%");
}

TEST(Svg, LineChartParsesAndLegendHasEverySeries) {
  LineChart c;
  c.title = "op <fault> & friends";
  c.x = percentile_axis(1e4);
  c.y.min = 1;
  c.y.max = 1e6;
  c.y.log = true;
  c.y.ticks = log_ticks(1, 1e6, plain);
  c.y.label = "latency";
  const std::vector<std::string> labels = {"dontneed", "free", "a<b>&c", "d", "e", "f", "g", "h"};
  for (size_t i = 0; i < labels.size(); ++i) {
    c.series.push_back({labels[i],
                        i,
                        {{1, 10.0 * (i + 1)}, {100, 1e3}, {1e4, 2e7}},
                        i % 2 == 0,
                        {{2, 20}},
                        false});
  }
  c.series.push_back({"", 0, {{1, 5}, {10, 50}}, false, {}, true});  // unlabelled reference
  const std::string svg = render_line_chart(c);
  EXPECT_EQ(xml_error(svg), "");
  const auto legend = legend_texts(svg);
  EXPECT_EQ(legend.size(), labels.size());
  for (const auto& l : labels) {
    EXPECT_NE(std::find(legend.begin(), legend.end(), xml_escape(l)), legend.end()) << l;
  }
  EXPECT_NE(svg.find("op &lt;fault&gt; &amp; friends"), std::string::npos);
}

TEST(Svg, BarChartParsesAndScalesEachGroupToItsLargest) {
  BarChart c;
  c.title = "counters";
  c.series = {"dontneed", "free"};
  c.groups = {{"pswpin", {10, 1000}, {"10", "1000 (100.00x)"}}, {"pgfree", {0, 0}, {"0", "0"}}};
  const std::string svg = render_bar_chart(c);
  EXPECT_EQ(xml_error(svg), "");
  const auto legend = legend_texts(svg);
  EXPECT_EQ(legend, (std::vector<std::string>{"dontneed", "free"}));
  EXPECT_NE(svg.find("100.00x"), std::string::npos);
}

TEST(PercentileCurve, StepsUpToTheEdgeAndNeverDown) {
  HistogramData h;
  h.count = 100;
  h.max_ns = 950;
  h.buckets = {{10, 11, 50}, {100, 103, 40}, {500, 507, 9}, {900, 959, 1}};
  const auto points = percentile_curve(h, 1e4);
  ASSERT_EQ(points.size(), 8u);
  EXPECT_EQ(points.front().x, 1);
  EXPECT_EQ(points.front().y, 11);
  EXPECT_DOUBLE_EQ(points[1].x, 2);   // 50 of 100 below: 1/(1-0.5)
  EXPECT_DOUBLE_EQ(points[3].x, 10);  // 90%
  EXPECT_EQ(points.back().x, 1e4);    // the maximum reaches the edge
  EXPECT_EQ(points.back().y, 950);    // reported as the max, not the bucket top
  for (size_t i = 1; i < points.size(); ++i) {
    EXPECT_GE(points[i].x, points[i - 1].x);
    EXPECT_GE(points[i].y, points[i - 1].y);
  }
  const auto marks = percentile_marks(h, {0.5, 0.9, 0.99}, 1e4);
  ASSERT_EQ(marks.size(), 3u);
  EXPECT_EQ(marks[0].y, 11);
  EXPECT_EQ(marks[1].y, 103);
  EXPECT_EQ(marks[2].y, 507);
  EXPECT_TRUE(percentile_curve(HistogramData(), 1e4).empty());
}

TEST(PercentileCurve, EdgeFollowsTheSampleCount) {
  EXPECT_EQ(percentile_edge(100), 1e4);
  EXPECT_EQ(percentile_edge(250000), 1e6);
  EXPECT_EQ(percentile_edge(1u << 30), 1e6);
}

}  // namespace
}  // namespace mmreplay::report
