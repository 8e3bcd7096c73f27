// The native side of the throughput loops; see native_loops.h. Plain Linux calls, no model code.

#include "tools/calibrate/native_loops.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "tools/calibrate/probes.h"
#include "tools/calibrate/proc_counters.h"
#include "tools/calibrate/sample_stats.h"

namespace mmreplay::tools::calibrate {
namespace {

std::vector<int> allowed_cpu_list() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof(set), &set) != 0) return {0};
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

NativeSample failure(std::string why) {
  NativeSample s;
  s.error = std::move(why);
  return s;
}

void write_bytes_per_page(char* p, uint64_t bytes) {
  for (uint64_t off = 0; off < bytes; off += kLoopPage) *static_cast<volatile char*>(p + off) = 1;
}

// One worker's state: what it maps or opens once, and one round of its loop.
class Worker {
 public:
  explicit Worker(LoopKind kind) : kind_(kind) {}
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker() {
    if (region_ != nullptr) ::munmap(region_, region_bytes_);
    if (fd_ >= 0) ::close(fd_);
  }

  // False (errno kept) when this machine refuses the memory or the file.
  bool setup() {
    switch (kind_) {
      case LoopKind::kTlbFlush2:
        return map(kTlbLoopBytes);
      case LoopKind::kMadvDontneed:
      case LoopKind::kMadvFree:
        return map(kReuseLoopBytes);
      case LoopKind::kPageFault2:
        return open_file(kFaultLoopBytes, /*fill=*/false);
      case LoopKind::kReadCached:
      case LoopKind::kReadPage:
        buf_.resize(read_call_bytes(kind_));
        return open_file(kReadFileBytes, /*fill=*/true);
      default:
        return true;
    }
  }

  // One round; returns its operations (0 when a call failed).
  uint64_t round() {
    switch (kind_) {
      case LoopKind::kPageFault1:
        return map_write_unmap(MAP_PRIVATE | MAP_ANONYMOUS, -1, kFaultLoopBytes);
      case LoopKind::kPageFault2:
        return map_write_unmap(MAP_PRIVATE, fd_, kFaultLoopBytes);
      case LoopKind::kMmapMunmap:
        return map_write_unmap(MAP_PRIVATE | MAP_ANONYMOUS, -1, kMmapLoopBytes);
      case LoopKind::kTlbFlush2:
        for (uint64_t off = 0; off < kTlbLoopBytes; off += kLoopPage) {
          *static_cast<volatile char*>(region_ + off) = 1;
          if (::madvise(region_ + off, kLoopPage, MADV_DONTNEED) != 0) return 0;
        }
        return kTlbLoopBytes / kLoopPage;
      case LoopKind::kMadvDontneed:
      case LoopKind::kMadvFree:
        write_bytes_per_page(region_, kReuseLoopBytes);
        if (::madvise(region_, kReuseLoopBytes,
                      kind_ == LoopKind::kMadvFree ? MADV_FREE : MADV_DONTNEED) != 0) {
          return 0;
        }
        return kReuseLoopBytes / kLoopPage;
      case LoopKind::kReadCached:
      case LoopKind::kReadPage: {
        const uint64_t call = read_call_bytes(kind_);
        for (uint64_t off = 0; off < kReadFileBytes; off += call) {
          if (::pread(fd_, buf_.data(), call, static_cast<off_t>(off)) !=
              static_cast<ssize_t>(call)) {
            return 0;
          }
        }
        return kReadFileBytes / call;
      }
      case LoopKind::kPingPong:
        break;  // run_ping_pong()
    }
    return 0;
  }

 private:
  bool map(uint64_t bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    region_ = static_cast<char*>(p);
    region_bytes_ = bytes;
    return true;
  }

  // A temporary file of `bytes`, unlinked at once; written when `fill` (so its pages are in the
  // page cache), else sized with ftruncate as page_fault2.c does (its holes are cached on the
  // first round, which is not timed apart: the rounds after it dominate).
  bool open_file(uint64_t bytes, bool fill) {
    char name[] = "/tmp/trace-replay-loop.XXXXXX";
    fd_ = ::mkstemp(name);
    if (fd_ < 0) return false;
    ::unlink(name);
    if (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) return false;
    if (!fill) return true;
    std::vector<char> data(bytes, 1);
    return ::pwrite(fd_, data.data(), bytes, 0) == static_cast<ssize_t>(bytes);
  }

  uint64_t map_write_unmap(int flags, int fd, uint64_t bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, flags, fd, 0);
    if (p == MAP_FAILED) return 0;
    write_bytes_per_page(static_cast<char*>(p), bytes);
    ::munmap(p, bytes);
    return bytes / kLoopPage;
  }

  LoopKind kind_;
  char* region_ = nullptr;
  uint64_t region_bytes_ = 0;
  int fd_ = -1;
  std::vector<char> buf_;
};

