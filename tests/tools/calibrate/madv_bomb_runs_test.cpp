// The model's side of `validate --real --pressure`: gen's madv-bomb replayed under a memcg limit,
// its counters read back as the native run's figures are.

#include "tools/calibrate/madv_bomb_runs.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tools/calibrate/real_validation.h"

namespace mmreplay::tools::calibrate {
namespace {

// Two processes of 4 MiB each in a 4 MiB memcg: each loop of one reclaims the other's pages.
MadvBombShape small_bomb() {
  MadvBombShape shape;
  shape.processes = 2;
  shape.region_bytes = uint64_t{4} << 20;
  shape.loops = 3;
  shape.memcg_limit_bytes = uint64_t{4} << 20;
  return shape;
}

BombFigures model_bomb(const MadvBombShape& shape, bool free) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            (std::string("madv_bomb_runs_test-") + advice_name(free) + ".mmtrace"))
                               .string();
  EXPECT_TRUE(write_bomb_trace(shape, free, path).is_ok());
  replay::RunSpec spec;
  EXPECT_TRUE(resolve_real_run("default", "default", &spec).is_ok());
  EXPECT_TRUE(set_bomb_machine(shape, uint64_t{64} << 20, &spec)) << "default has no memcg";
  BombFigures figures;
  EXPECT_TRUE(run_model_bomb(spec, path, &figures).is_ok());
  std::filesystem::remove(path);
  return figures;
}

TEST(MadvBombRuns, PageWritesAreEveryPageOfEveryRegionInEveryLoop) {
  EXPECT_EQ(bomb_page_writes(small_bomb()), 2u * 1024u * 3u);
  EXPECT_EQ(bomb_page_writes(MadvBombShape()), 655'360u) << "4 x 128 MiB x 5: the CI bomb";
}

// A write faults or finds its page still mapped: after DONTNEED none is; after FREE a lazily freed
// page reclaim has not taken yet (reused). A page swap readahead read faults too, as the kernel's
// swap-cache hit does: before the model took that fault, 219 of the full-size bomb's 655,360
// writes were neither.
TEST(MadvBombRuns, EveryModelWriteIsAFaultOrAReuse) {
  const MadvBombShape shape = small_bomb();
  const BombFigures dontneed = model_bomb(shape, false);
  EXPECT_EQ(dontneed.faults, bomb_page_writes(shape));
  EXPECT_EQ(dontneed.reused, 0u);
  EXPECT_GT(dontneed.swapouts, 0u) << "8 MiB written in a 4 MiB memcg";
  const BombFigures free = model_bomb(shape, true);
  EXPECT_EQ(free.faults + free.reused, bomb_page_writes(shape));
  EXPECT_GT(free.lazyfreed, 0u);
}

// The model's side of the TLB-IPI row: the shootdown interrupts its CPUs took, always known
// (natively only where /proc/interrupts has a TLB line).
TEST(MadvBombRuns, TheModelCountsItsTlbShootdownInterrupts) {
  const BombFigures dontneed = model_bomb(small_bomb(), false);
  EXPECT_TRUE(dontneed.tlb_ipis_known);
  EXPECT_GT(dontneed.tlb_ipis, 0u) << "reclaim unmaps pages of processes running elsewhere";
  EXPECT_LE(dontneed.tlb_ipis, dontneed.swapouts + dontneed.faults);
}

}  // namespace
}  // namespace mmreplay::tools::calibrate
