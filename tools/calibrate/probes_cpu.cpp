// Probes that need two threads: the TLB-shootdown IPI and the waker's IPI.

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

#include "tools/calibrate/probes.h"

namespace mmreplay::tools::calibrate {
namespace {

constexpr size_t kPage = 4096;
constexpr int kMprotectsPerSample = 200;
constexpr int kWakesPerSample = 20;
constexpr int kFutexCallsPerSample = 200;
// How long the waker waits before each wake-up, busy: the sleeper is in FUTEX_WAIT by then and
// its CPU idle, past a guest's halt polling (cpuidle-haltpoll's default window is 200 us, as is
// the host's halt_poll_ns, kvm_vcpu_halt()).
constexpr uint64_t kSleeperIdleNs = 300'000;
// The same wait well inside any polling window: the sleeper is in FUTEX_WAIT (its FUTEX_WAIT
// takes a few us) and its CPU idle a moment.
constexpr uint64_t kSleeperShortIdleNs = 20'000;

// The probe page is written by the measuring thread and read by its Spinner at the same time,
// on purpose: only its translation matters, not its value. Relaxed atomic accesses are the plain
// byte loads and stores that makes on x86, and say so to ThreadSanitizer.
void touch_page(char* page) {
  std::atomic_ref<char>(*page).store(1, std::memory_order_relaxed);
}

// Per-call time of mprotect(PROT_READ) + restore of one written page, the write included.
double time_one_page_flushes(char* page) {
  uint64_t timed = 0;
  for (int i = 0; i < kMprotectsPerSample; ++i) {
    touch_page(page);
    const uint64_t a = now_ns();
    ::mprotect(page, kPage, PROT_READ);
    timed += now_ns() - a;
    ::mprotect(page, kPage, PROT_READ | PROT_WRITE);
  }
  return static_cast<double>(timed) / kMprotectsPerSample;
}

// A sibling of the measuring thread, on `cpu`, busy in the same mm until told to stop.
class Spinner {
 public:
  Spinner(int cpu, char* page)
      : thread_(start_pinned(cpu, &pinned_, [this, page] { run(page); })) {}
  ~Spinner() {
    stop_.store(true);
    thread_.join();
  }
  bool pinned() const { return pinned_; }

 private:
  void run(char* page) {
    // Reads the shared page now and then so that its translation is cached on this CPU too.
    while (!stop_.load(std::memory_order_relaxed))
      (void)std::atomic_ref<char>(*page).load(std::memory_order_relaxed);
  }
  std::atomic<bool> stop_{false};
  bool pinned_ = false;
  std::thread thread_;  // last: it starts once the members it uses are there
};

long futex(std::atomic<uint32_t>* word, int op, uint32_t val) {
  return ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), op, val, nullptr, nullptr, 0);
}

// A thread on `cpu` that sleeps in FUTEX_WAIT on `word` until woken, again and again; `sleeps`
// counts its trips into the wait.
class FutexSleeper {
 public:
  explicit FutexSleeper(int cpu) : thread_(start_pinned(cpu, &pinned_, [this] { run(); })) {}
  ~FutexSleeper() {
    stop_.store(true);
    word.store(1);
    futex(&word, FUTEX_WAKE_PRIVATE, 1);
    thread_.join();
  }
  bool pinned() const { return pinned_; }
  std::atomic<uint32_t> word{0};
  std::atomic<uint64_t> sleeps{0};

 private:
  void run() {
    while (!stop_.load()) {
      sleeps.fetch_add(1);
      while (word.load() == 0) futex(&word, FUTEX_WAIT_PRIVATE, 0);
      word.store(0);
    }
  }
  std::atomic<bool> stop_{false};
  bool pinned_ = false;
  std::thread thread_;  // last: it starts once the members it uses are there
};

