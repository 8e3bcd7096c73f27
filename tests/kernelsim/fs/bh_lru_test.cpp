// Per-CPU buffer-head LRUs (fs/buffer.c): move-to-front, tail eviction, BH_LRU_SIZE 8 vs 16,
// per-CPU independence, the reference each entry holds, and file read/write/fsync through the
// op loop.

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "kernelsim/constants.h"
#include "kernelsim/costs/cost_profile.h"
#include "kernelsim/fs/buffer.h"
#include "kernelsim/sim/op.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

struct Lru {
  explicit Lru(uint32_t size, uint32_t cpus = 2) : cache(cpus, size, EXT4_DEFAULT_BLOCK_SIZE) {}
  BhCtx ctx(uint32_t cpu) { return BhCtx{cache, cpu, costs, vm, SimTime::zero()}; }
  // One __find_get_block() + brelse() by the caller, as a read of one block does.
  void access(uint32_t cpu, uint64_t block) {
    BhCtx c = ctx(cpu);
    brelse(c, __find_get_block(c, BhKey{1, block}));
  }
  std::vector<uint64_t> blocks(uint32_t cpu) const {
    std::vector<uint64_t> out;
    for (const BufferHead* bh : cache.lru(cpu)) out.push_back(bh->key.block);
    return out;
  }
  BufferCache cache;
  CostProfile costs = cost_profile_default();
  VmCounters vm;
};

TEST(BhLru, HitMovesTheEntryToSlotZero) {
  Lru l(BH_LRU_SIZE);
  for (uint64_t b : {1, 2, 3}) l.access(0, b);
  EXPECT_EQ(l.blocks(0), (std::vector<uint64_t>{3, 2, 1}));
  EXPECT_EQ(l.vm.bh_lru_misses, 3u);
  l.access(0, 1);
  EXPECT_EQ(l.blocks(0), (std::vector<uint64_t>{1, 3, 2}));
  EXPECT_EQ(l.vm.bh_lru_hits, 1u);
  EXPECT_EQ(l.vm.bh_lru_installs, 3u);
}

TEST(BhLru, FullLruEvictsTheTailAndDropsItsReference) {
  Lru l(BH_LRU_SIZE);
  for (uint64_t b = 0; b < BH_LRU_SIZE; ++b) l.access(0, b);
  EXPECT_EQ(l.cache.lru(0).size(), BH_LRU_SIZE);
  EXPECT_EQ(l.vm.bh_lru_evictions, 0u);
  for (uint64_t b = 0; b < BH_LRU_SIZE; ++b) EXPECT_EQ(l.cache.find({1, b})->b_count, 1u) << b;
  l.access(0, BH_LRU_SIZE);  // block 0 is the tail
  EXPECT_EQ(l.cache.lru(0).size(), BH_LRU_SIZE);
  EXPECT_EQ(l.vm.bh_lru_evictions, 1u);
  EXPECT_EQ(l.blocks(0).front(), BH_LRU_SIZE);
  EXPECT_EQ(l.blocks(0).back(), 1u);
  EXPECT_EQ(l.cache.find({1, 0})->b_count, 0u);
  EXPECT_EQ(l.cache.find({1, BH_LRU_SIZE})->b_count, 1u);
}

