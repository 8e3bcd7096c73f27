// The small real programs that calibrate runs in-process on this machine, one per figure. Each
// repeats its measurement and returns the median and spread per unit (call, page, fault, switch).
// A probe that cannot run here (no swap, affinity refused) returns measured = false and a note.
//
// They use Linux syscalls directly (mmap, madvise, mprotect, sched_setaffinity, pipes); nothing
// here is model code. Figures are wall-clock times and vary from run to run: no test asserts one.

#pragma once

#include <sched.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tools/calibrate/sample_stats.h"

namespace mmreplay::tools::calibrate {

struct ProbeOptions {
  bool quick = false;  // few repetitions and small regions (tests): seconds, not minutes
  int repetitions() const { return quick ? 9 : 41; }
  size_t region_pages() const { return quick ? 64 : 256; }
};

struct Figure {
  std::string key;   // "syscall", "anon_fault", ... (what profile_fit reads)
  std::string what;  // what was timed, for the table
  std::string unit;  // "call", "page", "fault", "switch", ...
  bool measured = false;
  Spread ns;         // per unit
  std::string note;  // how it was derived, or why it was skipped
};

// A figure not measured yet (measured = false, no note).
inline Figure figure_of(std::string key, std::string what, std::string unit) {
  Figure f;
  f.key = std::move(key);
  f.what = std::move(what);
  f.unit = std::move(unit);
  return f;
}

// `f` marked not measured, with why in its note ("skipped: why", as the probes that set their
// notes themselves write it): what a probe returns when it cannot run here.
inline Figure failed(Figure f, const std::string& why) {
  f.measured = false;
  f.note = "skipped: " + why;
  return f;
}

// syscall(SYS_getppid), per call.
Figure probe_syscall(const ProbeOptions& o);
// Write to each page of a fresh anonymous mapping (THP off): per page, one fault with zeroing.
Figure probe_anon_fault(const ProbeOptions& o);
// The same write to each page of a fresh mapping of kFreshRegionPages, each repetition a new
// one: more pages than the CPU's caches hold, zeroed cold (clear_page_cold, mm/page_alloc.h).
inline constexpr size_t kFreshRegionPages = 4096;  // 16 MiB, as record's fault probe
Figure probe_anon_fault_fresh(const ProbeOptions& o);
// The same write to each page of a mapping of each of kReuseRegionPages, unmapped and mapped
// again: the pages come back off the CPU's list, last freed first, and the size at which a page
// costs as much as a fresh one is how many of them the caches kept (pcp_hot_window). One figure
// per size, keyed reuse_figure_key(pages).
inline constexpr size_t kReuseRegionPages[] = {512, 1024, 2048, 4096, 8192, 16384};
inline std::string reuse_figure_key(size_t pages) {
  return "anon_fault_reuse_" + std::to_string(pages);
}
inline std::string reuse_figure_what(size_t pages) {
  return "write to each page of a " + std::to_string(pages * 4 / 1024) +
         " MiB mapping, unmapped and mapped again";
}
std::vector<Figure> probe_anon_fault_reuse(const ProbeOptions& o);
Figure probe_populate(const ProbeOptions& o);
// Read each page of a shared mapping of a file in the page cache: per fault (ru_minflt).
Figure probe_file_fault(const ProbeOptions& o);
// madvise(MADV_DONTNEED) of populated pages: the per-page slope between two region sizes.
Figure probe_madvise_dontneed(const ProbeOptions& o);
// munmap of a one-page mapping (populated), per call; and the extra cost of unmapping the middle
// page of three (two VMA splits), per split.
std::vector<Figure> probe_munmap(const ProbeOptions& o);
// mprotect(PROT_READ) of populated writable pages: per-page slope at <= 32 pages (one INVLPG per
// page, tlb_single_page_flush_ceiling = 33) and above it (one full flush), and the full flush
// (the difference of the two intercepts).
std::vector<Figure> probe_mprotect(const ProbeOptions& o);
// mprotect of one page while a sibling thread spins on another CPU in the same mm, minus the
// same with no sibling: one TLB-shootdown IPI round trip.
Figure probe_tlb_shootdown(const ProbeOptions& o);
// FUTEX_WAKE of a thread asleep on another CPU, minus FUTEX_WAKE of a word no one waits on, on
// the waker: try_to_wake_up()'s IPI to the idle CPU, its sender's part (per wake-up). "wake_ipi"
// with that CPU idle 300 us (past a guest's halt polling), "wake_ipi_short_idle" with it idle
// 20 us: CostProfile::ipi_send is the second, deep_idle_ipi_send the difference.
std::vector<Figure> probe_wake_ipi(const ProbeOptions& o);
// A write to each page of a populated mapping after MADV_FREE left it mapped, old and clean,
// minus the same write to dirty pages, per page: the page walk setting the bits again.
Figure probe_pte_ad_update(const ProbeOptions& o);
// Pipe ping-pong on one CPU between two threads ("context_switch", per switch) and between two
// processes, minus the threads' ("switch_mm", per switch: the mm switch of a process switch).
std::vector<Figure> probe_context_switch(const ProbeOptions& o);
// write() then read() of kPipeSmallBytes and of kPipeBlockBytes through a pipe on one thread,
// neither waiting (the pipe has room, then data), per pair each.
inline constexpr size_t kPipeSmallBytes = 1;
inline constexpr size_t kPipeBlockBytes = 65536;  // a new pipe's capacity: PIPE_DEF_BUFFERS pages
std::vector<Figure> probe_pipe_rw(const ProbeOptions& o);
// write() then read() of kPipeSmallBytes through a connected AF_UNIX stream socketpair on one
// thread, neither waiting, per pair.
Figure probe_socket_rw(const ProbeOptions& o);
// write() of kPipeBlockBytes blocks into a connected AF_UNIX stream socketpair whose reader, a
// thread pinned to another CPU, takes them as they come without sleeping (recv() MSG_DONTWAIT in
// a loop): the writer's CPU time per write, its data crossing CPUs (kernelsim/fs/stream_sides.h).
Figure probe_socket_stream_remote(const ProbeOptions& o);
// Pipe ping-pong of kPipeSmallBytes between two threads pinned to two CPUs: each read waits for
// the other thread's write, so a round trip is two cross-CPU wake-ups of a sleeping reader, two
// writes and two reads; per round trip.
Figure probe_wakeup(const ProbeOptions& o);
// The same ping-pong with the partner's CPU idle a moment and 2 ms before each wake-up (per
// round trip, the 2 ms taken out), and, where the two differ, the idle time from which a
// wake-up is the slow one (a bisection on the idle; CostProfile::deep_idle_after).
std::vector<Figure> probe_deep_idle(const ProbeOptions& o);
// A swap-in read of one page (probes_swap.cpp): "swap_in", the time a major fault on a page
// pushed out with MADV_PAGEOUT waits (wall less CPU), and "swap_read_cpu", its CPU time less a
// swap-cache hit's, per read. Root and swap only; skipped otherwise.
std::vector<Figure> probe_swap_in(const ProbeOptions& o);
// One repetition of it: pass A (swap cache emptied: major faults) and pass B (swap cache kept).
struct SwapInSample {
  uint64_t wall_a_ns = 0;
  uint64_t cpu_a_ns = 0;
  long major_a = 0;
  long minor_a = 0;
  uint64_t cpu_b_ns = 0;
  long major_b = 0;
  long minor_b = 0;
};
// The two figures from the repetitions over `pages` pages. A repetition is left out when pass A
// read back fewer than 90% of its pages (its swap cache was not emptied: the hits it took are
// charged at pass B's rate otherwise) or pass B read from swap at all beyond 10% of its pages (a
// device with no swap cache, as zram's synchronous reads since 4.15, has no hit to compare with).
std::vector<Figure> swap_figures(const std::vector<SwapInSample>& samples, size_t pages);
// zram's costs when it is the swap device (probes_zram.cpp): "zram_read", a swap-in's CPU time
// a major fault beyond a zero-filled fault's, and "zram_write", MADV_PAGEOUT's CPU time a page.
// Skipped unless the highest-priority swap area is a zram device.
std::vector<Figure> probe_zram(const ProbeOptions& o);
// One repetition of it over the region's pages.
struct ZramSample {
  uint64_t zero_cpu_ns = 0;  // Z: writes to dropped pages
  long zero_faults = 0;
  uint64_t pageout_cpu_ns = 0;  // O: MADV_PAGEOUT of the region
  uint64_t read_cpu_ns = 0;     // A: reads of the pages pushed out
  long read_major = 0;
};
// The two figures from the repetitions over `pages` pages; a repetition is left out when fewer
// than 90% of its pages took a zero-filled fault or a major fault on the read back.
std::vector<Figure> zram_figures(const std::vector<ZramSample>& samples, size_t pages);
// Reads `fd` (a child's pipe) to its end into *text; false when it has not ended within
// `timeout_ms` milliseconds (the caller kills the child) or a read fails.
bool read_until_eof(int fd, int timeout_ms, std::string* text);

// mmap of one anonymous page into a hole between PROT_NONE pages, and munmap of it (never
// touched), per call each.
std::vector<Figure> probe_mmap_munmap(const ProbeOptions& o);
// mremap growing a 4-page mapping by one page into a free page after it, per call.
Figure probe_mremap_expand(const ProbeOptions& o);
// mremap(MREMAP_MAYMOVE) of kMremapMoveFew and kMremapMoveMany written pages with a mapping right
// after them (so they move), per call each.
inline constexpr size_t kMremapMoveFew = 2;
inline constexpr size_t kMremapMoveMany = 32;  // under tlb_single_page_flush_ceiling (33)
std::vector<Figure> probe_mremap_move(const ProbeOptions& o);
// read() of kReadFew and kReadMany pages of a file in the page cache (per call each), and a
// memcpy of 4 KiB from a buffer as large as the file (per page).
inline constexpr size_t kReadFew = 1;
inline constexpr size_t kReadMany = 16;  // one filemap_get_read_batch() (up to 31 folios)
std::vector<Figure> probe_cached_read(const ProbeOptions& o);
// read() in 1 MiB calls of a file dropped from the page cache (POSIX_FADV_DONTNEED) before each
// pass, per page: the device through readahead (probes_read.cpp).
std::vector<Figure> probe_cold_read(const ProbeOptions& o);
Figure probe_cold_random_read(const ProbeOptions& o);
// pwrite() of one cached page of a scratch file and fdatasync(), per call; fdatasync() of
// kSyncManyPages pages written just before, per call; pwrite() of a page past the file's end and
// fdatasync(), per call (probes_read.cpp).
inline constexpr size_t kSyncManyPages = 2048;  // 8 MiB
std::vector<Figure> probe_fdatasync(const ProbeOptions& o);
// ftruncate() to 0 of cached pages: 2048 dirty, per page; 16 and 2048 clean (their blocks on the
// disk), per call (probes_read.cpp).
inline constexpr size_t kTruncateManyPages = 2048;
inline constexpr size_t kTruncateFewPages = 16;
std::vector<Figure> probe_truncate(const ProbeOptions& o);
// read() of kReadMany pages of a cached file into never-touched memory (faults taken in the
// kernel), into faulted-in memory not in the caches, and into one hot buffer; per page each
// (probes_kernel_fault.cpp).
std::vector<Figure> probe_kernel_fault(const ProbeOptions& o);
// fork() of a written region: the child's write to each shared page (a COW copy, per fault), the
// parent's write to each page after the child exited (a write-protect fault that reuses the page,
// per fault), and fork()'s time per pte of the region (probes_fork.cpp).
std::vector<Figure> probe_fork(const ProbeOptions& o);

// Pins the calling thread to `cpu`; false (errno kept) when the kernel or container refuses.
bool pin_to_cpu(int cpu);
// CPUs this process may run on.
int allowed_cpus();
// The first two CPUs this process may run on, in *a and *b; returns how many were found (0-2).
int first_two_allowed_cpus(int* a, int* b);
// Pins the calling thread to the first of the first two CPUs it may run on (*a), the other in
// *b; returns why it could not, as failed() takes it ("" when pinned). Hold an AffinityGuard.
std::string pin_to_first_of_two(int* a, int* b);

// Starts `body` on a thread pinned to CPU `cpu`, once the pin is done (*pinned: whether the kernel
// took it; `body` runs either way and must end when its owner tells it to).
template <typename Body>
std::thread start_pinned(int cpu, bool* pinned, Body body) {
  std::atomic<int> state{-1};
  std::thread thread([cpu, &state, body = std::move(body)]() mutable {
    state.store(pin_to_cpu(cpu) ? 1 : 0);  // the last use of `state`, which the caller waits for
    body();
  });
  while (state.load() < 0) std::this_thread::yield();
  *pinned = state.load() == 1;
  return thread;
}

// Restores the calling thread's affinity when a probe that pinned it ends.
class AffinityGuard {
 public:
  AffinityGuard();
  ~AffinityGuard();
  AffinityGuard(const AffinityGuard&) = delete;
  AffinityGuard& operator=(const AffinityGuard&) = delete;

 private:
  cpu_set_t saved_{};
  bool ok_ = false;
};

}  // namespace mmreplay::tools::calibrate