// SCHED_FIFO for the calling thread while in scope (NativeRun::realtime), SCHED_OTHER after.
// Entered only once a worker starts its rounds: a real-time thread spinning while it waits for
// the others would starve the thread that starts them.
class RealtimeScope {
 public:
  explicit RealtimeScope(bool on) : on_(on) {
    if (!on) return;
    sched_param p{};
    p.sched_priority = kRealtimePriority;
    ok_ = ::pthread_setschedparam(::pthread_self(), SCHED_FIFO, &p) == 0;
  }
  ~RealtimeScope() {
    if (!ok_) return;
    sched_param p{};
    ::pthread_setschedparam(::pthread_self(), SCHED_OTHER, &p);
  }
  RealtimeScope(const RealtimeScope&) = delete;
  RealtimeScope& operator=(const RealtimeScope&) = delete;
  bool refused() const { return on_ && !ok_; }

 private:
  // The lowest real-time priority: above every normal task, below the kernel's own RT threads.
  static constexpr int kRealtimePriority = 1;
  bool on_;
  bool ok_ = false;
};

struct WorkerResult {
  uint64_t ops = 0;
  uint64_t ns = 0;
  uint64_t cpu_ns = 0;  // this worker's CPU time over the same rounds
  int error = 0;        // errno of a failed setup or round; 0 when fine
};

// Rounds until `seconds` passed on this worker's clock, from when it is called.
WorkerResult run_rounds(Worker& w, const NativeRun& run) {
  WorkerResult r;
  const RealtimeScope rt(run.realtime);
  if (rt.refused()) {
    r.error = EPERM;
    return r;
  }
  const uint64_t cpu_start = thread_cpu_ns();
  const uint64_t start = now_ns();
  const uint64_t budget = static_cast<uint64_t>(run.seconds * kNsPerSecond);
  uint64_t elapsed = 0;
  do {
    const uint64_t ops = w.round();
    if (ops == 0) {
      r.error = errno == 0 ? EIO : errno;
      return r;
    }
    r.ops += ops;
    elapsed = now_ns() - start;
  } while (elapsed < budget);
  r.ns = elapsed;
  r.cpu_ns = thread_cpu_ns() - cpu_start;
  return r;
}

NativeSample sample_of(const std::vector<WorkerResult>& results, std::optional<uint64_t> before,
                       std::optional<uint64_t> after) {
  NativeSample s;
  double wall = 0, cpu = 0;
  for (const WorkerResult& r : results) {
    if (r.error != 0 || r.ns == 0) {
      s.error = std::string("a worker failed: ") + std::strerror(r.error != 0 ? r.error : EIO);
      return s;
    }
    s.ops += r.ops;
    s.ops_per_s += static_cast<double>(r.ops) * kNsPerSecond / static_cast<double>(r.ns);
    if (r.cpu_ns > 0) {
      s.ops_per_cpu_s += static_cast<double>(r.ops) * kNsPerSecond / static_cast<double>(r.cpu_ns);
    }
    wall += static_cast<double>(r.ns);
    cpu += static_cast<double>(r.cpu_ns);
  }
  s.busy = wall > 0 ? cpu / wall : 0;
  if (before && after && s.ops > 0) {
    s.ipis_per_op = static_cast<double>(*after - *before) / static_cast<double>(s.ops);
  }
  s.ok = true;
  return s;
}

