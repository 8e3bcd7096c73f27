// Coroutine frames come from the simulation's pool and go back to it: a freed frame is handed out
// again for the next frame of its size class, and a finished simulation holds none live.

#include "kernelsim/sim/frame_pool.h"

#include <gtest/gtest.h>

#include "kernelsim/sim/co.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

TEST(FramePoolTest, AFreedFrameIsReusedForItsSizeClassOnly) {
  FramePool pool;
  void* a = pool.allocate(100);
  void* b = pool.allocate(100);
  EXPECT_NE(a, b);
  EXPECT_EQ(pool.live(), 2u);
  FramePool::deallocate(a);
  EXPECT_EQ(pool.live(), 1u);
  void* big = pool.allocate(1000);
  EXPECT_NE(big, a) << "another size class";
  void* c = pool.allocate(90);
  EXPECT_EQ(c, a) << "same class: the freed block";
  void* huge = pool.allocate(1 << 20);  // above the largest class: the heap, still freeable
  EXPECT_EQ(pool.live(), 3u);
  for (void* p : {b, big, c, huge}) FramePool::deallocate(p);
  EXPECT_EQ(pool.live(), 0u);
  void* loose = FramePool::allocate_unpooled(64);
  FramePool::deallocate(loose);
}

Co<int> leaf(Task& t, int v, const FramePool* pool, uint64_t* live_inside) {
  *live_inside = pool->live();  // this frame, made during the run
  co_await sync_point(t);
  co_return v + 1;
}

Co<void> caller(Task& t, const FramePool* pool, int* out, uint64_t* live_inside) {
  *out = co_await leaf(t, 41, pool, live_inside);
}

TEST(FramePoolTest, FramesMadeDuringARunComeFromItsSimulationsPool) {
  auto sim = testing::make_sim(1);
  int out = 0;
  uint64_t live_inside = 0;
  Task& t = sim->create_task(0, nullptr);
  sim->start_task(t, caller(t, &sim->frames(), &out, &live_inside));
  EXPECT_EQ(sim->frames().live(), 0u) << "made before run(): the heap";
  sim->run();
  EXPECT_EQ(out, 42);
  EXPECT_EQ(live_inside, 1u) << "leaf's frame, from the running simulation's pool";
  // Frames a finished task still owns go back when the simulation is destroyed (asserted by
  // ~FramePool in debug builds).
}

// A fast path written as a plain function returning Co (sim/co.h): ready() when it can finish at
// once, its slow coroutine otherwise.
Co<int> maybe_slow(Task& t, bool fast, int v, const FramePool* pool, uint64_t* live_inside) {
  if (fast) return Co<int>::ready(v);
  return leaf(t, v, pool, live_inside);
}

Co<void> fast_or_slow(Task& t, const FramePool* pool, int* fast_out, uint64_t* live_fast,
                      int* slow_out, uint64_t* live_slow) {
  *fast_out = co_await maybe_slow(t, true, 7, pool, live_slow);
  *live_fast = pool->live();
  *slow_out = co_await maybe_slow(t, false, 8, pool, live_slow);
}

TEST(FramePoolTest, AReadyCoHasNoFrameAndGivesItsValue) {
  auto sim = testing::make_sim(1);
  int fast = 0, slow = 0;
  uint64_t live_fast = 99, live_slow = 99;
  Task& t = sim->create_task(0, nullptr);
  sim->start_task(t, fast_or_slow(t, &sim->frames(), &fast, &live_fast, &slow, &live_slow));
  sim->run();
  EXPECT_EQ(fast, 7);
  EXPECT_EQ(live_fast, 0u) << "the ready Co made no frame (the caller's came from the heap)";
  EXPECT_EQ(slow, 9) << "the slow path ran as a coroutine and suspended at its sync point";
  EXPECT_EQ(live_slow, 1u);
}

TEST(FramePoolTest, UseNestsAndRestores) {
  FramePool a;
  FramePool b;
  {
    FramePool::Use ua(a);
    void* fa = FramePool::allocate_current(32);
    {
      FramePool::Use ub(b);
      void* fb = FramePool::allocate_current(32);
      EXPECT_EQ(b.live(), 1u);
      FramePool::deallocate(fb);
    }
    void* fa2 = FramePool::allocate_current(32);
    EXPECT_EQ(a.live(), 2u);
    FramePool::deallocate(fa);
    FramePool::deallocate(fa2);
  }
  void* loose = FramePool::allocate_current(32);
  EXPECT_EQ(a.live() + b.live(), 0u);
  FramePool::deallocate(loose);
}

}  // namespace
}  // namespace mmreplay::kernelsim
