// Policy knobs: parsing, validation by name, effective configuration.

#include "kernelsim/policy/registry.h"

#include <gtest/gtest.h>

#include "kernelsim/sim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

PolicyRegistry builtin() {
  PolicyRegistry r;
  register_builtin_policies(r);
  return r;
}

TEST(PolicyTest, EmptyStringIsAllDefaults) {
  const PolicyRegistry r = builtin();
  PolicyParse p = parse_policy_config("", r);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.config->to_string(),
            "madv_free=lazy,madvise=per-call,tlb=ipi,fault_lock=mmap_sem,lazy_tlb=skip,rwsem_wake=phase-fair,"
            "watermarks=scale-factor,lazyfree_lru=inactive-file,pagevec_size=31,bh_lru_size=16,"
            "memcg=off,charge_batch=64,uncharge_batch=gather,lru_lock=lruvec,zap_lru_drain=on,"
            "bh_invalidate=drain,reclaim=reactive,predict_window=8");
}

TEST(PolicyTest, ValuesAreSetAndDefaultsKept) {
  const PolicyRegistry r = builtin();
  PolicyParse p = parse_policy_config(" tlb=broadcast , madv_free=as-dontneed", r);
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.config->value("tlb"), "broadcast");
  EXPECT_EQ(p.config->value("madv_free"), "as-dontneed");
  EXPECT_EQ(p.config->value("fault_lock"), "mmap_sem");
  PolicySet set = instantiate_policies(*p.config, r);
  EXPECT_TRUE(set.complete());
  EXPECT_EQ(set.tlb->method({}), TlbFlushMethod::kBroadcast);
}

TEST(PolicyTest, UnknownKeyIsRejectedByName) {
  PolicyParse p = parse_policy_config("tlb=ipi,madv_fre=lazy", builtin());
  EXPECT_FALSE(p.ok());
  EXPECT_NE(p.error.find("'madv_fre'"), std::string::npos) << p.error;
  EXPECT_NE(p.error.find("madv_free"), std::string::npos) << "lists the known knobs: " << p.error;
}

TEST(PolicyTest, UnknownValueIsRejectedWithTheChoices) {
  PolicyParse p = parse_policy_config("tlb=shootdown", builtin());
  EXPECT_FALSE(p.ok());
  EXPECT_NE(p.error.find("'shootdown'"), std::string::npos) << p.error;
  EXPECT_NE(p.error.find("ipi|broadcast"), std::string::npos) << p.error;
}

TEST(PolicyTest, MalformedAndDuplicateItemsAreRejected) {
  EXPECT_FALSE(parse_policy_config("tlb", builtin()).ok());
  EXPECT_FALSE(parse_policy_config("tlb=ipi,,", builtin()).ok());
  PolicyParse dup = parse_policy_config("tlb=ipi,tlb=broadcast", builtin());
  EXPECT_FALSE(dup.ok());
  EXPECT_NE(dup.error.find("twice"), std::string::npos) << dup.error;
}

TEST(PolicyTest, SimulationCreateReportsBadConfig) {
  std::string error;
  EXPECT_EQ(Simulation::create(MachineConfig{}, cost_profile_default(), "fault_lock=rcu", &error), nullptr);
  EXPECT_NE(error.find("fault_lock"), std::string::npos);
  MachineConfig big;
  big.nr_cpus = NR_CPUS + 1;
  EXPECT_EQ(Simulation::create(big, cost_profile_default(), "", &error), nullptr);
  auto sim = Simulation::create(MachineConfig{}, cost_profile_default(), "madvise=vector", &error);
  ASSERT_NE(sim, nullptr);
  EXPECT_EQ(sim->policy_config().value("madvise"), "vector");
}

TEST(PolicyTest, CostProfilesAreFoundByName) {
  EXPECT_TRUE(find_cost_profile("default").has_value());
  EXPECT_TRUE(find_cost_profile("xeon-2014").has_value());
  EXPECT_FALSE(find_cost_profile("xeon").has_value());
  EXPECT_NE(cost_profile_default().switch_mm, cost_profile_xeon_2014().switch_mm);
}

}  // namespace
}  // namespace mmreplay::kernelsim
