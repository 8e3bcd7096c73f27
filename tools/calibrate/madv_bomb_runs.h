// Seed 000's madv-bomb run two ways on this machine, for `validate --real --pressure` and
// `calibrate --reclaim`: natively inside a memory cgroup (pressure_sandbox.h), and by the model
// from `gen madv-bomb`'s trace of the same shape with the same limit.

#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "replay/run.h"
#include "tools/calibrate/pressure_sandbox.h"

namespace mmreplay::tools::calibrate {

// P processes each write a region a byte a page and advise it away, L times, in one memcg.
struct MadvBombShape {
  uint32_t processes = 4;
  uint64_t region_bytes = uint64_t{128} << 20;  // per process
  uint32_t loops = 5;
  uint64_t memcg_limit_bytes = uint64_t{256} << 20;
};

// What a run of it did: natively from wait4() and /proc/vmstat, or the model's counters.
struct BombFigures {
  double seconds = 0;      // wall time / makespan
  double cpu_seconds = 0;  // user + system / the processes' busy time (kswapd's left out)
  uint64_t faults = 0;
  uint64_t swapouts = 0;
  uint64_t swapins = 0;
  uint64_t lazyfreed = 0;  // clean lazyfree pages discarded by reclaim
  // Lazily freed pages written again before reclaim took them: writes that took no fault. The
  // model counts them (lazyfree_reused); natively they are the pages written less the faults
  // (bomb_page_writes() - faults, 0 when the faults exceed the writes), an estimate that
  // the few faults of process start-up blur.
  uint64_t reused = 0;
  uint64_t scanned = 0;  // pages reclaim isolated (the model's; natively 0)
  // TLB-shootdown interrupts every CPU took: natively the "TLB:" line of /proc/interrupts over
  // the run (the whole machine's: the bomb is most of it on a quiet one), the model's
  // tlb_ipis_received. Reclaim's unmaps send most of them (kernelsim knob reclaim_tlb_flush).
  uint64_t tlb_ipis = 0;
  bool tlb_ipis_known = false;  // natively: the kernel counts them (x86)
};

// The pages the bomb writes: a byte a page of every region in every loop.
uint64_t bomb_page_writes(const MadvBombShape& shape);

// "dontneed" or "free": the advice's name in `gen madv-bomb --advice`.
const char* advice_name(bool free);

// Runs the bomb natively, its processes in `memcg`. Errors: fork failures, a process that failed.
Status run_native_bomb(const MadvBombShape& shape, const MemcgSandbox& memcg, bool free,
                       BombFigures* out);

// Writes gen's madv-bomb of `shape` (--write byte) to `path`.
Status write_bomb_trace(const MadvBombShape& shape, bool free, const std::string& path);

// The model's machine for the bomb: this machine's CPUs, `swap_bytes` of swap, the shape's memcg
// limit inside 4x that memory (room beyond the limit, as the machine has: the limit is what
// reclaims), and a memory controller when the policy has none. Returns true when it turned memcg
// on (memcg=page_counter).
bool set_bomb_machine(const MadvBombShape& shape, uint64_t swap_bytes, replay::RunSpec* spec);

// Replays the trace at `path` with `spec` (set_bomb_machine(), then costs as the caller wants).
Status run_model_bomb(const replay::RunSpec& spec, const std::string& path, BombFigures* out);

}  // namespace mmreplay::tools::calibrate
