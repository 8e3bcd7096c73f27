// rwsem: the fairness and spinning properties of kernel/locking/rwsem.c that mmap_sem users feel.

#include "kernelsim/locking/rwsem.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "kernelsim/kernel/thread.h"
#include "tests/kernelsim/test_util.h"

namespace mmreplay::kernelsim {
namespace {

using testing::make_sim;

struct Rec {
  SimTime arrived;
  SimTime granted;
  SimTime released;
};

// Arrives at `arrive` (absolute), takes the lock, holds it for `hold` of CPU work, releases.
Co<void> locker(Task& t, RwSem& s, bool write, SimTime arrive, SimTime hold, Rec* rec) {
  t.work(arrive - t.clock());
  rec->arrived = t.clock();
  if (write) {
    co_await s.down_write(t);
  } else {
    co_await s.down_read(t);
  }
  rec->granted = t.clock();
  t.work(hold);
  if (write) {
    co_await s.up_write(t);
  } else {
    co_await s.up_read(t);
  }
  rec->released = t.clock();
}

// Like locker(), but sleeps (off CPU) while holding the lock for write.
Co<void> sleeping_writer(Task& t, RwSem& s, SimTime arrive, SimTime hold, Rec* rec) {
  t.work(arrive - t.clock());
  rec->arrived = t.clock();
  co_await s.down_write(t);
  rec->granted = t.clock();
  co_await do_sleep(t, hold);
  co_await s.up_write(t);
  rec->released = t.clock();
}

// Records when it first ran.
Co<void> bystander(Task& t, SimTime* first_run) {
  *first_run = t.clock();
  t.work(SimTime::us(1));
  co_return;
}

TEST(RwsemTest, ReaderArrivingAfterWaitingWriterIsGrantedAfterIt) {
  auto sim = make_sim(3);
  RwSem sem(*sim, "test_sem");
  Rec r0, w, r1;
  Task& t0 = sim->create_task(0, nullptr);
  Task& t1 = sim->create_task(1, nullptr);
  Task& t2 = sim->create_task(2, nullptr);
  sim->start_task(t0, locker(t0, sem, false, SimTime::us(10), SimTime::us(100), &r0));
  sim->start_task(t1, locker(t1, sem, true, SimTime::us(20), SimTime::us(50), &w));
  // Arrives after the writer stopped spinning on the reader-owned lock (rspin: 10.5 us).
  sim->start_task(t2, locker(t2, sem, false, SimTime::us(40), SimTime::us(10), &r1));
  sim->run();
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  EXPECT_EQ(w.granted >= r0.released, true);
  EXPECT_GT(r1.granted, w.granted);
  EXPECT_GE(r1.granted, w.released) << "reader shared the lock with the writer";
  EXPECT_EQ(sem.counters().spins, 1u);         // the writer first spun on the reader owner
  EXPECT_EQ(sem.counters().spin_aborted, 1u);  // ... until the rspin threshold
}

// Takes the lock for write at 0, works `hold` under it, downgrades, works `hold` more, releases.
Co<void> downgrading_writer(Task& t, RwSem& s, SimTime hold, Rec* rec) {
  co_await s.down_write(t);
  rec->granted = t.clock();
  t.work(hold);
  co_await s.downgrade_write(t);
  rec->released = t.clock();  // the write phase ends here
  t.work(hold);
  co_await s.up_read(t);
}

TEST(RwsemTest, DowngradeWakesTheWaitingReaderButNotAWriterQueuedFirst) {
  // A reader waiting on the writer is granted at the downgrade, while the downgrader still reads.
  auto sim = make_sim(2);
  RwSem sem(*sim, "test_sem");
  Rec w, r;
  Task& t0 = sim->create_task(0, nullptr);
  Task& t1 = sim->create_task(1, nullptr);
  sim->start_task(t0, downgrading_writer(t0, sem, SimTime::us(100), &w));
  sim->start_task(t1, locker(t1, sem, false, SimTime::us(10), SimTime::us(10), &r));
  sim->run();
  EXPECT_GE(r.granted, w.released);
  EXPECT_LT(r.released, w.released + SimTime::us(100)) << "reader ran beside the downgraded holder";
  const LockClassStats* reads = sim->lockstat().find("test_sem-R");
  ASSERT_NE(reads, nullptr);
  EXPECT_EQ(reads->acquisitions, 1u) << "a downgrade is no new acquisition";

  // A writer at the head of the wait list keeps waiting for the downgraded reader to leave.
  auto sim2 = make_sim(2);
  RwSem sem2(*sim2, "test_sem");
  Rec w0, w1;
  Task& u0 = sim2->create_task(0, nullptr);
  Task& u1 = sim2->create_task(1, nullptr);
  sim2->start_task(u0, downgrading_writer(u0, sem2, SimTime::us(100), &w0));
  sim2->start_task(u1, locker(u1, sem2, true, SimTime::us(10), SimTime::us(10), &w1));
  sim2->run();
  EXPECT_GE(w1.granted, w0.released + SimTime::us(100));
  EXPECT_EQ(sim2->nr_live_tasks(), 0u);
}

Co<void> reader_loop(Task& t, RwSem& s, SimTime offset, int n) {
  t.work(offset);
  for (int i = 0; i < n; ++i) {
    co_await s.down_read(t);
    t.work(SimTime::us(20));
    co_await s.up_read(t);
    t.work(SimTime::us(2));
  }
}

TEST(RwsemTest, WriterIsNotStarvedByAContinuousStreamOfReaders) {
  constexpr int kReaders = 8;
  constexpr int kIterations = 50;  // each reader holds for ~1.1 ms in total
  auto sim = make_sim(kReaders + 1);
  RwSem sem(*sim, "test_sem");
  for (uint32_t i = 0; i < kReaders; ++i) {
    Task& t = sim->create_task(i, nullptr);
    sim->start_task(t, reader_loop(t, sem, SimTime::us(3 * i), kIterations));
  }
  Rec w;
  Task& tw = sim->create_task(kReaders, nullptr);
  sim->start_task(tw, locker(tw, sem, true, SimTime::us(100), SimTime::us(10), &w));
  sim->run();
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  // Readers that arrive after the writer queued wait behind it, so it waits at most for the
  // read holds already in progress (20 us) plus wake-up and rspin latencies.
  EXPECT_LT(w.granted - w.arrived, SimTime::us(60));
  EXPECT_GT(sem.counters().reader_batches, 0u);
}

TEST(RwsemTest, WaitingReadersAreWokenTogether) {
  auto sim = make_sim(6);
  RwSem sem(*sim, "test_sem");
  Rec w;
  Rec r[5];
  Task& tw = sim->create_task(0, nullptr);
  sim->start_task(tw, locker(tw, sem, true, SimTime::us(10), SimTime::us(100), &w));
  for (uint32_t i = 0; i < 5; ++i) {
    Task& t = sim->create_task(i + 1, nullptr);
    sim->start_task(t, locker(t, sem, false, SimTime::us(20 + i), SimTime::us(5), &r[i]));
  }
  sim->run();
  EXPECT_EQ(sem.counters().reader_batches, 1u);
  EXPECT_EQ(sem.counters().readers_woken, 5u);
  // One wake_up_q(): each reader runs a wake-up latency after the IPI the releaser sent it, the
  // IPIs one after another; up_write() returns after the last.
  const int64_t ipi = sim->costs().ipi_send.count_ns();
  const SimTime woke = w.released - SimTime::ns(5 * ipi);
  for (uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(r[i].granted, woke + SimTime::ns(ipi * (i + 1)) + sim->costs().wakeup_latency);
  }
  EXPECT_EQ(sim->cpu(0).counters.wakeup_ipis, 5u);
  const LockClassStats* cls = sim->lockstat().find("test_sem-R");
  ASSERT_NE(cls, nullptr);
  EXPECT_EQ(cls->acquisitions, 5u);
  EXPECT_EQ(cls->contentions, 5u);
}

// R1, W2, R3 queue (in that order) behind a writer that sleeps while holding the lock.
void queue_r_w_r(const std::string& policy, Rec* r1, Rec* w2, Rec* r3) {
  auto sim = make_sim(4, policy);
  RwSem sem(*sim, "test_sem");
  Rec w0;
  Task& o = sim->create_task(0, nullptr);
  sim->start_task(o, sleeping_writer(o, sem, SimTime::us(10), SimTime::us(100), &w0));
  Task& a = sim->create_task(1, nullptr);
  Task& b = sim->create_task(2, nullptr);
  Task& c = sim->create_task(3, nullptr);
  sim->start_task(a, locker(a, sem, false, SimTime::us(20), SimTime::us(30), r1));
  sim->start_task(b, locker(b, sem, true, SimTime::us(21), SimTime::us(30), w2));
  sim->start_task(c, locker(c, sem, false, SimTime::us(22), SimTime::us(30), r3));
  sim->run();
  EXPECT_EQ(sem.counters().spins, 0u) << "nobody spins on a sleeping owner";
}

TEST(RwsemTest, PhaseFairWakeGrantsReadersPastAWaitingWriter) {
  Rec r1, w2, r3;
  queue_r_w_r("rwsem_wake=phase-fair", &r1, &w2, &r3);
  EXPECT_EQ(r3.granted, r1.granted + make_sim(1)->costs().ipi_send) << "woken by one release";
  EXPECT_GE(w2.granted, r3.released);
}

TEST(RwsemTest, ContiguousWakeStopsAtTheFirstWaitingWriter) {
  Rec r1, w2, r3;
  queue_r_w_r("rwsem_wake=contiguous", &r1, &w2, &r3);
  EXPECT_GE(w2.granted, r1.released);
  EXPECT_GE(r3.granted, w2.released);
}

TEST(RwsemTest, WriterSpinsWhileTheOwnerRunsAndKeepsItsCpu) {
  auto sim = make_sim(2);
  RwSem sem(*sim, "test_sem");
  Rec w0, w1;
  SimTime bystander_ran;
  Task& t0 = sim->create_task(0, nullptr);
  Task& t1 = sim->create_task(1, nullptr);
  Task& t2 = sim->create_task(1, nullptr);  // shares CPU 1 with the spinner
  sim->start_task(t0, locker(t0, sem, true, SimTime::us(10), SimTime::us(100), &w0));
  sim->start_task(t1, locker(t1, sem, true, SimTime::us(20), SimTime::us(10), &w1));
  sim->start_task(t2, bystander(t2, &bystander_ran));
  sim->run();
  EXPECT_EQ(sem.counters().spins, 1u);
  EXPECT_EQ(sem.counters().spin_acquired, 1u);
  EXPECT_EQ(sem.counters().sleeps, 0u);
  // Handed over directly from the running owner: one cache-line transfer, no wake-up.
  EXPECT_EQ(w1.granted, w0.released + sim->costs().cacheline_transfer);
  EXPECT_GE(bystander_ran, w1.released) << "a spinning writer must not give up its CPU";
}

TEST(RwsemTest, WriterSleepsWhenTheOwnerIsOffCpuAndFreesItsCpu) {
  auto sim = make_sim(2);
  RwSem sem(*sim, "test_sem");
  Rec w0, w1;
  SimTime bystander_ran;
  Task& t0 = sim->create_task(0, nullptr);
  Task& t1 = sim->create_task(1, nullptr);
  Task& t2 = sim->create_task(1, nullptr);
  sim->start_task(t0, sleeping_writer(t0, sem, SimTime::us(10), SimTime::us(100), &w0));
  sim->start_task(t1, locker(t1, sem, true, SimTime::us(20), SimTime::us(10), &w1));
  sim->start_task(t2, bystander(t2, &bystander_ran));
  sim->run();
  EXPECT_EQ(sem.counters().spins, 0u);
  EXPECT_EQ(sem.counters().sleeps, 1u);
  EXPECT_LT(bystander_ran, SimTime::us(30)) << "the sleeping writer's CPU runs the next task";
  EXPECT_GE(w1.granted, w0.released + sim->costs().wakeup_latency);
}

// The owner (CPU 0) takes the lock at 10 us, runs 30 us with it, then sleeps 100 us still holding
// it; the other task (CPU 1) comes at 20 us for write or read, spins while the owner runs, and
// holds it 10 us.
struct SpunOnASleeper {
  Rec owner, other;
  RwSem::Counters counters;
};

SpunOnASleeper spin_on_an_owner_that_sleeps(const std::string& policy, bool write) {
  auto sim = make_sim(2, policy);
  RwSem sem(*sim, "test_sem");
  SpunOnASleeper x;
  Task& t0 = sim->create_task(0, nullptr);
  Task& t1 = sim->create_task(1, nullptr);
  sim->start_task(t0, [](Task& t, RwSem& s, Rec* rec) -> Co<void> {
    t.work(SimTime::us(10) - t.clock());
    co_await s.down_write(t);
    rec->granted = t.clock();
    t.work(SimTime::us(30));
    co_await do_sleep(t, SimTime::us(100));
    co_await s.up_write(t);
    rec->released = t.clock();
  }(t0, sem, &x.owner));
  sim->start_task(t1, locker(t1, sem, write, SimTime::us(20), SimTime::us(10), &x.other));
  sim->run();
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  x.counters = sem.counters();
  return x;
}

TEST(RwsemTest, SpinnerGoesToSleepWhenTheOwnerLeavesItsCpu) {
  const SpunOnASleeper x = spin_on_an_owner_that_sleeps("", /*write=*/true);
  EXPECT_EQ(x.counters.spins, 1u);
  EXPECT_EQ(x.counters.spin_aborted, 1u);
  EXPECT_EQ(x.counters.sleeps, 1u);
  EXPECT_GE(x.other.granted, x.owner.released);
}

TEST(RwsemTest, SpinnerStopsWhenTheOwnerIsPreempted) {
  auto sim = make_sim(2);
  RwSem sem(*sim, "test_sem");
  Rec owner, w;
  Task& a = sim->create_task(0, nullptr);
  Task& other = sim->create_task(0, nullptr);  // shares CPU 0 with the owner
  Task& b = sim->create_task(1, nullptr);
  // The owner holds the lock over 5 ms of work, past the tick that ends its slice (4 ms): at
  // its next preemption point (the up_write) it is preempted for the other task, still holding
  // the lock.
  sim->start_task(a, locker(a, sem, true, SimTime::us(10), SimTime::ms(5), &owner));
  sim->start_task(other, [](Task& t) -> Co<void> {
    t.work(SimTime::ms(1));
    co_await sync_point(t);
  }(other));
  sim->start_task(b, locker(b, sem, true, SimTime::us(100), SimTime::us(10), &w));
  sim->run();
  EXPECT_EQ(sem.counters().spins, 1u);
  EXPECT_EQ(sem.counters().spin_aborted, 1u) << "owner off CPU: the spinner must sleep";
  EXPECT_EQ(sim->cpu(0).counters.involuntary_switches, 1u) << "the owner, preempted";
  EXPECT_GE(w.granted, owner.released);
  EXPECT_GT(owner.released, SimTime::ms(6)) << "the owner waited out the other task's run";
}

Co<void> writer_loop(Task& t, RwSem& s, SimTime until) {
  while (t.clock() < until) {
    co_await s.down_write(t);
    t.work(SimTime::us(100));
    co_await s.up_write(t);
    t.work(SimTime::us(1));
  }
}

TEST(RwsemTest, SleepingWaiterGetsAHandoffAfterRwsemWaitTimeout) {
  auto sim = make_sim(3);
  RwSem sem(*sim, "test_sem");
  Task& a = sim->create_task(0, nullptr);
  Task& b = sim->create_task(1, nullptr);
  Task& r = sim->create_task(2, nullptr);
  // Two running writers hand the lock to each other by optimistic spinning ...
  sim->start_task(a, writer_loop(a, sem, SimTime::ms(20)));
  sim->start_task(b, writer_loop(b, sem, SimTime::ms(20)));
  // ... past a reader sleeping in the wait list, until it has waited RWSEM_WAIT_TIMEOUT.
  Rec rd;
  sim->start_task(r, locker(r, sem, false, SimTime::us(50), SimTime::us(10), &rd));
  sim->run();
  const SimTime waited = rd.granted - rd.arrived;
  EXPECT_GE(waited, SimTime::ns(RWSEM_WAIT_TIMEOUT_NS));
  EXPECT_LT(waited, SimTime::ns(RWSEM_WAIT_TIMEOUT_NS) + SimTime::us(250));
  EXPECT_EQ(sem.counters().handoffs, 1u);
  EXPECT_GT(sem.counters().spin_acquired, 30u);
}

// Holds the lock for write while asleep (so a writer arriving meanwhile sleeps rather than spins),
// then keeps taking it for `hold` with `gap` between, until `until`: each release wakes the
// sleeping writer, and the loop's next down_write() comes before the wakee runs.
Co<void> lock_hog(Task& t, RwSem& s, SimTime hold, SimTime gap, SimTime until, Rec* rec) {
  co_await s.down_write(t);
  rec->granted = t.clock();
  co_await do_sleep(t, SimTime::us(50));
  co_await s.up_write(t);
  rec->released = t.clock();  // the first release: the sleeping writer is woken here
  while (t.clock() < until) {
    t.work(gap);
    co_await s.down_write(t);
    t.work(hold);
    co_await s.up_write(t);
  }
}

struct WokenWriterRace {
  Rec hog;
  Rec writer;
  SimTime hog_done;
  RwSem::Counters counters;
  VmCounters lock_events;
};

// The hog (CPU 0) takes the lock at 0 and sleeps with it; the writer (CPU 1) arrives at 10 us and
// sleeps in the wait list; from the hog's first release on, the hog loops for 10 ms.
WokenWriterRace race_a_woken_writer(const std::string& policy) {
  auto sim = make_sim(2, policy);
  RwSem sem(*sim, "test_sem");
  WokenWriterRace r;
  Task& hog = sim->create_task(0, nullptr);
  Task& writer = sim->create_task(1, nullptr);
  const SimTime gap = SimTime::ns(sim->costs().wakeup_latency.count_ns() / 4);
  sim->start_task(hog, [](Task& t, RwSem& s, SimTime g, WokenWriterRace* out) -> Co<void> {
    co_await lock_hog(t, s, SimTime::us(20), g, SimTime::ms(10), &out->hog);
    out->hog_done = t.clock();
  }(hog, sem, gap, &r));
  sim->start_task(writer, locker(writer, sem, true, SimTime::us(10), SimTime::us(10), &r.writer));
  sim->run();
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  r.counters = sem.counters();
  r.lock_events = sim->vm();
  return r;
}

TEST(RwsemTest, BeforeLockStealingTheWokenWriterIsGrantedTheLock) {
  const WokenWriterRace r = race_a_woken_writer("rwsem_writer_wake=grant");
  EXPECT_EQ(r.writer.granted, r.hog.released + make_sim(1)->costs().wakeup_latency)
      << "granted at the wake-up, running after the wake-up latency";
  EXPECT_EQ(r.counters.steals, 0u);
  EXPECT_EQ(r.counters.writer_wakeups, 0u);
}

TEST(RwsemTest, AWokenWriterRacesForTheLockAndCanStarveWithoutHandoff) {
  // rwsem_down_write_slowpath() since 3.10: the wake-up is no grant. The hog's next
  // down_write() comes before the wakee runs and takes the free lock past it; the wakee finds
  // it taken and sleeps again, woken by every release, for as long as the hog loops.
  const WokenWriterRace r = race_a_woken_writer("rwsem_writer_wake=steal");
  EXPECT_GE(r.writer.granted, r.hog_done) << "nothing bounds the steals before 5.3";
  EXPECT_GT(r.counters.steals, 100u);
  EXPECT_GT(r.counters.wakeups_lost, 100u);
  EXPECT_EQ(r.counters.handoffs, 0u);
  EXPECT_EQ(r.counters.sleeps, r.counters.wakeups_lost + 1) << "back to sleep after each loss";
}

TEST(RwsemTest, TheHandoffBitEndsTheStealsAfterRwsemWaitTimeout) {
  // 5.3+: once the head has waited RWSEM_WAIT_TIMEOUT, the hog can no longer take the lock
  // past it; the next release hands it over.
  const WokenWriterRace r = race_a_woken_writer("rwsem_writer_wake=handoff");
  const SimTime waited = r.writer.granted - r.writer.arrived;
  EXPECT_GE(waited, SimTime::ns(RWSEM_WAIT_TIMEOUT_NS));
  EXPECT_LT(waited, SimTime::ns(RWSEM_WAIT_TIMEOUT_NS) + SimTime::us(100));
  EXPECT_LT(r.writer.granted, r.hog_done);
  EXPECT_GT(r.counters.steals, 100u);
  EXPECT_GT(r.counters.wakeups_lost, 100u);
  EXPECT_EQ(r.lock_events.rwsem_wlock_handoff, 1u);
  EXPECT_EQ(r.lock_events.rwsem_opt_lock, r.counters.steals + r.counters.spin_acquired);
  EXPECT_EQ(r.lock_events.rwsem_wake_lost, r.counters.wakeups_lost);
  EXPECT_EQ(r.lock_events.rwsem_wake_writer, r.counters.writer_wakeups + 1)
      << "the wake-ups to try again, and the handoff's";
}

TEST(RwsemTest, AWokenWriterTakesTheLockWhenNobodyStealsIt) {
  // A release with nobody looping: the woken head finds the lock free when it runs.
  for (const char* policy : {"rwsem_writer_wake=steal", "rwsem_writer_wake=handoff"}) {
    auto sim = make_sim(2, policy);
    RwSem sem(*sim, "test_sem");
    Rec w0, w1;
    Task& t0 = sim->create_task(0, nullptr);
    Task& t1 = sim->create_task(1, nullptr);
    sim->start_task(t0, sleeping_writer(t0, sem, SimTime::us(10), SimTime::us(100), &w0));
    sim->start_task(t1, locker(t1, sem, true, SimTime::us(20), SimTime::us(10), &w1));
    sim->run();
    EXPECT_GE(w1.granted, w0.released + sim->costs().wakeup_latency) << policy;
    EXPECT_EQ(sem.counters().writer_wakeups, 1u) << policy;
    EXPECT_EQ(sem.counters().wakeups_lost, 0u) << policy;
    const LockClassStats* cls = sim->lockstat().find("test_sem-W");
    ASSERT_NE(cls, nullptr);
    EXPECT_EQ(cls->contentions, 1u) << policy;
  }
}

// Races in the window between a wake-up and the wakee's run: wake-ups take 50 us, and so does a
// task's start (its arrivals come after it).
constexpr SimTime kRaceWakeupLatency = SimTime::us(50);

std::unique_ptr<Simulation> make_race_sim(uint32_t cpus, const std::string& policy) {
  CostProfile costs = cost_profile_default();
  costs.wakeup_latency = kRaceWakeupLatency;
  return make_sim(cpus, policy, costs);
}

// A reader arriving while the writer at the head is woken and has yet to run. With a wake-up
// latency of 50 us (a task's start takes one too), the holder (CPU 0) takes the lock 10 us after
// its start and sleeps `holder_sleep` with it; the writer (CPU 1) arrives 10 us later and sleeps
// in the wait list (its owner is off CPU: no spinning); the holder's release wakes it, and it runs
// 50 us later. The reader (CPU 2) arrives 25 us after the release, inside that window, and holds
// the lock 40 us: past the writer's run.
struct ReaderInTheWindow {
  Rec holder;
  Rec writer;
  Rec reader;
  RwSem::Counters counters;
  VmCounters lock_events;  // the machine's rwsem lock events, this rwsem's alone here
  SimTime wakeup_latency;
};

ReaderInTheWindow race_a_reader(const std::string& policy, SimTime holder_sleep) {
  auto sim = make_race_sim(3, policy);
  RwSem sem(*sim, "test_sem");
  ReaderInTheWindow r;
  r.wakeup_latency = kRaceWakeupLatency;
  Task& holder = sim->create_task(0, nullptr);
  Task& writer = sim->create_task(1, nullptr);
  Task& reader = sim->create_task(2, nullptr);
  // The holder's own wake-up from its sleep takes the latency too: it releases at about
  // its arrival + holder_sleep + 50 us.
  const SimTime started = kRaceWakeupLatency;
  const SimTime release = started + SimTime::us(10) + holder_sleep + kRaceWakeupLatency;
  sim->start_task(holder,
                  sleeping_writer(holder, sem, started + SimTime::us(10), holder_sleep, &r.holder));
  sim->start_task(writer,
                  locker(writer, sem, true, started + SimTime::us(20), SimTime::us(10), &r.writer));
  sim->start_task(
      reader, locker(reader, sem, false, release + SimTime::us(25), SimTime::us(40), &r.reader));
  sim->run();
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  EXPECT_EQ(r.holder.arrived, started + SimTime::us(10)) << "arrivals after the tasks' start";
  EXPECT_LT(r.holder.released, r.reader.arrived) << "the reader must come after the release";
  EXPECT_LT(r.reader.arrived, r.holder.released + kRaceWakeupLatency)
      << "... and before the woken writer runs";
  r.counters = sem.counters();
  r.lock_events = sim->vm();
  return r;
}

TEST(RwsemTest, AReaderTakesAFreeLockPastAWokenWriterSince511) {
  // 5.11+ (1a728dff855a): rwsem_down_read_slowpath() keeps the reader's bias on a lock no
  // writer holds; the woken writer finds it reader-owned, sleeps again, and is woken by the
  // reader's release.
  const ReaderInTheWindow r = race_a_reader("rwsem_reader_steal=on", SimTime::us(100));
  EXPECT_LT(r.reader.granted - r.reader.arrived, SimTime::us(1)) << "granted at once";
  EXPECT_EQ(r.counters.reader_steals, 1u);
  EXPECT_EQ(r.counters.writer_wakeups, 2u) << "woken by the holder's release, then the reader's";
  EXPECT_EQ(r.counters.wakeups_lost, 1u);
  EXPECT_GE(r.writer.granted, r.reader.released + r.wakeup_latency);
  // The results' lock events (lock_events_list.h) count the same.
  EXPECT_EQ(r.lock_events.rwsem_rlock_steal, 1u);
  EXPECT_EQ(r.lock_events.rwsem_sleep_reader, 0u);
  EXPECT_EQ(r.lock_events.rwsem_sleep_writer, 2u) << "queued, then again after the lost race";
  EXPECT_EQ(r.lock_events.rwsem_wake_writer, 2u);
  EXPECT_EQ(r.lock_events.rwsem_wake_lost, 1u);
  EXPECT_EQ(r.lock_events.rwsem_opt_fail, 1u)
      << "the writer came while the holder slept: rwsem_can_spin_on_owner() refused it";
}

TEST(RwsemTest, BeforeReaderLockStealingAReaderQueuesBehindAWokenWriter) {
  // Before 5.11 the fast path fails on WAITERS and the reader queues; the woken writer takes
  // the free lock when it runs and the reader is granted at its release.
  const ReaderInTheWindow r = race_a_reader("rwsem_reader_steal=off", SimTime::us(100));
  EXPECT_EQ(r.counters.reader_steals, 0u);
  EXPECT_EQ(r.counters.wakeups_lost, 0u);
  EXPECT_GE(r.writer.granted, r.holder.released + r.wakeup_latency);
  EXPECT_LT(r.writer.granted, r.holder.released + r.wakeup_latency + SimTime::us(1))
      << "the woken writer runs and finds the lock free";
  EXPECT_GE(r.reader.granted, r.writer.released + r.wakeup_latency);
  EXPECT_EQ(r.lock_events.rwsem_sleep_reader, 1u);
  EXPECT_EQ(r.lock_events.rwsem_wake_reader, 1u);
  EXPECT_EQ(r.lock_events.rwsem_wake_writer, 1u);
  EXPECT_EQ(r.lock_events.rwsem_rlock_steal, 0u);
}

TEST(RwsemTest, NoReaderStealsPastAHeadDueAHandoff) {
  // The holder releases when the writer has waited 10 us short of RWSEM_WAIT_TIMEOUT: it is
  // woken, not handed the lock; the reader comes once it has waited the timeout, and the HANDOFF
  // bit keeps the free lock for the writer.
  const SimTime sleep = SimTime::ns(RWSEM_WAIT_TIMEOUT_NS) - SimTime::us(50);
  const ReaderInTheWindow r = race_a_reader("rwsem_reader_steal=on", sleep);
  EXPECT_LT(r.holder.released - r.writer.arrived, SimTime::ns(RWSEM_WAIT_TIMEOUT_NS));
  EXPECT_GE(r.reader.arrived - r.writer.arrived, SimTime::ns(RWSEM_WAIT_TIMEOUT_NS));
  EXPECT_EQ(r.counters.reader_steals, 0u);
  EXPECT_EQ(r.counters.wakeups_lost, 0u);
  EXPECT_LT(r.writer.granted, r.reader.granted);
}

// ---- Whom a writer spins on (rwsem_spin) ----

TEST(RwsemTest, BeforeLinux53AWriterSleepsOnAReaderOwnedLock) {
  // 3.x-5.2: readers leave no owner to spin on; the writer sleeps at once and frees its CPU.
  auto sim = make_sim(2, "rwsem_spin=writer");
  RwSem sem(*sim, "test_sem");
  Rec r, w;
  Task& t0 = sim->create_task(0, nullptr);
  Task& t1 = sim->create_task(1, nullptr);
  sim->start_task(t0, locker(t0, sem, false, SimTime::us(10), SimTime::us(100), &r));
  sim->start_task(t1, locker(t1, sem, true, SimTime::us(20), SimTime::us(10), &w));
  sim->run();
  EXPECT_EQ(sem.counters().spins, 0u);
  EXPECT_EQ(sem.counters().sleeps, 1u);
  EXPECT_GE(w.granted, r.released + sim->costs().wakeup_latency);
  EXPECT_EQ(sim->vm().rwsem_opt_nospin, 0u);
}

TEST(RwsemTest, BeforeLinux53ADowngradeEndsTheSpin) {
  // A writer spinning on a running writer stops when it downgrades (4.9+: RWSEM_READER_OWNED
  // is not spinnable); since 5.3 it goes on spinning on the reader-owned lock for the rspin
  // threshold (10.5 us with one reader), which runs out on the 100 us read phase.
  uint64_t busy_ns[2] = {0, 0};
  for (int spins_on_readers = 0; spins_on_readers < 2; ++spins_on_readers) {
    const std::string policy = spins_on_readers ? "rwsem_spin=readers" : "rwsem_spin=writer";
    auto sim = make_sim(2, policy);
    RwSem sem(*sim, "test_sem");
    Rec d, w;
    Task& t0 = sim->create_task(0, nullptr);
    Task& t1 = sim->create_task(1, nullptr);
    sim->start_task(t0, downgrading_writer(t0, sem, SimTime::us(100), &d));
    sim->start_task(t1, locker(t1, sem, true, SimTime::us(60), SimTime::us(10), &w));
    sim->run();
    EXPECT_EQ(sem.counters().spins, 1u) << policy;
    EXPECT_EQ(sem.counters().spin_aborted, 1u) << policy;
    EXPECT_EQ(sem.counters().nospin, spins_on_readers ? 1u : 0u) << policy;
    EXPECT_GE(w.granted, d.released + SimTime::us(100)) << policy;
    busy_ns[spins_on_readers] = sim->cpu(1).counters.busy_ns;
  }
  EXPECT_EQ(busy_ns[1] - busy_ns[0], 10'500u) << "the spinner's CPU: the threshold on readers";
}

// Two writers arrive 3 us apart on a lock two readers hold for 100 us; a third comes after the
// spins ran out.
struct SpinOnReaders {
  Rec r0, r1, w0, w1, w2;
  RwSem::Counters counters;
  bool nonspinnable_after_spins = false;
  uint64_t nospin_events = 0;
};

SpinOnReaders spin_on_readers(const std::string& policy) {
  auto sim = make_sim(6, policy);
  RwSem sem(*sim, "test_sem");
  SpinOnReaders s;
  Task* t[5];
  for (uint32_t i = 0; i < 5; ++i) t[i] = &sim->create_task(i, nullptr);
  sim->start_task(*t[0], locker(*t[0], sem, false, SimTime::us(10), SimTime::us(100), &s.r0));
  sim->start_task(*t[1], locker(*t[1], sem, false, SimTime::us(10), SimTime::us(100), &s.r1));
  sim->start_task(*t[2], locker(*t[2], sem, true, SimTime::us(20), SimTime::us(10), &s.w0));
  sim->start_task(*t[3], locker(*t[3], sem, true, SimTime::us(23), SimTime::us(10), &s.w1));
  sim->start_task(*t[4], locker(*t[4], sem, true, SimTime::us(50), SimTime::us(10), &s.w2));
  // Looks at the lock once both spins must have ended, before the readers leave (on a CPU of
  // its own: it must run at 45 us).
  Task& probe = sim->create_task(5, nullptr);
  sim->start_task(probe, [](Task& p, RwSem& sm, SpinOnReaders* out) -> Co<void> {
    p.work(SimTime::us(45) - p.clock());
    co_await sync_point(p);
    out->nonspinnable_after_spins = sm.nonspinnable();
  }(probe, sem, &s));
  sim->run();
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  s.counters = sem.counters();
  s.nospin_events = sim->vm().rwsem_opt_nospin;
  EXPECT_FALSE(sem.nonspinnable()) << "the last reader's release to waiters clears it";
  return s;
}

TEST(RwsemTest, ASpinOnReadersThatRunsOutMakesTheLockNonSpinnableSince53) {
  // rwsem_set_nonspinnable(): the first threshold to run out (11 us after the first writer came,
  // two readers) ends the second writer's spin too, 8 us into its own; the third writer then
  // sleeps without spinning.
  const SpinOnReaders s = spin_on_readers("rwsem_spin=readers");
  EXPECT_EQ(s.counters.spins, 2u);
  EXPECT_EQ(s.counters.spin_aborted, 2u);
  EXPECT_EQ(s.counters.nospin, 1u);
  EXPECT_EQ(s.nospin_events, 1u);
  EXPECT_TRUE(s.nonspinnable_after_spins);
  EXPECT_EQ(s.counters.sleeps, 3u) << "both spinners, and the third writer at once";
  EXPECT_GE(s.w0.granted, s.r0.released);
}

TEST(RwsemTest, BeforeLinux53NoWriterSpinsOnThoseReaders) {
  const SpinOnReaders s = spin_on_readers("rwsem_spin=writer");
  EXPECT_EQ(s.counters.spins, 0u);
  EXPECT_EQ(s.counters.nospin, 0u);
  EXPECT_FALSE(s.nonspinnable_after_spins);
  EXPECT_EQ(s.counters.sleeps, 3u);
}

// The holder (CPU 0) takes the lock and sleeps with it, so the writer (CPU 1) sleeps in the wait
// list; the holder's release wakes the writer 30 us before it has waited RWSEM_WAIT_TIMEOUT, and
// the holder takes the lock again 1 us later, before the handoff is due, for 300 us of work (then
// `then_sleep` asleep with it). The writer runs 50 us after its wake-up, past the timeout, and
// finds the lock taken by a running writer.
struct HandoffHead {
  Rec first;   // the holder's first hold
  Rec second;  // ... and the one the writer finds
  Rec writer;
  RwSem::Counters counters;
  VmCounters lock_events;
};

HandoffHead race_the_handoff_head(const std::string& policy, SimTime then_sleep) {
  auto sim = make_race_sim(2, policy);
  RwSem sem(*sim, "test_sem");
  HandoffHead h;
  Task& holder = sim->create_task(0, nullptr);
  Task& writer = sim->create_task(1, nullptr);
  const SimTime started = kRaceWakeupLatency;
  const SimTime writer_arrives = started + SimTime::us(20);
  // The holder's wake-up from its sleep takes the latency too.
  const SimTime release = writer_arrives + SimTime::ns(RWSEM_WAIT_TIMEOUT_NS) - SimTime::us(30);
  const SimTime asleep = release - (started + SimTime::us(10)) - kRaceWakeupLatency;
  sim->start_task(holder,
                  [](Task& t, RwSem& s, SimTime arrive, SimTime sleep, SimTime then_sleep,
                     HandoffHead* out) -> Co<void> {
                    co_await sleeping_writer(t, s, arrive, sleep, &out->first);
                    t.work(SimTime::us(1));
                    out->second.arrived = t.clock();
                    co_await s.down_write(t);
                    out->second.granted = t.clock();
                    t.work(SimTime::us(300));
                    if (then_sleep > SimTime()) co_await do_sleep(t, then_sleep);
                    co_await s.up_write(t);
                    out->second.released = t.clock();
                  }(holder, sem, started + SimTime::us(10), asleep, then_sleep, &h));
  sim->start_task(writer, locker(writer, sem, true, writer_arrives, SimTime::us(10), &h.writer));
  sim->run();
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  EXPECT_GE(h.first.released, release);
  EXPECT_LT(h.first.released, release + SimTime::us(1)) << "a wake-up before the timeout";
  EXPECT_LT(h.second.granted - h.writer.arrived, SimTime::ns(RWSEM_WAIT_TIMEOUT_NS))
      << "the holder's second lock must be a steal before the handoff is due";
  h.counters = sem.counters();
  h.lock_events = sim->vm();
  return h;
}

TEST(RwsemTest, TheHeadDueAHandoffSpinsOnTheRunningOwnerSince54) {
  // Since 5.4 (91d2a812dfb9) the head that set the HANDOFF bit spins on the running owner and
  // takes the lock at its release: one line transfer, no sleep.
  const HandoffHead h = race_the_handoff_head("rwsem_spin=handoff", SimTime());
  EXPECT_EQ(h.counters.handoff_spins, 1u);
  EXPECT_EQ(h.counters.wakeups_lost, 1u);
  EXPECT_EQ(h.counters.sleeps, 1u) << "queued once; the lost race spins instead of sleeping";
  EXPECT_EQ(h.writer.granted, h.second.released + make_sim(1)->costs().cacheline_transfer);
  EXPECT_EQ(h.lock_events.rwsem_wlock_handoff, 1u);
  EXPECT_EQ(h.lock_events.rwsem_sleep_writer, 1u);
}

TEST(RwsemTest, In53TheHeadDueAHandoffSleepsAndRunsAWakeUpAfterTheRelease) {
  const HandoffHead h = race_the_handoff_head("rwsem_spin=readers", SimTime());
  EXPECT_EQ(h.counters.handoff_spins, 0u);
  EXPECT_EQ(h.counters.sleeps, 2u);
  EXPECT_GE(h.writer.granted, h.second.released + kRaceWakeupLatency);
  EXPECT_EQ(h.lock_events.rwsem_wlock_handoff, 1u);
}

TEST(RwsemTest, TheHandoffSpinEndsWhenTheOwnerSleeps) {
  // rwsem_spin_on_owner() returns OWNER_NONSPINNABLE once the owner is off its CPU: the head
  // sleeps, and the release hands it the lock with a wake-up.
  const HandoffHead h = race_the_handoff_head("rwsem_spin=handoff", SimTime::us(100));
  EXPECT_EQ(h.counters.handoff_spins, 1u);
  EXPECT_EQ(h.counters.sleeps, 2u) << "queued, then asleep when the owner slept";
  EXPECT_GE(h.writer.granted, h.second.released + kRaceWakeupLatency);
  EXPECT_EQ(h.lock_events.rwsem_wlock_handoff, 1u);
}

// ---- Reader optimistic spinning (5.3-5.10, rwsem_reader_spin) ----

TEST(RwsemTest, In53ToThe510AReaderSpinsOnARunningWriter) {
  // cf69482d62d9: the reader spins while the writer runs and takes the lock at its release, one
  // line transfer later, keeping its CPU; without it, it sleeps and runs a wake-up after.
  for (const char* policy : {"rwsem_reader_spin=on", "rwsem_reader_spin=off"}) {
    const bool spins = std::string(policy) == "rwsem_reader_spin=on";
    auto sim = make_sim(2, policy);
    RwSem sem(*sim, "test_sem");
    Rec w, r;
    SimTime bystander_ran;
    Task& t0 = sim->create_task(0, nullptr);
    Task& t1 = sim->create_task(1, nullptr);
    Task& t2 = sim->create_task(1, nullptr);  // shares CPU 1 with the reader
    sim->start_task(t0, locker(t0, sem, true, SimTime::us(10), SimTime::us(100), &w));
    sim->start_task(t1, locker(t1, sem, false, SimTime::us(20), SimTime::us(10), &r));
    sim->start_task(t2, bystander(t2, &bystander_ran));
    sim->run();
    EXPECT_EQ(sem.counters().reader_spins, spins ? 1u : 0u) << policy;
    EXPECT_EQ(sem.counters().reader_opt_locks, spins ? 1u : 0u) << policy;
    EXPECT_EQ(sim->vm().rwsem_opt_rlock, spins ? 1u : 0u) << policy;
    EXPECT_EQ(sem.counters().sleeps, spins ? 0u : 1u) << policy;
    if (spins) {
      EXPECT_EQ(r.granted, w.released + sim->costs().cacheline_transfer);
      EXPECT_GE(bystander_ran, r.released) << "a spinning reader keeps its CPU";
    } else {
      EXPECT_GE(r.granted, w.released + sim->costs().wakeup_latency);
    }
  }
}

TEST(RwsemTest, ASpinThatRwsemCanSpinOnOwnerRefusesCountsAsAFailedSpin) {
  // rwsem_can_spin_on_owner() ends in lockevent_cond_inc(rwsem_opt_fail, !ret): a writer, and in
  // 5.3-5.10 a reader, that comes while the holder sleeps with the lock does not spin and counts.
  for (const char* policy : {"rwsem_reader_spin=on", "rwsem_reader_spin=off"}) {
    const bool reader_spins = std::string(policy) == "rwsem_reader_spin=on";
    auto sim = make_sim(3, policy);
    RwSem sem(*sim, "test_sem");
    Rec h, w, r;
    Task& t0 = sim->create_task(0, nullptr);
    Task& t1 = sim->create_task(1, nullptr);
    Task& t2 = sim->create_task(2, nullptr);
    sim->start_task(t0, sleeping_writer(t0, sem, SimTime::us(10), SimTime::us(200), &h));
    sim->start_task(t1, locker(t1, sem, true, SimTime::us(20), SimTime::us(10), &w));
    sim->start_task(t2, locker(t2, sem, false, SimTime::us(30), SimTime::us(10), &r));
    sim->run();
    EXPECT_EQ(sem.counters().spins + sem.counters().reader_spins, 0u) << policy;
    EXPECT_EQ(sim->vm().rwsem_opt_fail, reader_spins ? 2u : 1u) << policy;
    EXPECT_GE(w.granted, h.released) << policy;
    EXPECT_GE(r.granted, h.released) << policy;
  }
}

TEST(RwsemTest, ASpinningReaderSleepsWhenTheWriterLeavesItsCpu) {
  const SpunOnASleeper x = spin_on_an_owner_that_sleeps("rwsem_reader_spin=on", /*write=*/false);
  EXPECT_EQ(x.counters.reader_spins, 1u);
  EXPECT_EQ(x.counters.spin_aborted, 1u);
  EXPECT_EQ(x.counters.sleeps, 1u);
  EXPECT_EQ(x.counters.reader_opt_locks, 0u) << "woken and granted, not taken by a spin";
  EXPECT_GE(x.other.granted, x.owner.released);
}

// Readers and a writer on the 50 us wake-up machine (tasks start at 50 us): reader r0 holds the
// lock 200 us from 60 us; the writer comes at 70 us, spins on r0 until its threshold (10.5 us)
// marks the lock non-spinnable, and sleeps; reader r1 comes at 100 us and holds 50 us; r0's
// release (260 us) wakes the writer, which holds 100 us from about 310 us; reader r2 comes at
// 350 us, while the writer runs.
struct ReadersPastAWriter {
  Rec r0, r1, r2, writer;
  RwSem::Counters counters;
};

ReadersPastAWriter readers_past_a_writer(const std::string& policy) {
  auto sim = make_race_sim(4, "rwsem_spin=readers," + policy);
  RwSem sem(*sim, "test_sem");
  ReadersPastAWriter x;
  Task* t[4];
  for (uint32_t i = 0; i < 4; ++i) t[i] = &sim->create_task(i, nullptr);
  sim->start_task(*t[0], locker(*t[0], sem, false, SimTime::us(60), SimTime::us(200), &x.r0));
  sim->start_task(*t[1], locker(*t[1], sem, true, SimTime::us(70), SimTime::us(100), &x.writer));
  sim->start_task(*t[2], locker(*t[2], sem, false, SimTime::us(100), SimTime::us(50), &x.r1));
  sim->start_task(*t[3], locker(*t[3], sem, false, SimTime::us(350), SimTime::us(10), &x.r2));
  sim->run();
  EXPECT_EQ(sim->nr_live_tasks(), 0u);
  EXPECT_LT(x.writer.granted, x.r2.arrived) << "the writer must hold it when r2 comes";
  EXPECT_GT(x.writer.released, x.r2.arrived);
  x.counters = sem.counters();
  return x;
}

TEST(RwsemTest, In53ToThe510AReaderTakesAReaderOwnedLockPastAWaitingWriter) {
  // rwsem_try_read_lock_unqueued() sees no writer and no HANDOFF bit: r1 shares r0's lock
  // while the writer waits; without reader spinning it queues behind the writer.
  const ReadersPastAWriter on = readers_past_a_writer("rwsem_reader_spin=on");
  EXPECT_LT(on.r1.granted - on.r1.arrived, SimTime::us(1)) << "taken at once";
  EXPECT_LT(on.r1.released, on.writer.granted);
  const ReadersPastAWriter off = readers_past_a_writer("rwsem_reader_spin=off");
  EXPECT_GE(off.r1.granted, off.writer.released);
}

TEST(RwsemTest, AWriterThatWaitedOnReadersTurnsReaderSpinningOff) {
  // 5cfd92e12e13: the writer queued after its spin on readers ran out, so when it gets the lock
  // it sets RWSEM_RD_NONSPINNABLE: r2, coming while it runs, sleeps instead of spinning, and
  // runs a wake-up after its release.
  const ReadersPastAWriter x = readers_past_a_writer("rwsem_reader_spin=on");
  EXPECT_EQ(x.counters.nospin, 1u);
  EXPECT_EQ(x.counters.reader_spins, 0u) << "r2 must not spin";
  EXPECT_EQ(x.counters.reader_opt_locks, 1u) << "r1 alone";
  EXPECT_GE(x.r2.granted, x.writer.released + kRaceWakeupLatency);
}

}  // namespace
}  // namespace mmreplay::kernelsim