// Process mode: one forked child per worker; each reports its result through a pipe. The
// children start together when the parent writes the go pipe, after every one is set up.
NativeSample run_processes(const ThroughputLoop& loop, const std::vector<int>& cpus,
                           const NativeRun& run) {
  const size_t n = cpus.size();
  int ready[2], go[2], out[2];
  if (::pipe(ready) != 0 || ::pipe(go) != 0 || ::pipe(out) != 0) return failure("pipe failed");
  std::vector<pid_t> pids;
  for (size_t i = 0; i < n; ++i) {
    const pid_t pid = ::fork();
    if (pid < 0) break;
    if (pid == 0) {
      WorkerResult r;
      Worker w(loop.kind);
      if (!pin_to_cpu(cpus[i]) || !w.setup()) r.error = errno == 0 ? EIO : errno;
      char c = 1;
      (void)!::write(ready[1], &c, 1);
      (void)!::read(go[0], &c, 1);
      if (r.error == 0) r = run_rounds(w, run);
      (void)!::write(out[1], &r, sizeof(r));
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  char c = 0;
  for (size_t i = 0; i < pids.size(); ++i) (void)!::read(ready[0], &c, 1);
  const std::optional<uint64_t> before = read_tlb_shootdowns();
  for (size_t i = 0; i < pids.size(); ++i) (void)!::write(go[1], &c, 1);
  std::vector<WorkerResult> results(pids.size());
  for (WorkerResult& r : results) {
    if (::read(out[0], &r, sizeof(r)) != static_cast<ssize_t>(sizeof(r))) r.error = EIO;
  }
  const std::optional<uint64_t> after = read_tlb_shootdowns();
  for (pid_t p : pids) ::waitpid(p, nullptr, 0);
  for (int fd : {ready[0], ready[1], go[0], go[1], out[0], out[1]}) ::close(fd);
  if (pids.size() != n) return failure("fork failed");
  return sample_of(results, before, after);
}

// Thread mode: one thread per worker in this process (one mm).
NativeSample run_threads(const ThroughputLoop& loop, const std::vector<int>& cpus,
                         const NativeRun& run) {
  const size_t n = cpus.size();
  std::atomic<size_t> ready{0};
  std::atomic<bool> go{false};
  std::vector<WorkerResult> results(n);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      Worker w(loop.kind);
      WorkerResult& r = results[i];
      if (!pin_to_cpu(cpus[i]) || !w.setup()) r.error = errno == 0 ? EIO : errno;
      ready.fetch_add(1);
      while (!go.load()) std::this_thread::yield();
      if (r.error == 0) r = run_rounds(w, run);
    });
  }
  while (ready.load() < n) std::this_thread::yield();
  const std::optional<uint64_t> before = read_tlb_shootdowns();
  go.store(true);
  for (std::thread& t : threads) t.join();
  const std::optional<uint64_t> after = read_tlb_shootdowns();
  return sample_of(results, before, after);
}

// Two threads ping-pong one byte through two pipes; the first counts round trips for `seconds`,
// then closes its write end, which ends the second's read loop.
NativeSample run_ping_pong(const std::vector<int>& cpus, const NativeRun& run) {
  int to_b[2], to_a[2];
  if (::pipe(to_b) != 0 || ::pipe(to_a) != 0) return failure("pipe failed");
  const int cpu_a = cpus.front(), cpu_b = cpus.back();
  std::atomic<int> pinned{0};
  std::thread b([&] {
    if (pin_to_cpu(cpu_b)) pinned.fetch_add(1);
    const RealtimeScope rt(run.realtime);
    char c = 0;
    while (::read(to_b[0], &c, 1) == 1) {
      if (::write(to_a[1], &c, 1) != 1) break;
    }
  });
  AffinityGuard guard;
  if (pin_to_cpu(cpu_a)) pinned.fetch_add(1);
  const std::optional<uint64_t> before = read_tlb_shootdowns();
  WorkerResult r;
  const RealtimeScope rt(run.realtime);
  if (rt.refused()) r.error = EPERM;
  const uint64_t cpu_start = thread_cpu_ns();
  const uint64_t start = now_ns();
  const uint64_t budget = static_cast<uint64_t>(run.seconds * kNsPerSecond);
  char c = 1;
  while (r.error == 0 && r.ns < budget) {
    if (::write(to_b[1], &c, 1) != 1 || ::read(to_a[0], &c, 1) != 1) {
      r.error = errno == 0 ? EIO : errno;
      break;
    }
    ++r.ops;
    r.ns = now_ns() - start;
  }
  r.cpu_ns = thread_cpu_ns() - cpu_start;
  ::close(to_b[1]);
  b.join();
  const std::optional<uint64_t> after = read_tlb_shootdowns();
  for (int fd : {to_b[0], to_a[0], to_a[1]}) ::close(fd);
  if (pinned.load() != 2) return failure("sched_setaffinity refused");
  return sample_of({r}, before, after);
}

}  // namespace

NativeSample run_native_loop(const ThroughputLoop& loop, int workers, const NativeRun& run) {
  const std::vector<int> allowed = allowed_cpu_list();
  if (workers < 1 || run.first_cpu < 0 ||
      static_cast<size_t>(run.first_cpu + workers) > allowed.size()) {
    return failure("not enough CPUs allowed");
  }
  const std::vector<int> cpus(allowed.begin() + run.first_cpu,
                              allowed.begin() + run.first_cpu + workers);
  if (loop.kind == LoopKind::kPingPong) return run_ping_pong(cpus, run);
  // A forked child inherits this thread's affinity; the guard restores it for the parent.
  AffinityGuard guard;
  return loop.threads_share_mm ? run_threads(loop, cpus, run) : run_processes(loop, cpus, run);
}

}  // namespace mmreplay::tools::calibrate
