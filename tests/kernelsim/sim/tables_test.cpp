// The model's side of the op table and the counter lists (common/op_table.h,
// common/counters.h): OpKind and the counter structs are generated from them and read back by
// them. And the lock class list (locking/lock_classes.h) against the classes runs create.

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "common/counters.h"
#include "common/op_table.h"
#include "kernelsim/locking/lock_classes.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::kBase;
using testing::kPage;
using testing::make_sim;
using testing::thread;

TEST(OpTableTest, EveryOpKindHasItsRowAndTheTableName) {
  EXPECT_EQ(kOpKindCount, 27);
  std::set<std::string> names;
  for (int k = 0; k < kOpKindCount; ++k) {
    const common::OpInfo& row = op_info(static_cast<OpKind>(k));
    EXPECT_TRUE(row.modelled) << row.name;
    EXPECT_EQ(op_kind_name(static_cast<OpKind>(k)), row.name);
    names.insert(std::string(row.name));
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(kOpKindCount));
  EXPECT_STREQ(op_kind_name(OpKind::kMadviseVector), "madvise_vector");
  EXPECT_STREQ(op_kind_name(OpKind::kFileRead), "file_read");
  EXPECT_EQ(op_info(OpKind::kPageFault).results_key, "fault");
  EXPECT_EQ(op_info(OpKind::kMadviseVector).syscall, "process_madvise");
  EXPECT_EQ(op_info(OpKind::kThink).disk, -1);
  EXPECT_EQ(op_info(OpKind::kBlock).disk, 19);  // a trace kind after observation, before think
  // Observations are recorded, never run.
  EXPECT_FALSE(common::op_info(common::OpRow::kObservation).modelled);
}

TEST(CounterListTest, ForEachCounterVisitsEveryFieldOnceWithItsInfo) {
  VmCounters vm;
  for (size_t i = 0; i < common::kVmCounterCount; ++i) vm.*kVmCounterFields[i] = 1000 + i;
  size_t i = 0;
  for_each_counter(vm, [&](const common::CounterInfo& c, uint64_t v) {
    EXPECT_EQ(&c, &common::kVmCounterInfo[i]);
    EXPECT_EQ(v, 1000 + i) << c.field;
    ++i;
  });
  EXPECT_EQ(i, common::kVmCounterCount);
  // Named fields and the list agree: the model's ++sim.vm().pgfault is the results' "faults".
  VmCounters one;
  one.pgfault = 7;
  one.pgscan_kswapd = 3;
  std::map<std::string, uint64_t> by_key;
  for_each_counter(
      one, [&](const common::CounterInfo& c, uint64_t v) { by_key[std::string(c.key)] = v; });
  EXPECT_EQ(by_key.at("faults"), 7u);
  EXPECT_EQ(by_key.at("pgscan_kswapd"), 3u);
  EXPECT_EQ(common::find_counter("faults")->field, "pgfault");
  EXPECT_EQ(common::find_counter("tlb_ipis_sent")->field, "ipis_sent");
  EXPECT_EQ(common::find_counter("pgfault"), nullptr);  // a field, not a results key
}

TEST(CounterListTest, CpuTotalsAddEveryCpuCounter) {
  auto sim = make_sim(4);
  for (uint32_t i = 0; i < 4; ++i) {
    const uint64_t base = kBase + static_cast<uint64_t>(i) * 256 * kPage;
    thread(*sim, 1, i,
           {Op::mmap_anon(base, 128 * kPage, PROT_READ | PROT_WRITE),
            Op::touch(base, 128 * kPage, true), Op::madvise(base, 64 * kPage, MADV_DONTNEED),
            Op::munmap(base, 128 * kPage)});
  }
  sim->run();
  CpuCounters sum;
  for (uint32_t c = 0; c < sim->nr_cpus(); ++c) sum += sim->cpu(c).counters;
  EXPECT_GT(sum.ipis_sent, 0u);
  EXPECT_GT(sum.busy_ns, 0u);
  // Simulation::cpu_totals() sums by hand; it must cover every field of the list.
  EXPECT_EQ(sim->cpu_totals(), sum);
}

TEST(LockClassTest, EveryClassARunCreatesIsListedAndEveryListedClassIsCreated) {
  std::set<std::string> seen;
  for (const char* policy :
       {"", "fault_lock=per-vma", "memcg=res_counter", "memcg=page_counter,lru_lock=lruvec"}) {
    auto sim = make_sim(2, policy);
    for (uint32_t i = 0; i < 2; ++i) {
      const uint64_t base = kBase + static_cast<uint64_t>(i) * 256 * kPage;
      thread(*sim, 1 + i, i,
             {Op::mmap_anon(base, 128 * kPage, PROT_READ | PROT_WRITE),
              Op::touch(base, 128 * kPage, true), Op::munmap(base, 128 * kPage)});
    }
    sim->run();
    for (const auto& [name, stats] : sim->lockstat().classes()) {
      EXPECT_TRUE(is_lock_class(name)) << name << " (policy " << policy << ")";
      seen.insert(name);
    }
  }
  for (std::string_view c : kLockClasses) EXPECT_EQ(seen.count(std::string(c)), 1u) << c;
  for (std::string_view c : kRwSemClasses) {
    EXPECT_EQ(seen.count(std::string(c).append(kRwSemReadSuffix)), 1u) << c;
    EXPECT_EQ(seen.count(std::string(c).append(kRwSemWriteSuffix)), 1u) << c;
  }
  EXPECT_FALSE(is_lock_class("&mm->mmap_sem"));  // an rwsem reports as -R and -W
  EXPECT_FALSE(is_lock_class("zone->lock"));     // lock_stat names keep the '&'
}

}  // namespace
}  // namespace mmreplay::kernelsim
