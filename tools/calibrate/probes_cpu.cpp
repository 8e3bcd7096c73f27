// Probes that need two threads: the TLB-shootdown IPI.

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
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
  Spinner(int cpu, char* page) : thread_([this, cpu, page] { run(cpu, page); }) {
    while (state_.load() == kStarting) std::this_thread::yield();
  }
  ~Spinner() {
    stop_.store(true);
    thread_.join();
  }
  bool pinned() const { return state_.load() == kPinned; }

 private:
  static constexpr int kStarting = 0, kPinned = 1, kUnpinned = 2;
  void run(int cpu, char* page) {
    state_.store(pin_to_cpu(cpu) ? kPinned : kUnpinned);
    // Reads the shared page now and then so that its translation is cached on this CPU too.
    while (!stop_.load(std::memory_order_relaxed))
      (void)std::atomic_ref<char>(*page).load(std::memory_order_relaxed);
  }
  std::atomic<int> state_{kStarting};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace

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

AffinityGuard::AffinityGuard() {
  ok_ = ::sched_getaffinity(0, sizeof(saved_), &saved_) == 0;
}

AffinityGuard::~AffinityGuard() {
  if (ok_) ::sched_setaffinity(0, sizeof(saved_), &saved_);
}

Figure probe_tlb_shootdown(const ProbeOptions& o) {
  Figure f = figure_of(
      "shootdown", "mprotect of 1 page with a sibling spinning on another CPU, minus alone", "IPI");
  int a = 0, b = 0;
  if (first_two_allowed_cpus(&a, &b) < 2) {
    f.note = "skipped: fewer than 2 CPUs allowed";
    return f;
  }
  AffinityGuard guard;
  if (!pin_to_cpu(a)) {
    f.note = std::string("skipped: sched_setaffinity refused (") + std::strerror(errno) + ")";
    return f;
  }
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
