#include "formats/parallel_decode.h"

#include <tbb/concurrent_queue.h>
#include <tbb/parallel_pipeline.h>

#include <atomic>
#include <memory>
#include <mutex>

namespace mmreplay::formats {
namespace {

// One token of the pipeline: which chunk, its decoded form, and how decoding went.
struct Slot {
  uint32_t id = 0;
  DecodedChunk chunk;
  Status status;
};

}  // namespace

Status decode_in_order(const TraceReader& reader, std::span<const uint32_t> ids,
                       size_t max_in_flight, const std::function<bool(const DecodedChunk&)>& sink) {
  if (ids.empty()) return Status::ok();
  if (max_in_flight == 0) max_in_flight = 1;
  // Slots are recycled through a free list so decoded storage is reused, not reallocated.
  std::vector<std::unique_ptr<Slot>> storage;
  tbb::concurrent_queue<Slot*> free_slots;
  for (size_t i = 0; i < max_in_flight; ++i) {
    storage.push_back(std::make_unique<Slot>());
    free_slots.push(storage.back().get());
  }
  size_t next = 0;
  std::atomic<bool> stop{false};
  Status first_error;

  tbb::parallel_pipeline(
      max_in_flight,
      tbb::make_filter<
          void, Slot*>(tbb::filter_mode::serial_in_order, [&](tbb::flow_control& fc) -> Slot* {
        Slot* slot = nullptr;
        if (next >= ids.size() || stop.load(std::memory_order_relaxed) ||
            !free_slots.try_pop(slot)) {
          fc.stop();
          return nullptr;
        }
        slot->id = ids[next++];
        return slot;
      }) & tbb::make_filter<Slot*, Slot*>(tbb::filter_mode::parallel, [&](Slot* slot) {
        const auto& chunks = reader.chunks();
        slot->status = slot->id < chunks.size() ? reader.decode(chunks[slot->id], &slot->chunk)
                                                : Status::invalid_argument("chunk id out of range");
        return slot;
      }) & tbb::make_filter<Slot*, void>(tbb::filter_mode::serial_in_order, [&](Slot* slot) {
        if (!stop.load(std::memory_order_relaxed)) {
          if (!slot->status) {
            first_error = slot->status;
            stop = true;
          } else if (!sink(slot->chunk)) {
            stop = true;
          }
        }
        free_slots.push(slot);
      }));
  return first_error;
}

}  // namespace mmreplay::formats
