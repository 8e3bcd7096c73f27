// calibrate's throughput fit, without measuring anything: the least-squares solver on synthetic
// data with known parameters, the repeat-until-steady rule, the load refusal, the /proc parsers
// on fixture text, and the model side of two loops.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "tests/formats/random_trace.h"
#include "tools/calibrate/least_squares.h"
#include "tools/calibrate/loop_model.h"
#include "tools/calibrate/proc_counters.h"
#include "tools/calibrate/repeat.h"
#include "tools/calibrate/throughput_fit.h"

namespace mmreplay::tools::calibrate {
namespace {

// A directory of this test's own for the loops' traces: ctest runs each test as a process of its
// own, in parallel, and three tests here generate tlb_flush2 with 2 workers (the same file name in
// one shared directory: one test's LoopModel removed the trace another was reading).
std::string loop_trace_dir() {
  const std::string dir = formats::testing::temp_path("loops");
  std::filesystem::create_directories(dir);
  return dir;
}

constexpr kernelsim::TlbFlushMethod kIpi = kernelsim::TlbFlushMethod::kIpi;
constexpr kernelsim::TlbFlushMethod kPv = kernelsim::TlbFlushMethod::kParavirt;

// Synthetic loops: loop k's time per op is sum_j a[k][j] * p[j] (a loop charges each cost group
// a whole number of times), its throughput the inverse. The residuals are relative throughput
// errors against the throughputs of known parameters, as fit_throughput() computes them.
std::vector<std::vector<double>> synthetic_loops() {
  return {{1, 0, 0, 2}, {1, 1, 0, 0}, {0, 1, 3, 0}, {2, 0, 1, 1}, {0, 0, 1, 4}, {1, 2, 1, 0}};
}

ResidualFunction synthetic_residuals(const std::vector<double>& truth) {
  const auto a = synthetic_loops();
  auto time_of = [a](const std::vector<double>& p, size_t k) {
    double t = 0;
    for (size_t j = 0; j < p.size(); ++j) t += a[k][j] * p[j];
    return t;
  };
  return [=](const std::vector<double>& x) {
    std::vector<double> r;
    for (size_t k = 0; k < a.size(); ++k) r.push_back(time_of(truth, k) / time_of(x, k) - 1);
    return r;
  };
}

TEST(LeastSquares, RecoversKnownParameters) {
  const std::vector<double> truth = {2.0, 0.5, 1.3, 3.0};
  LeastSquaresOptions o;
  o.max_iterations = 50;
  const LeastSquaresResult r = solve_least_squares(synthetic_residuals(truth), {1, 1, 1, 1}, o);
  ASSERT_EQ(r.x.size(), truth.size());
  for (size_t j = 0; j < truth.size(); ++j) EXPECT_NEAR(r.x[j], truth[j], 1e-3 * truth[j]) << j;
  EXPECT_LT(r.cost, 1e-8);
  EXPECT_GT(r.start_cost, r.cost);
}

TEST(LeastSquares, PriorHoldsAParameterNoResidualSees) {
  // The fourth parameter moves nothing: without data it stays at its start (1).
  auto f = [](const std::vector<double>& x) {
    return std::vector<double>{x[0] / 2 - 1, x[1] / 3 - 1, x[2] - 1.5};
  };
  LeastSquaresOptions o;
  o.prior_weight = 0.01;
  o.max_iterations = 50;
  const LeastSquaresResult r = solve_least_squares(f, {1, 1, 1, 1}, o);
  EXPECT_NEAR(r.x[0], 2, 0.01);
  EXPECT_NEAR(r.x[1], 3, 0.01);
  EXPECT_NEAR(r.x[2], 1.5, 0.01);
  EXPECT_NEAR(r.x[3], 1, 1e-9);
}

TEST(LeastSquares, KeepsMultipliersWithinTheirBounds) {
  auto f = [](const std::vector<double>& x) { return std::vector<double>{x[0] / 1000 - 1}; };
  LeastSquaresOptions o;
  o.max_iterations = 50;
  const LeastSquaresResult r = solve_least_squares(f, {1}, o);
  EXPECT_NEAR(r.x[0], o.max_multiplier, 1e-9);
}

// A model whose response moves in steps a quarter wide (a discrete-event model's throughput
// does): at the start a 5% finite difference sees no slope, so Levenberg-Marquardt cannot move.
ResidualFunction staircase() {
  return [](const std::vector<double>& x) {
    return std::vector<double>{std::floor(x[0] * 4) / 4 - 3, x[1] - 0.5};
  };
}

TEST(LeastSquares, APatternSearchCrossesStepsTheSolverCannotSee) {
  LeastSquaresOptions o;
  o.max_iterations = 50;
  const LeastSquaresResult stuck = solve_least_squares(staircase(), {1, 1}, o);
  EXPECT_NEAR(stuck.x[0], 1, 0.05) << "no slope at the Jacobian's step";
  EXPECT_NEAR(stuck.x[1], 0.5, 0.05);
  EXPECT_GT(stuck.cost, 3.9);
  EXPECT_EQ(stuck.polish_moves, 0u);
  EXPECT_EQ(stuck.lm_cost, stuck.cost);

  o.polish_factors = {1.5, 1.2, 1.05};
  const LeastSquaresResult r = solve_least_squares(staircase(), {1, 1}, o);
  EXPECT_GE(r.x[0], 3);
  EXPECT_LT(r.x[0], 3.25);
  EXPECT_NEAR(r.x[1], 0.5, 0.03) << "within a 5% step";
  EXPECT_LT(r.cost, 1e-3);
  EXPECT_NEAR(r.lm_cost, stuck.cost, 1e-12) << "the search starts where the solver stopped";
  EXPECT_GT(r.polish_moves, 0u);
}

TEST(LeastSquares, APatternSearchLeavesASmoothMinimumAlone) {
  const std::vector<double> truth = {2.0, 0.5, 1.3, 3.0};
  LeastSquaresOptions o;
  o.max_iterations = 50;
  o.polish_factors = {1.5, 1.2, 1.05};
  const LeastSquaresResult r = solve_least_squares(synthetic_residuals(truth), {1, 1, 1, 1}, o);
  for (size_t j = 0; j < truth.size(); ++j) EXPECT_NEAR(r.x[j], truth[j], 1e-3 * truth[j]) << j;
  EXPECT_EQ(r.polish_moves, 0u);
}

TEST(LeastSquares, SolvesADenseSystem) {
  std::vector<double> y;
  ASSERT_TRUE(solve_dense({{4, 1, 0}, {1, 3, 1}, {0, 1, 2}}, {6, 10, 8}, &y));
  EXPECT_NEAR(y[0], 1, 1e-12);
  EXPECT_NEAR(y[1], 2, 1e-12);
  EXPECT_NEAR(y[2], 3, 1e-12);
  EXPECT_FALSE(solve_dense({{1, 2}, {2, 4}}, {1, 2}, &y));
}

TEST(Repeat, SpreadIsMaxMinusMinOverMedian) {
  EXPECT_DOUBLE_EQ(relative_spread({90, 100, 110}), 0.2);
  EXPECT_DOUBLE_EQ(relative_spread({5}), 0);
}

TEST(Repeat, TightestWindowDropsAnOutlier) {
  RepeatOptions o;
  const Repeated r = tightest_window({100, 60, 101, 99}, o);
  EXPECT_TRUE(r.steady);
  EXPECT_DOUBLE_EQ(r.value, 100);
  EXPECT_NEAR(r.spread, 0.02, 1e-12);
  std::vector<size_t> chosen = r.chosen;
  std::sort(chosen.begin(), chosen.end());
  EXPECT_EQ(chosen, (std::vector<size_t>{0, 2, 3}));
}

TEST(Repeat, StopsAsSoonAsSteady) {
  const std::vector<double> values = {100, 80, 102, 101, 500, 500};
  size_t calls = 0;
  const Repeated r = repeat_until_steady([&] { return values[calls++]; }, RepeatOptions{});
  EXPECT_EQ(calls, 4u);  // 100, 102, 101 agree within 5% once the fourth is in
  EXPECT_TRUE(r.steady);
  EXPECT_DOUBLE_EQ(r.value, 101);
}

TEST(Repeat, ReportsTheSpreadWhenTheBoundIsReached) {
  const std::vector<double> values = {100, 110, 125, 150, 190, 240, 300, 380};
  size_t calls = 0;
  RepeatOptions o;
  o.max_samples = 5;
  const Repeated r = repeat_until_steady([&] { return values[calls++]; }, o);
  EXPECT_EQ(calls, 5u);
  EXPECT_FALSE(r.steady);
  EXPECT_EQ(r.samples.size(), 5u);
  EXPECT_NEAR(r.spread, (125.0 - 100.0) / 110.0, 1e-12);  // the tightest three: 100, 110, 125
  EXPECT_DOUBLE_EQ(r.value, 110);
}

TEST(LoadGuard, RefusesOnlyAboveTheCpuCount) {
  EXPECT_EQ(load_refusal(2.0, 2), "");
  EXPECT_EQ(load_refusal(0.3, 1), "");
  const std::string why = load_refusal(2.51, 2);
  EXPECT_NE(why.find("2.51"), std::string::npos) << why;
  EXPECT_NE(why.find("2 CPUs"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos);  // one line
}

TEST(LoadGuard, ParsesLoadavg) {
  EXPECT_DOUBLE_EQ(parse_load1("0.66 1.41 1.63 2/345 6789\n").value(), 0.66);
  EXPECT_DOUBLE_EQ(parse_load1("13.95 7.58 4.03 9/512 100").value(), 13.95);
  EXPECT_FALSE(parse_load1("").has_value());
  EXPECT_FALSE(parse_load1("load high").has_value());
}

// The layout of /proc/interrupts on a 2-CPU x86 machine (kernel 6.18), abridged.
constexpr const char* kInterrupts =
    "           CPU0       CPU1       \n"
    "  0:         35          0   IO-APIC   2-edge      timer\n"
    "NMI:          0          0   Non-maskable interrupts\n"
    "LOC:   23842345   23111234   Local timer interrupts\n"
    "RES:    1204412    1307711   Rescheduling interrupts\n"
    "CAL:     512345     498765   Function call interrupts\n"
    "TLB:     407650    1510895   TLB shootdowns\n"
    "TRM:          0          0   Thermal event interrupts\n";

TEST(ProcInterrupts, SumsTheTlbLineOverCpus) {
  EXPECT_EQ(parse_tlb_shootdowns(kInterrupts).value(), 407650u + 1510895u);
}

TEST(ProcInterrupts, NoTlbLineIsNotZero) {
  EXPECT_FALSE(parse_tlb_shootdowns("           CPU0\nLOC:   5   Local timer interrupts\n"));
  EXPECT_FALSE(parse_tlb_shootdowns("TLB:   TLB shootdowns\n"));
  EXPECT_FALSE(parse_tlb_shootdowns(""));
  // "TLBX:" or a TLB word elsewhere is not the line.
  EXPECT_FALSE(parse_tlb_shootdowns("XTLB:  4  TLB\n"));
}

TEST(ThroughputGroups, ScaleEveryFieldOfAGroup) {
  const kernelsim::CostProfile def = kernelsim::cost_profile_default();
  const auto& groups = throughput_groups();
  std::vector<double> x(groups.size(), 1.0);
  size_t ipi = 0;
  while (groups[ipi].name != "ipi") ++ipi;
  x[ipi] = 2;
  const kernelsim::CostProfile c = scale_groups(def, groups, x);
  EXPECT_EQ(c.ipi_delivery.count_ns(), 2 * def.ipi_delivery.count_ns());
  EXPECT_EQ(c.ipi_send.count_ns(), 2 * def.ipi_send.count_ns());
  EXPECT_EQ(c.clear_page, def.clear_page);
  for (const CostGroup& g : groups) {
    for (std::string_view f : g.fields) EXPECT_NE(kernelsim::find_cost_field(f), nullptr) << f;
  }
}

// The model side of the loops (loop_model.h): tlb_flush2 sends about one IPI per page once a
// second thread shares the mm on another CPU, none alone; every loop has a positive throughput,
// and a dearer IPI slows the two-thread loop only.
TEST(LoopModel, TlbFlushIpisFollowTheThreads) {
  const ThroughputLoop& tlb = *find_throughput_loop("tlb_flush2");
  const std::string dir = loop_trace_dir();
  std::unique_ptr<LoopModel> one, two;
  ASSERT_TRUE(LoopModel::create(tlb, 1, 2, kIpi, dir, &one));
  ASSERT_TRUE(LoopModel::create(tlb, 2, 2, kIpi, dir, &two));
  const kernelsim::CostProfile def = kernelsim::cost_profile_default();
  ModelPrediction p1, p2;
  ASSERT_TRUE(one->predict(def, &p1));
  ASSERT_TRUE(two->predict(def, &p2));
  EXPECT_LT(p1.ipis_per_op, 0.01);
  EXPECT_GT(p2.ipis_per_op, 0.5);
  EXPECT_GT(p1.ops_per_s, 0);
  kernelsim::CostProfile dear = def;
  dear.ipi_delivery = def.ipi_delivery * 10;
  ModelPrediction d1, d2;
  ASSERT_TRUE(one->predict(dear, &d1));
  ASSERT_TRUE(two->predict(dear, &d2));
  EXPECT_DOUBLE_EQ(d1.ops_per_s, p1.ops_per_s);
  EXPECT_LT(d2.ops_per_s, p2.ops_per_s);
}

// On a guest whose flush_tlb_multi() is a hypercall the two-thread tlb_flush2 sends no IPI, and a
// dearer IPI no longer slows it: a dearer hypercall does.
TEST(LoopModel, TlbFlushUnderParavirtSendsNoIpis) {
  const ThroughputLoop& tlb = *find_throughput_loop("tlb_flush2");
  std::unique_ptr<LoopModel> two;
  ASSERT_TRUE(LoopModel::create(tlb, 2, 2, kPv, loop_trace_dir(), &two));
  const kernelsim::CostProfile def = kernelsim::cost_profile_default();
  ModelPrediction p;
  ASSERT_TRUE(two->predict(def, &p));
  EXPECT_EQ(p.ipis_per_op, 0);
  EXPECT_GT(p.ops_per_s, 0);
  kernelsim::CostProfile dear_ipi = def, dear_call = def;
  dear_ipi.ipi_delivery = def.ipi_delivery * 10;
  dear_call.pv_flush_tlb_multi = def.pv_flush_tlb_multi * 10;
  ModelPrediction di, dc;
  ASSERT_TRUE(two->predict(dear_ipi, &di));
  ASSERT_TRUE(two->predict(dear_call, &dc));
  EXPECT_DOUBLE_EQ(di.ops_per_s, p.ops_per_s);
  EXPECT_LT(dc.ops_per_s, p.ops_per_s);
}

// remote_flush_method(): only a TLB line that stayed still while tlb_flush2 ran on several CPUs
// says the machine flushes by hypercall.
TEST(RemoteFlushMethod, ParavirtOnlyWhenTheTlbLineStayedStillUnderTlbFlush2) {
  const ThroughputLoop* tlb = find_throughput_loop("tlb_flush2");
  const ThroughputLoop* mm = find_throughput_loop("mmap-munmap");
  auto point = [](const ThroughputLoop* l, int workers, std::optional<double> ipis) {
    NativePoint p;
    p.loop = l;
    p.workers = workers;
    p.ipis_per_op = ipis;
    return p;
  };
  EXPECT_EQ(remote_flush_method({point(tlb, 1, 0.0), point(tlb, 2, 0.0)}), kPv);
  EXPECT_EQ(remote_flush_method({point(tlb, 1, 0.0), point(tlb, 2, 0.9)}), kIpi);
  EXPECT_EQ(remote_flush_method({point(tlb, 2, 0.001)}), kIpi) << "the line moved";
  EXPECT_EQ(remote_flush_method({point(tlb, 2, std::nullopt)}), kIpi) << "no TLB line";
  EXPECT_EQ(remote_flush_method({point(tlb, 1, 0.0)}), kIpi) << "one CPU flushes nothing remote";
  EXPECT_EQ(remote_flush_method({point(mm, 2, 0.0)}), kIpi) << "only tlb_flush2 decides";
  EXPECT_EQ(remote_flush_method({}), kIpi);
}

TEST(LoopModel, EveryLoopRunsInTheModel) {
  const kernelsim::CostProfile def = kernelsim::cost_profile_default();
  for (const ThroughputLoop& loop : throughput_loops()) {
    for (int workers : {1, 2}) {
      std::unique_ptr<LoopModel> m;
      ASSERT_TRUE(LoopModel::create(loop, workers, 2, kIpi, loop_trace_dir(), &m)) << loop.name;
      ModelPrediction p;
      ASSERT_TRUE(m->predict(def, &p)) << loop.name;
      EXPECT_GT(p.ops_per_s, 0) << loop.name << " x" << workers;
    }
  }
}

// The first loop measured again after the others: a change within kHostDriftWarning is shown,
// one beyond it says the native figures come from different speeds of the machine.
TEST(HostDriftNote, WarnsOnlyBeyondTheThreshold) {
  const HostDrift steady{"page_fault1 x1", 100000, 96000};
  EXPECT_NEAR(steady.change(), -0.04, 1e-12);
  const std::string calm = drift_note(steady);
  EXPECT_NE(calm.find("page_fault1 x1 measured again"), std::string::npos) << calm;
  EXPECT_NE(calm.find("96000 ops/s against 100000"), std::string::npos) << calm;
  EXPECT_NE(calm.find("(-4.0%)"), std::string::npos) << calm;
  EXPECT_EQ(calm.find("speed moved"), std::string::npos) << calm;

  const std::string moved = drift_note(HostDrift{"read-cached x1", 580000, 442000});
  EXPECT_NE(moved.find("(-23.8%)"), std::string::npos) << moved;
  EXPECT_NE(moved.find("speed moved while the loops ran"), std::string::npos) << moved;
  EXPECT_NE(drift_note(HostDrift{"ping-pong x1", 100000, 111000}).find("speed moved"),
            std::string::npos);
  EXPECT_EQ(HostDrift{}.change(), 0);  // nothing measured: no change, no division by zero
}

}  // namespace
}  // namespace mmreplay::tools::calibrate
