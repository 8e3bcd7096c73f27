// The HTML report on a tiny fixed results file (tests/fixtures/report/tiny_results.json, three
// policies, one named with markup): well-formed SVG, every policy in every legend, the summary's
// winners, a golden copy of the whole page, scale studies, and errors that name the file.
//
// To regenerate the golden page after an intended change:
//   MMREPLAY_UPDATE_GOLDEN=1 ctest --test-dir build/debug -R ReportGolden

#include "tools/report/report_html.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "tests/tools/report/xml_check.h"
#include "tools/report/report_charts.h"
#include "tools/report/report_summary.h"
#include "tools/report/svg.h"

namespace mmreplay::report {
namespace {

const std::string kFixtures = MMREPLAY_REPORT_FIXTURES;
const std::vector<std::string> kPolicies = {"dontneed", "free", "free <throttled> & co"};

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

StudyData tiny() {
  StudyData s;
  const Status st = load_study(kFixtures + "/tiny_results.json", &s);
  EXPECT_TRUE(st) << st.message();
  return s;
}

// A scale study: two policies at 1, 2 and 4 CPUs, made from the tiny runs.
StudyData scale_study() {
  StudyData s = tiny();
  s.command = "scale";
  std::vector<RunData> runs;
  for (size_t p = 0; p < 2; ++p) {
    for (uint32_t cpus : {1u, 2u, 4u}) {
      RunData r = s.runs[p];
      r.cpus = cpus;
      r.index = runs.size();
      r.throughput_ops_per_s *= cpus * (p == 0 ? 0.9 : 0.6);
      r.ops["fault"].p99_ns *= cpus;
      runs.push_back(r);
    }
  }
  s.runs = runs;
  return s;
}

void expect_well_formed_with_legends(const std::string& html,
                                     const std::vector<std::string>& policies) {
  const auto svgs = testing::svg_elements(html);
  ASSERT_FALSE(svgs.empty());
  for (size_t i = 0; i < svgs.size(); ++i) {
    EXPECT_EQ(testing::xml_error(svgs[i]), "") << "chart " << i;
    const auto legend = testing::legend_texts(svgs[i]);
    for (const auto& p : policies) {
      bool found = false;
      for (const auto& text : legend) found = found || text.rfind(xml_escape(p), 0) == 0;
      EXPECT_TRUE(found) << "chart " << i << " legend lacks " << p;
    }
  }
}

TEST(Report, EveryChartParsesAndNamesEveryPolicy) {
  const std::string html = build_report({tiny()});
  // Operations madvise and fault, lock lru_lock (wait and counts), counters.
  EXPECT_EQ(testing::svg_elements(html).size(), 5u);
  expect_well_formed_with_legends(html, kPolicies);
  // munmap had no samples in any run: no chart; mmap_sem was never contended: named only.
  EXPECT_EQ(html.find("op munmap latency"), std::string::npos);
  EXPECT_NE(html.find("Taken but never contended: mmap_sem"), std::string::npos);
}

TEST(Report, IsSelfContained) {
  const std::string html = build_report({tiny()});
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
}

TEST(Report, SummaryNamesTheWinnerAndMargin) {
  const StudyData s = tiny();
  const auto rows = summarize(compared_runs(s));
  ASSERT_EQ(rows.size(), 3u);  // fault, madvise, throughput
  EXPECT_EQ(rows[1].what, "op madvise");
  // p50: free and the throttled policy both at 301 ns: a tie, run order first.
  EXPECT_EQ(rows[1].p50.best, "free");
  EXPECT_TRUE(rows[1].p50.tie);
  // p99: free 2015 ns against the throttled policy's 2510 ns (its max): 1.25x lower.
  EXPECT_EQ(rows[1].p99.best, "free");
  EXPECT_EQ(margin_text(rows[1].p99, false), "1.25x lower than free <throttled> & co");
  EXPECT_EQ(rows[2].what, "throughput");
  EXPECT_EQ(rows[2].p50.best, "free <throttled> & co");  // shortest makespan
}

TEST(ReportGolden, TinyResultsMatchTheGoldenPage) {
  const std::string html = build_report({tiny()});
  const std::string golden = kFixtures + "/tiny_report.html";
  if (std::getenv("MMREPLAY_UPDATE_GOLDEN")) {
    std::ofstream(golden, std::ios::binary) << html;
    GTEST_SKIP() << "wrote " << golden;
  }
  const std::string want = read(golden);
  ASSERT_FALSE(want.empty()) << golden << " missing; run with MMREPLAY_UPDATE_GOLDEN=1";
  EXPECT_TRUE(html == want) << "report differs from " << golden
                            << "; if intended, regenerate with MMREPLAY_UPDATE_GOLDEN=1";
}

TEST(Report, CountersComeInListOrderWithTheirDocs) {
  RunData a, b;
  a.counters = {{"swapins", 5}, {"faults", 10}, {"observations", 2}, {"pgscan_kswapd", 0}};
  b.counters = {{"swapins", 7}, {"faults", 12}, {"observations", 2}, {"pgscan_kswapd", 0}};
  const std::string svg = counters_chart({"one", "two"}, {&a, &b});
  EXPECT_EQ(testing::xml_error(svg), "");
  // common/counters.h order (faults before swapins), then the counters of no list by name.
  const size_t faults = svg.find(">faults<"), swapins = svg.find(">swapins<"),
               observations = svg.find(">observations<");
  ASSERT_NE(faults, std::string::npos);
  ASSERT_NE(swapins, std::string::npos);
  ASSERT_NE(observations, std::string::npos);
  EXPECT_LT(faults, swapins);
  EXPECT_LT(swapins, observations);
  EXPECT_NE(svg.find("faults taken (all kinds)"), std::string::npos);
  EXPECT_EQ(svg.find("pgscan_kswapd"), std::string::npos);  // zero in every run
}

TEST(Report, ScaleStudyDrawsThroughputWithIdealAndP99PerCpuCount) {
  const StudyData s = scale_study();
  const std::string html = build_report({s});
  expect_well_formed_with_legends(html, {"dontneed", "free"});
  EXPECT_NE(html.find("throughput against CPUs"), std::string::npos);
  EXPECT_NE(html.find("ideal linear scaling"), std::string::npos);
  EXPECT_NE(html.find("op fault: p99 latency against CPUs"), std::string::npos);
  EXPECT_NE(html.find("latency percentiles at 4 CPUs"), std::string::npos);
  const Compared c = compared_runs(s);
  ASSERT_EQ(c.runs.size(), 2u);
  EXPECT_EQ(c.runs[0]->cpus, 4u);
}

TEST(Report, BadInputNamesTheFile) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("report_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string not_json = (dir / "broken.json").string();
  std::ofstream(not_json) << "{\"schema\": 1, \"runs\": [";
  StudyData s;
  Status st = load_study(not_json, &s);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.message().rfind(not_json + ": not JSON", 0), 0u) << st.message();
  EXPECT_EQ(st.code(), StatusCode::kCorruption);

