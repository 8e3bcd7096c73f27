// The knob table: parsing, validation by name, the effective configuration results record.

#include "kernelsim/policy/knob_table.h"

#include <gtest/gtest.h>

#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// What every run's `policy_knobs` holds for the defaults; a change here changes every result.
constexpr const char* kDefaults =
    "madv_free=free-swapped,madvise=per-call,madvise_lock=mmap_sem,munmap_lock=write,tlb=ipi,"
    "fault_lock=mmap_sem,lazy_tlb=skip,csd_ipi=if-empty,pcid=on,"
    "rwsem_wake=phase-fair,rwsem_writer_wake=handoff,rwsem_reader_steal=on,rwsem_reader_spin=off,"
    "rwsem_spin=handoff,"
    "watermarks=scale-factor,"
    "lazyfree_lru=inactive-"
    "file,"
    "lazyfree_pgdirty=cleared,swapin_pte=writable,sync_swapin=skip-swapcache,swap_readahead=vma,"
    "anon_lru=inactive-first,written_back_retry=on,reclaim_tlb_flush=batched,mm_cpumask=eager,"
    "pcp_high=auto,pagevec_size=31,"
    "bh_lru_size=16,memcg=off,charge_batch=64,uncharge_batch=gather,lru_lock=lruvec,"
    "release_pages=cluster,zap_lru_drain=on,bh_invalidate=drain,reclaim=reactive,predict_window=8,"
    "wake_affine=sync,idle_balance=newidle,sched=eevdf,eevdf_wakeup=eligible,"
    "spinlock=queued,read_ahead_kb=128,fault_around_bytes=65536";

KernelConfig applied(std::string_view text) {
  KernelConfig c;
  const Status s = apply_knobs(text, &c);
  EXPECT_TRUE(s) << s.message();
  return c;
}

std::string rejected(std::string_view text) {
  KernelConfig c;
  const Status s = apply_knobs(text, &c);
  EXPECT_FALSE(s) << text;
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << text;
  EXPECT_EQ(c, KernelConfig{}) << "a rejected text leaves earlier items applied: " << text;
  return s.message();
}

TEST(KnobTableTest, EmptyTextIsAllDefaults) {
  EXPECT_EQ(format_knobs(applied("")), kDefaults);
  EXPECT_EQ(format_knobs(KernelConfig{}), kDefaults);
}

TEST(KnobTableTest, ValuesAreSetAndDefaultsKept) {
  const KernelConfig c = applied(" tlb=broadcast , madv_free=as-dontneed+pagevec_size=14");
  EXPECT_EQ(c.tlb, TlbFlushMethod::kBroadcast);
  EXPECT_EQ(c.madv_free, MadvFreeMode::kAsDontneed);
  EXPECT_EQ(c.pagevec_size, 14u);
  EXPECT_EQ(c.fault_lock, FaultLockMode::kMmapSem);
  EXPECT_TRUE(c.zap_lru_drain);
  EXPECT_FALSE(applied("zap_lru_drain=off").zap_lru_drain);
}

TEST(KnobTableTest, UnknownKeyIsRejectedByName) {
  const std::string error = rejected("madv_fre=lazy");
  EXPECT_NE(error.find("'madv_fre'"), std::string::npos) << error;
  EXPECT_NE(error.find("madv_free"), std::string::npos) << "lists the known knobs: " << error;
}

TEST(KnobTableTest, UnknownValueIsRejectedWithTheChoices) {
  std::string error = rejected("tlb=shootdown");
  EXPECT_NE(error.find("'shootdown'"), std::string::npos) << error;
  EXPECT_NE(error.find("ipi|broadcast"), std::string::npos) << error;
  error = rejected("pagevec_size=16");
  EXPECT_NE(error.find("14|15|31"), std::string::npos) << error;
}

TEST(KnobTableTest, MalformedAndDuplicateItemsAreRejected) {
  rejected("tlb");
  rejected("tlb=broadcast,tlb");  // the whole text or nothing
  rejected("tlb=ipi,,");
  rejected("=ipi");
  const std::string dup = rejected("tlb=ipi,tlb=broadcast");
  EXPECT_NE(dup.find("twice"), std::string::npos) << dup;
}

// Every value of every knob survives format -> parse, and only changes its own field.
TEST(KnobTableTest, EveryValueRoundTrips) {
  for (const KnobInfo& k : kernel_knobs()) {
    ASSERT_NE(k.find_value(k.default_value()), nullptr)
        << k.key << ": default not among its values";
    ASSERT_FALSE(k.doc.empty()) << k.key;
    for (size_t i = 0; i < k.values.size(); ++i) {
      KernelConfig c;
      k.set(c, i);
      EXPECT_EQ(k.index_of(c), i) << k.key << "=" << k.values[i].name;
      EXPECT_EQ(applied(format_knobs(c)), c) << k.key << "=" << k.values[i].name;
      EXPECT_EQ(applied(k.key + "=" + k.values[i].name), c);
      EXPECT_FALSE(k.values[i].doc.empty()) << k.key << "=" << k.values[i].name;
    }
  }
}

TEST(KnobTableTest, KeysAreUnique) {
  for (const KnobInfo& k : kernel_knobs()) EXPECT_EQ(find_knob(k.key), &k) << k.key;
}

TEST(KnobTableTest, SimulationCreateReportsBadConfig) {
  std::string error;
  EXPECT_EQ(Simulation::create(MachineConfig{}, cost_profile_default(), "fault_lock=rcu", &error),
            nullptr);
  EXPECT_NE(error.find("fault_lock"), std::string::npos);
  MachineConfig big;
  big.nr_cpus = NR_CPUS + 1;
  EXPECT_EQ(Simulation::create(big, cost_profile_default(), KernelConfig{}, &error), nullptr);
  EXPECT_NE(error.find("nr_cpus"), std::string::npos);
  auto sim = Simulation::create(MachineConfig{}, cost_profile_default(), "madvise=vector", &error);
  ASSERT_NE(sim, nullptr) << error;
  EXPECT_EQ(sim->config().madvise, MadviseVectorMode::kVector);
}

TEST(KnobTableTest, CostProfilesAreFoundByName) {
  EXPECT_TRUE(find_cost_profile("default").has_value());
  EXPECT_TRUE(find_cost_profile("xeon-2014").has_value());
  EXPECT_FALSE(find_cost_profile("xeon").has_value());
  EXPECT_NE(cost_profile_default().switch_mm, cost_profile_xeon_2014().switch_mm);
}

}  // namespace
}  // namespace mmreplay::kernelsim
