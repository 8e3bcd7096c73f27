// Allocator calls as events; see heap_thread.h.

#include "tools/gen/heap_thread.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "tools/gen/user_costs.h"

namespace mmreplay::gen {

// Chunks smaller than 8 pages leave no room for runs next to the header; 1 GiB is far above any
// jemalloc chunk size (opt.lg_chunk tops out well below that in practice).
constexpr uint64_t kMinChunkBytes = 8 * kPageSize;
constexpr uint64_t kMaxChunkBytes = 1ull << 30;
// lg_dirty_mult above 20 would purge only past a million active pages per dirty page: off.
constexpr uint64_t kMaxLgDirtyMult = 20;

namespace {

ParamSpec chunk_param() {
  ParamSpec chunk = bytes_param("chunk", "2M", "jemalloc chunk (opt.lg_chunk 21), a power of two",
                                kMinChunkBytes);
  chunk.power_of_two = true;  // chunks are mapped aligned to their size
  return chunk;
}

}  // namespace

std::vector<ParamSpec> arena_param_specs() {
  return {
      chunk_param(),
      count_param("lg-dirty-mult", kJemallocLgDirtyMult, "log2",
                  "purge when dirty pages > active >> this (opt.lg_dirty_mult)", 0,
                  kMaxLgDirtyMult),
  };
}

ArenaConfig arena_config_from(const ParamValues& values, PurgeRule purge_rule) {
  ArenaConfig config;
  config.purge_rule = purge_rule;
  uint64_t chunk = std::min(values.bytes("chunk"), kMaxChunkBytes);
  // Round down to a power of two: chunks are mapped aligned to their size.
  config.chunk_bytes = uint64_t{1} << (63 - __builtin_clzll(chunk));
  config.lg_dirty_mult = static_cast<uint32_t>(values.count("lg-dirty-mult"));
  return config;
}

namespace {

std::string_view advice_name(uint64_t advice) {
  return advice == formats::kMadvFree ? "free" : "dontneed";
}

std::string madv_name(uint64_t advice) {
  return advice == formats::kMadvFree ? "MADV_FREE" : "MADV_DONTNEED";
}

}  // namespace

ParamSpec purge_rule_param() {
  return choice_param("purge", {"auto", "threshold", "half"},
                      "pages one purge pass asks for: threshold = dirty - (active >> "
                      "lg-dirty-mult) (jemalloc 4.0), half = at least half the dirty pages "
                      "(seed 002's je.patch), auto = half with --vector, else threshold");
}

PurgeRule purge_rule_from(const ParamValues& values) {
  const std::string& rule = values.choice("purge");
  if (rule == "half") return PurgeRule::kAtLeastHalf;
  if (rule == "threshold") return PurgeRule::kToThreshold;
  return values.flag("vector") ? PurgeRule::kAtLeastHalf : PurgeRule::kToThreshold;
}

ParamSpec purge_vlen_param() {
  return shared_params::vlen(kJePatchMaxIovec,
                             "most runs per vector call (je.patch's MAX_IOVEC: 32)");
}

ParamSpec advice_param(uint64_t shipped) {
  // The shipped advice comes first: a choice parameter's first value is its default.
  std::vector<std::string> choices = {"dontneed", "free"};
  if (shipped == formats::kMadvFree) std::swap(choices[0], choices[1]);
  return choice_param("advice", std::move(choices),
                      "advice the allocator purges with (default: what it shipped with, " +
                          std::string(advice_name(shipped)) + ")");
}

uint64_t purge_advice_from(const ParamValues& values) {
  return values.choice("advice") == "free" ? formats::kMadvFree : formats::kMadvDontNeed;
}

std::string allocator_label(const std::string& name_version, uint64_t shipped, uint64_t advice) {
  std::string label = name_version + ", purge " + madv_name(advice);
  if (advice != shipped) label += " (shipped: " + madv_name(shipped) + ")";
  return label;
}

HeapThread::HeapThread(ProgramThread* thread, ArenaConfig config, uint64_t purge_per_call,
                       uint64_t purge_advice)
    : thread_(thread),
      arena_(config, this),
      purge_per_call_(purge_per_call),
      purge_advice_(purge_advice) {}

uint64_t HeapThread::map_chunk(uint64_t bytes, uint64_t align) {
  return thread_->mmap_anon(bytes, align);
}

void HeapThread::unmap_chunk(uint64_t addr, uint64_t bytes) {
  thread_->munmap(addr, bytes);
}

// Each pass's purges, then its unmaps: arena_purge_stashed() runs before arena_unstash_purged().
void HeapThread::purge_pending() {
  for (const PurgePass& pass : passes_) {
    // pages_purge() in jemalloc 4.0 on Linux is madvise(MADV_DONTNEED); --advice free asks what
    // MADV_FREE would have done instead (seed 000).
    if (!pass.purged.empty()) thread_->madvise_ranges(pass.purged, purge_advice_, purge_per_call_);
    for (const formats::Range& extent : pass.unmapped) thread_->munmap(extent.addr, extent.len);
  }
  passes_.clear();
}

uint64_t HeapThread::malloc(uint64_t bytes) {
  thread_->spend(user_cost::kMallocNs);
  return arena_.allocate(bytes);
}

void HeapThread::free(uint64_t addr, uint64_t bytes) {
  thread_->spend(user_cost::kFreeNs);
  arena_.deallocate(addr, bytes, &passes_);
  purge_pending();
}

HeapThread::Resized HeapThread::realloc(uint64_t addr, uint64_t old_bytes, uint64_t new_bytes) {
  thread_->spend(user_cost::kReallocNs);
  if (arena_.resize_in_place(addr, old_bytes, new_bytes, &passes_)) {
    purge_pending();
    return Resized{addr, false};
  }
  uint64_t moved_to = malloc(new_bytes);
  if (moved_to == 0) return Resized{};
  uint64_t copied = std::min(old_bytes, new_bytes);
  thread_->touch(addr, copied, /*write=*/false, user_cost::kReadPageNs);
  thread_->touch(moved_to, copied, /*write=*/true, user_cost::kCopyPageNs);
  free(addr, old_bytes);
  return Resized{moved_to, true};
}

}  // namespace mmreplay::gen