  const std::string wrong = (dir / "wrong.json").string();
  std::ofstream(wrong) << "{\"schema\": 7, \"runs\": []}";
  st = load_study(wrong, &s);
  ASSERT_FALSE(st);
  EXPECT_NE(st.message().find(wrong + ": not a schema 1 results file"), std::string::npos);

  // A histogram whose buckets do not add up: named down to the run and operation.
  nlohmann::json j = nlohmann::json::parse(read(kFixtures + "/tiny_results.json"));
  j["runs"][1]["ops"]["fault"]["count"] = 5;
  st = study_from_json(j, "x.json", &s);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.message(), "x.json: run 2: ops.fault: bucket counts add up to 1000, not 5");

  // A run that failed in a --keep-going study: refused, named, never drawn.
  j = nlohmann::json::parse(read(kFixtures + "/tiny_results.json"));
  j["runs"][1] = {{"index", 1}, {"policy", "free"}, {"failed", "x.mmtrace: offset 9: damaged"}};
  st = study_from_json(j, "x.json", &s);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("x.json: run 2 failed and holds no results"), std::string::npos)
      << st.message();

  st = load_study((dir / "absent.json").string(), &s);
  EXPECT_FALSE(st);
  EXPECT_EQ(st.code(), StatusCode::kNotFound);
  EXPECT_FALSE(write_report({not_json}, (dir / "out.html").string()));
  EXPECT_FALSE(std::filesystem::exists(dir / "out.html"));
  std::filesystem::remove_all(dir);
}

// A key of the wrong type outside a run (the fuzz corpus's crash_* inputs) is a damaged file, not
// an uncaught exception.
TEST(Report, WrongTypesOutsideRunsAreDamagedFiles) {
  StudyData s;
  for (const char* text :
       {R"({"schema": "1", "runs": []})", R"({"schema": 1, "runs": [{}], "study": {"command": 5}})",
        R"({"schema": 1, "runs": [{}], "trace": {"path": []}})"}) {
    const Status st = parse_study(text, "x.json", &s);
    ASSERT_FALSE(st) << text;
    EXPECT_EQ(st.code(), StatusCode::kCorruption) << text;
    EXPECT_EQ(st.message().rfind("x.json: ", 0), 0u) << st.message();
  }
}

}  // namespace
}  // namespace mmreplay::report
