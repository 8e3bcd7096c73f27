// cost_fields(): the one list of CostProfile fields that the JSON loader and calibrate walk.

#include <gtest/gtest.h>

#include <cstddef>
#include <set>
#include <string>

#include "kernelsim/costs/cost_profile.h"

namespace mmreplay::kernelsim {
namespace {

TEST(CostFields, TableCoversEveryFieldOfTheStruct) {
  // A field added to CostProfile but not to kCostFields would be silently dropped by the JSON
  // writer and rejected as unknown by the loader.
  EXPECT_EQ(sizeof(CostProfile),
            cost_fields().size() * sizeof(SimTime) + cost_size_fields().size() * sizeof(uint64_t));
  EXPECT_EQ(offsetof(CostProfile, pcp_hot_window), cost_fields().size() * sizeof(SimTime));
}

TEST(CostFields, NamesAndMembersAreDistinct) {
  std::set<std::string_view> names;
  CostProfile p{};
  int64_t next = 1;
  for (const CostField& f : cost_fields()) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    p.*f.member = SimTime::ns(next++);
  }
  // Every member written once: each reads back its own value, so no two entries alias.
  next = 1;
  for (const CostField& f : cost_fields()) EXPECT_EQ((p.*f.member).count_ns(), next++) << f.name;
}

TEST(CostFields, FindByName) {
  const CostField* f = find_cost_field("tlb_flush_full");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(cost_profile_default().*f->member, cost_profile_default().tlb_flush_full);
  EXPECT_EQ(find_cost_field("tlb_flush_fulll"), nullptr);
}

}  // namespace
}  // namespace mmreplay::kernelsim