TEST(BhLru, InstallOfAPresentEntryOnlyMovesIt) {
  Lru l(BH_LRU_SIZE);
  for (uint64_t b : {1, 2}) l.access(0, b);
  BhCtx c = l.ctx(0);
  bh_lru_install(c, *l.cache.find({1, 1}));
  EXPECT_EQ(l.blocks(0), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(l.cache.find({1, 1})->b_count, 1u);
  EXPECT_EQ(l.vm.bh_lru_installs, 2u);
}

// Cycles over `k` blocks `rounds` times after one warm-up round; returns the misses after warm-up.
uint64_t misses_cycling(uint32_t lru_size, uint64_t k, int rounds) {
  Lru l(lru_size);
  for (uint64_t b = 0; b < k; ++b) l.access(0, b);
  const uint64_t warm = l.vm.bh_lru_misses;
  for (int r = 0; r < rounds; ++r) {
    for (uint64_t b = 0; b < k; ++b) l.access(0, b);
  }
  return l.vm.bh_lru_misses - warm;
}

TEST(BhLru, NineBufferHeadsThrashEightEntriesAndFitSixteen) {
  // 86cf78d73de8: ext4 file creation in a large directory with quota touches about 9 bhs.
  constexpr uint64_t kWorkingSet = 9;
  constexpr int kRounds = 10;
  EXPECT_EQ(misses_cycling(BH_LRU_SIZE_PRE_3_18, kWorkingSet, kRounds), kWorkingSet * kRounds);
  EXPECT_EQ(misses_cycling(BH_LRU_SIZE, kWorkingSet, kRounds), 0u);
  // The general rule: k < size never misses after warm-up, size + 1 always misses.
  EXPECT_EQ(misses_cycling(BH_LRU_SIZE, BH_LRU_SIZE - 1, kRounds), 0u);
  EXPECT_EQ(misses_cycling(BH_LRU_SIZE, BH_LRU_SIZE + 1, kRounds), (BH_LRU_SIZE + 1) * kRounds);
}

// A loop over k blocks: after one warm-up round, k < BH_LRU_SIZE never misses and
// k = BH_LRU_SIZE + 1 always misses (LRU order evicts exactly the block needed next); never more
// than BH_LRU_SIZE entries.
TEST(BhLru, CyclingBelowTheSizeNeverMissesAndOneAboveAlwaysMisses) {
  for (uint32_t size : {BH_LRU_SIZE_PRE_3_18, BH_LRU_SIZE}) {
    for (uint64_t k : {uint64_t{1}, uint64_t{size} - 1, uint64_t{size} + 1}) {
      Lru l(size);
      for (uint64_t b = 0; b < k; ++b) l.access(0, b);  // warm-up round
      const uint64_t misses = l.vm.bh_lru_misses;
      for (int round = 0; round < 4; ++round) {
        for (uint64_t b = 0; b < k; ++b) {
          l.access(0, b);
          ASSERT_LE(l.cache.lru(0).size(), size);
        }
      }
      if (k < size) {
        EXPECT_EQ(l.vm.bh_lru_misses, misses) << "size " << size << " k " << k;
      } else {
        EXPECT_EQ(l.vm.bh_lru_misses, misses + 4 * k) << "size " << size << " k " << k;
        EXPECT_EQ(l.vm.bh_lru_hits, 0u);
      }
    }
  }
}

TEST(BhLru, CpusHaveIndependentLrus) {
  Lru l(BH_LRU_SIZE);
  l.access(0, 7);
  l.access(1, 7);  // another CPU misses and installs its own entry
  EXPECT_EQ(l.vm.bh_lru_misses, 2u);
  EXPECT_EQ(l.cache.find({1, 7})->b_count, 2u);  // one reference per LRU holding it
  l.access(1, 8);
  EXPECT_EQ(l.blocks(0), (std::vector<uint64_t>{7}));
  EXPECT_EQ(l.blocks(1), (std::vector<uint64_t>{8, 7}));
  l.access(0, 7);
  EXPECT_EQ(l.vm.bh_lru_hits, 1u);
}

TEST(BhLru, HitCostsLessThanMiss) {
  Lru l(BH_LRU_SIZE);
  BhCtx miss = l.ctx(0);
  brelse(miss, __find_get_block(miss, BhKey{1, 1}));
  BhCtx hit = l.ctx(0);
  brelse(hit, __find_get_block(hit, BhKey{1, 1}));
  EXPECT_LT(hit.spent, miss.spent);
  EXPECT_GE(miss.spent, l.costs.find_get_page + l.costs.find_get_block_slow);
}

TEST(BhLru, PageCarriesPageSizeOverBlockSizeBufferHeads) {
  BufferCache c(1, BH_LRU_SIZE, 1024);
  const std::vector<BhKey> keys = c.page_buffers(3, 2);
  ASSERT_EQ(keys.size(), PAGE_SIZE / 1024);
  EXPECT_EQ(keys.front(), (BhKey{3, 8}));
  EXPECT_EQ(keys.back(), (BhKey{3, 11}));
}

std::unique_ptr<Simulation> file_sim(const char* policy, std::vector<Op> ops, uint64_t block_size) {
  std::string err;
  auto sim = Simulation::create(MachineConfig{.nr_cpus = 2, .fs_block_size = block_size},
                                cost_profile_default(), policy, &err);
  EXPECT_NE(sim, nullptr) << err;
  sim->spawn_thread(1, 0, std::make_unique<VectorOpSource>(ops));
  sim->spawn_thread(1, 1, std::make_unique<VectorOpSource>(std::move(ops)));
  sim->run();
  return sim;
}

std::vector<Op> nine_block_loop() {
  std::vector<Op> ops;
  for (int r = 0; r < 5; ++r) {
    for (uint64_t b = 0; b < 9; ++b)
      ops.push_back(Op::file_read(1, b * EXT4_DEFAULT_BLOCK_SIZE, 100));
  }
  ops.push_back(Op::file_write(1, 0, 3 * EXT4_DEFAULT_BLOCK_SIZE));
  ops.push_back(Op::fsync(1));
  return ops;
}

TEST(BhLruSim, FileOpsRecordLatencyAndTheKnobDecidesHits) {
  auto s16 = file_sim("bh_lru_size=16", nine_block_loop(), EXT4_DEFAULT_BLOCK_SIZE);
  auto s8 = file_sim("bh_lru_size=8", nine_block_loop(), EXT4_DEFAULT_BLOCK_SIZE);
  EXPECT_EQ(s16->stats().count(OpKind::kFileRead), 90u);
  EXPECT_EQ(s16->stats().count(OpKind::kFileWrite), 2u);
  EXPECT_EQ(s16->stats().count(OpKind::kFsync), 2u);
  EXPECT_GE(s16->stats().latency(OpKind::kFsync).percentile(100),
            static_cast<uint64_t>(s16->costs().fsync_block.count_ns()));
  // 16 entries: each CPU misses the 9 blocks once, then hits everything (the write too);
  // 8 entries: every access misses, the write's three blocks included.
  EXPECT_EQ(s16->vm().bh_lru_misses, 18u);
  EXPECT_EQ(s16->vm().bh_lru_hits, 2u * (9 * 4 + 3));
  EXPECT_EQ(s8->vm().bh_lru_misses, 2u * (9 * 5 + 3));
  EXPECT_EQ(s8->vm().bh_lru_hits, 0u);
  EXPECT_GT(s8->stats().latency(OpKind::kFileRead).percentile(50),
            s16->stats().latency(OpKind::kFileRead).percentile(50));
  EXPECT_EQ(s16->vm().ops_failed, 0u);
}

TEST(BhLruSim, SmallBlocksMeanSeveralBufferHeadsPerPage) {
  auto sim = file_sim("", {Op::file_read(1, 0, PAGE_SIZE)}, 1024);
  // Four buffer heads per page; each CPU misses them in its own LRU (the bhs themselves are
  // shared).
  EXPECT_EQ(sim->vm().bh_lru_misses, 2 * PAGE_SIZE / 1024);
  EXPECT_EQ(sim->vm().bh_lru_installs, 2 * PAGE_SIZE / 1024);
}

TEST(BhLruSim, SameInputsGiveIdenticalStats) {
  auto a = file_sim("bh_lru_size=8", nine_block_loop(), EXT4_DEFAULT_BLOCK_SIZE);
  auto b = file_sim("bh_lru_size=8", nine_block_loop(), EXT4_DEFAULT_BLOCK_SIZE);
  EXPECT_EQ(a->stats(), b->stats());
  EXPECT_EQ(a->now(), b->now());
}

}  // namespace
}  // namespace mmreplay::kernelsim
