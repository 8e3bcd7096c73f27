// HeapThread: a program thread whose malloc/free/realloc go through a JemallocArena, turned into
// events: chunk mmaps, the purges the arena decides on as madvise calls (MADV_DONTNEED or, with
// --advice free, MADV_FREE: seed 000's question), one per run or grouped into vector calls
// (madvisev(), seed 002), and the munmaps of the cached chunks those purges reach.
//
// The caller emits the accesses (filling a new object, copying on a move) itself, because they
// differ per workload; HeapThread only adds the allocator's user-space costs (user_costs.h).

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/event.h"
#include "tools/gen/jemalloc_model.h"
#include "tools/gen/params.h"
#include "tools/gen/program_thread.h"

namespace mmreplay::gen {

// The arena's tunables as workload parameters (--chunk, --lg-dirty-mult), jemalloc's defaults.
std::vector<ParamSpec> arena_param_specs();
ArenaConfig arena_config_from(const ParamValues& values,
                              PurgeRule purge_rule = PurgeRule::kToThreshold);

// --purge auto|threshold|half: how much one purge pass asks for (PurgeRule). auto is what the
// allocator the workload runs did: jemalloc 4.0 purges down to the threshold; with --vector it is
// jemalloc with seed 002's je.patch, which purges at least half the dirty pages.
ParamSpec purge_rule_param();
PurgeRule purge_rule_from(const ParamValues& values);
// The runs per vector call of --vector by default: je.patch's MAX_IOVEC.
ParamSpec purge_vlen_param();

// --advice dontneed|free: the advice the allocator purges dirty pages with. `shipped` is what the
// real allocator of the workload used, the default (each workload says which and why).
ParamSpec advice_param(uint64_t shipped);
// The MADV_* number of --advice.
uint64_t purge_advice_from(const ParamValues& values);
// For the trace header: "NAME VERSION, purge MADV_X", adding "(shipped: MADV_Y)" when --advice
// changed it.
std::string allocator_label(const std::string& name_version, uint64_t shipped, uint64_t advice);

class HeapThread final : public ChunkSource {
 public:
  // purge_per_call: 1 = one madvise per purged run; n > 1 = vector calls of up to n runs.
  // purge_advice: MADV_DONTNEED or MADV_FREE (--advice).
  HeapThread(ProgramThread* thread, ArenaConfig config, uint64_t purge_per_call,
             uint64_t purge_advice);

  ProgramThread& thread() { return *thread_; }
  const JemallocArena& arena() const { return arena_; }

  // Returns the new object's address, 0 when out of address space (thread().status() says why).
  uint64_t malloc(uint64_t bytes);
  void free(uint64_t addr, uint64_t bytes);

  struct Resized {
    uint64_t addr = 0;
    bool moved = false;  // true: data copied from the old address, which is now free
  };
  // realloc(): in place when the arena can, else malloc + copy (touches) + free.
  Resized realloc(uint64_t addr, uint64_t old_bytes, uint64_t new_bytes);

  uint64_t map_chunk(uint64_t bytes, uint64_t align) override;
  void unmap_chunk(uint64_t addr, uint64_t bytes) override;

 private:
  void purge_pending();

  ProgramThread* thread_;  // not owned
  JemallocArena arena_;
  uint64_t purge_per_call_;
  uint64_t purge_advice_;
  std::vector<PurgePass> passes_;
};

}  // namespace mmreplay::gen
