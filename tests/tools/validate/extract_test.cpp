// validate's extractors name the results keys they read, and a case is checked against the keys
// a run can hold before it runs: a typo in a case is an error naming it, never a figure of 0.

#include <gtest/gtest.h>

#include "replay/result_keys.h"
#include "tools/validate/cases.h"
#include "tools/validate/extract.h"
#include "tools/validate/run_case.h"

namespace mmreplay::validate {
namespace {

ValidationCase case_reading(Extract e) {
  ValidationCase c;
  c.name = "seed-999-typo";
  c.arms = {{"base", "default", {}}};
  c.metrics = {{"the metric", "count", std::move(e), {1.0}, {}, ""}};
  return c;
}

void expect_rejected(const Extract& e, const std::string& what, const std::string& key) {
  const Status s = check_case(case_reading(e));
  ASSERT_FALSE(s) << key;
  EXPECT_NE(s.message().find("seed-999-typo"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("'the metric'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("unknown " + what + " '" + key + "'"), std::string::npos)
      << s.message();
}

TEST(Extract, EveryBuiltInCaseNamesOnlyKnownKeys) {
  for (const ValidationCase& c : all_cases()) {
    const Status s = check_case(c);
    EXPECT_TRUE(s) << s.message();
  }
}

TEST(Extract, UnknownLockOpOrCounterIsAnErrorNamingItAndTheCase) {
  expect_rejected(lock_contentions("counter->lck"), "lock", "counter->lck");
  expect_rejected(lock_wait_seconds("&zone->lock"), "lock", "&zone->lock");   // results drop '&'
  expect_rejected(lock_contentions("mm->mmap_sem"), "lock", "mm->mmap_sem");  // -R, -W or mmap_sem
  expect_rejected(op_mean_us("faults"), "operation", "faults");  // the counter, not the op
  expect_rejected(op_percentile_us("madvise_vec", 99), "operation", "madvise_vec");
  expect_rejected(op_time_seconds({"madvise", "madvisev"}, 1), "operation", "madvisev");
  expect_rejected(counter("swapin"), "counter", "swapin");
  expect_rejected(per_cpu_rate("pgfault"), "counter", "pgfault");  // a field, not a results key
}

TEST(Extract, RunCaseRefusesAnUnknownKeyBeforeRunning) {
  const ValidationCase c = case_reading(counter("tlb_ipi_received"));
  const Scale scale{"ci", {}, 1, 0, 0, 0, ""};
  CaseResult result;
  const Status s = run_case(c, scale, RunCaseOptions(), &result);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("unknown counter 'tlb_ipi_received'"), std::string::npos)
      << s.message();
  EXPECT_TRUE(result.runs.empty());
}

TEST(Extract, KnownLockNeverTakenInARunReadsZero) {
  // lruvec->lru_lock exists only with lru_lock=lruvec and a memcg: absent from most runs.
  const Extract e = lock_contentions("lruvec->lru_lock");
  EXPECT_TRUE(check_case(case_reading(e)));
  replay::RunResult r;
  r.locks["zone->lock"].contentions = 3;
  EXPECT_EQ(e(r), 0.0);
  EXPECT_EQ(lock_contentions("zone->lock")(r), 3.0);
}

TEST(Extract, MachineRateSumsTheCpusPerCpuRateDividesByThem) {
  // Seed 002's TLB interrupts: 6,400 received over 2 s on 32 CPUs is 3,200/s for the machine and
  // 100/s for each CPU.
  replay::RunResult r;
  r.cpus = 32;
  r.makespan_ns = 2'000'000'000;
  r.counters["tlb_ipis_received"] = 6400;
  EXPECT_DOUBLE_EQ(*machine_rate("tlb_ipis_received")(r), 3200.0);
  EXPECT_DOUBLE_EQ(*per_cpu_rate("tlb_ipis_received")(r), 100.0);
  EXPECT_FALSE(machine_rate("tlb_ipis_sent")(r).has_value()) << "a counter the run lacks";
  expect_rejected(machine_rate("tlb_ipi_received"), "counter", "tlb_ipi_received");
}

TEST(Extract, UserAndSystemTimeAreTheProcessesAsTickAccountingSplitsThem) {
  // 10 s busy, 2 s of it kswapd's; 3 s of user work and 1 s of interrupts that landed in it:
  // time(1) would say 4 s user, 4 s sys (interrupts in kernel work and spinning included).
  replay::RunResult r;
  r.counters["busy_ns"] = 10'000'000'000;
  r.counters["kthread_ns"] = 2'000'000'000;
  r.counters["user_ns"] = 3'000'000'000;
  r.counters["irq_user_ns"] = 1'000'000'000;
  EXPECT_TRUE(check_case(case_reading(user_cpu_seconds())));
  EXPECT_TRUE(check_case(case_reading(system_cpu_seconds())));
  EXPECT_DOUBLE_EQ(*user_cpu_seconds()(r), 4.0);
  EXPECT_DOUBLE_EQ(*system_cpu_seconds()(r), 4.0);
  EXPECT_DOUBLE_EQ(*process_cpu_seconds()(r), 8.0) << "kswapd's 2 s are no process's";
  r.counters.erase("kthread_ns");
  EXPECT_FALSE(system_cpu_seconds()(r).has_value()) << "results from before the split";
}

TEST(ResultKeys, NamesARunCanHold) {
  for (const char* op : {"fault", "madvise_vector", "read", "direct_reclaim", "major_fault"}) {
    EXPECT_TRUE(replay::is_op_key(op)) << op;
  }
  for (const char* op : {"page_fault", "think", "thread_start", ""}) {
    EXPECT_FALSE(replay::is_op_key(op)) << op;
  }
  for (const char* lock : {"mmap_sem", "mm->mmap_sem-R", "mm->mmap_sem-W", "vma->vm_lock-R",
                           "zone->lock", "pgdat->lru_lock", "lruvec->lru_lock", "counter->lock"}) {
    EXPECT_TRUE(replay::is_lock_key(lock)) << lock;
  }
  for (const char* lock : {"zone_lock", "mm->mmap_sem", "&zone->lock", ""}) {
    EXPECT_FALSE(replay::is_lock_key(lock)) << lock;
  }
  for (const char* c : {"faults", "swapins", "pgscan_kswapd", "tlb_ipis_sent", "busy_ns",
                        "observations", "skipped_mmap"}) {
    EXPECT_TRUE(replay::is_counter_key(c)) << c;
  }
  for (const char* c : {"pgfault", "skipped_observation", "skipped_think", "skipped_", ""}) {
    EXPECT_FALSE(replay::is_counter_key(c)) << c;
  }
}

}  // namespace
}  // namespace mmreplay::validate