// FUTEX_WAKE of a thread asleep on another CPU, idle `idle_ns` before each wake-up, minus
// FUTEX_WAKE of none, on the waker: figure `f`.
Figure wake_after_idle(const ProbeOptions& o, Figure f, uint64_t idle_ns) {
  AffinityGuard guard;
  int a = 0, b = 0;
  if (std::string why = pin_to_first_of_two(&a, &b); !why.empty()) return failed(f, why);
  std::atomic<uint32_t> nobody{0};
  std::vector<double> none;
  for (int r = 0; r < o.repetitions(); ++r) {
    const uint64_t t0 = now_ns();
    for (int i = 0; i < kFutexCallsPerSample; ++i) futex(&nobody, FUTEX_WAKE_PRIVATE, 1);
    none.push_back(static_cast<double>(now_ns() - t0) / kFutexCallsPerSample);
  }
  const Spread base = summarize(none);
  std::vector<double> extra;
  {
    FutexSleeper sleeper(b);
    if (!sleeper.pinned()) {
      f.note = "skipped: could not pin the sleeping thread to CPU " + std::to_string(b);
      return f;
    }
    uint64_t woken = 0;
    for (int r = 0; r < o.repetitions(); ++r) {
      uint64_t timed = 0;
      int counted = 0;
      for (int i = 0; i < kWakesPerSample; ++i) {
        while (sleeper.sleeps.load() <= woken) std::this_thread::yield();
        spin_for(idle_ns);
        sleeper.word.store(1);
        const uint64_t t0 = now_ns();
        const long n = futex(&sleeper.word, FUTEX_WAKE_PRIVATE, 1);
        const uint64_t t1 = now_ns();
        ++woken;
        if (n == 1) {
          timed += t1 - t0;
          ++counted;
        }
      }
      if (counted > 0) extra.push_back(static_cast<double>(timed) / counted - base.median);
    }
  }
  if (extra.empty()) {
    f.note = "skipped: no FUTEX_WAKE found the thread asleep";
    return f;
  }
  f.measured = true;
  f.ns = summarize(extra);
  f.note = "FUTEX_WAKE of none " + std::to_string(static_cast<long>(base.median)) + " ns; CPUs " +
           std::to_string(a) + " and " + std::to_string(b) + "; idle " +
           std::to_string(idle_ns / 1000) +
           " us; try_to_wake_up()'s IPI to the idle CPU (an APIC write, or a guest's exit)";
  return f;
}

}  // namespace

std::vector<Figure> probe_wake_ipi(const ProbeOptions& o) {
  struct Idle {
    const char* key;
    uint64_t ns;
  };
  std::vector<Figure> figures;
  for (const Idle idle :
       {Idle{"wake_ipi", kSleeperIdleNs}, Idle{"wake_ipi_short_idle", kSleeperShortIdleNs}}) {
    const std::string what = "FUTEX_WAKE of a thread asleep on another CPU idle " +
                             std::to_string(idle.ns / 1000) +
                             " us, minus FUTEX_WAKE of none (the waker's time)";
    figures.push_back(wake_after_idle(o, figure_of(idle.key, what, "wake-up"), idle.ns));
  }
  return figures;
}

bool pin_to_cpu(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return ::pthread_setaffinity_np(::pthread_self(), sizeof(set), &set) == 0;
}

int allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return CPU_COUNT(&set);
}

int first_two_allowed_cpus(int* a, int* b) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) != 0) return 0;
  int found = 0;
  for (int c = 0; c < CPU_SETSIZE && found < 2; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    (found == 0 ? *a : *b) = c;
    ++found;
  }
  return found;
}

std::string pin_to_first_of_two(int* a, int* b) {
  if (first_two_allowed_cpus(a, b) < 2) return "fewer than 2 CPUs allowed";
  if (!pin_to_cpu(*a))
    return std::string("sched_setaffinity refused (") + std::strerror(errno) + ")";
  return "";
}

AffinityGuard::AffinityGuard() {
  ok_ = ::sched_getaffinity(0, sizeof(saved_), &saved_) == 0;
}

AffinityGuard::~AffinityGuard() {
  if (ok_) ::sched_setaffinity(0, sizeof(saved_), &saved_);
}

Figure probe_tlb_shootdown(const ProbeOptions& o) {
  Figure f = figure_of(
      "shootdown", "mprotect of 1 page with a sibling spinning on another CPU, minus alone", "IPI");
  AffinityGuard guard;
  int a = 0, b = 0;
  if (std::string why = pin_to_first_of_two(&a, &b); !why.empty()) return failed(f, why);
  void* m = ::mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    f.note = "skipped: mmap failed";
    return f;
  }
  char* page = static_cast<char*>(m);
  std::vector<double> alone, shared, extra;
  for (int r = 0; r < o.repetitions(); ++r) alone.push_back(time_one_page_flushes(page));
  {
    Spinner spinner(b, page);
    if (!spinner.pinned()) {
      ::munmap(m, kPage);
      f.note = "skipped: could not pin the sibling thread to CPU " + std::to_string(b);
      return f;
    }
    for (int r = 0; r < o.repetitions(); ++r) shared.push_back(time_one_page_flushes(page));
  }
  ::munmap(m, kPage);
  const Spread base = summarize(alone);
  for (double s : shared) extra.push_back(s - base.median);
  f.measured = true;
  f.ns = summarize(extra);
  f.note = "alone " + std::to_string(static_cast<long>(base.median)) + " ns/call; CPUs " +
           std::to_string(a) + " and " + std::to_string(b);
  return f;
}

}  // namespace mmreplay::tools::calibrate
