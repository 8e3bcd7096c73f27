#include "formats/parallel_decode.h"

#include <tbb/concurrent_queue.h>
#include <tbb/parallel_pipeline.h>

#include <atomic>
#include <memory>
#include <mutex>

#include "common/tsan_handoff.h"

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
  // What the filters share. It reaches TBB's threads, tokens pass between filters, and a serial
  // filter's calls move between threads, all through TBB, which TSan cannot see into
  // (common/tsan_handoff.h): `next` and `first_error` stand for each serial filter's state.
  struct Shared {
    const TraceReader& reader;
    std::span<const uint32_t> ids;
    const std::function<bool(const DecodedChunk&)>& sink;
    // Slots are recycled through a free list so decoded storage is reused, not reallocated.
    std::vector<std::unique_ptr<Slot>> storage;
    tbb::concurrent_queue<Slot*> free_slots;
    size_t next = 0;
    std::atomic<bool> stop{false};
    Status first_error;
  } shared{reader, ids, sink, {}, {}, 0, {false}, {}};
  for (size_t i = 0; i < max_in_flight; ++i) {
    shared.storage.push_back(std::make_unique<Slot>());
    shared.free_slots.push(shared.storage.back().get());
  }
  const TbbShared<Shared> state(&shared);

  tbb::parallel_pipeline(
      max_in_flight,
      tbb::make_filter<
          void, Slot*>(tbb::filter_mode::serial_in_order, [state](tbb::flow_control& fc) -> Slot* {
        Shared& s = *state;
        tsan_observe(&s.next);
        Slot* slot = nullptr;
        if (s.next >= s.ids.size() || s.stop.load(std::memory_order_relaxed) ||
            !s.free_slots.try_pop(slot)) {
          fc.stop();
          tsan_publish(&s.next);
          return nullptr;
        }
        tsan_observe(slot);
        slot->id = s.ids[s.next++];
        tsan_publish(&s.next);
        tsan_publish(slot);
        return slot;
      }) & tbb::make_filter<Slot*, Slot*>(tbb::filter_mode::parallel, [state](Slot* slot) {
        const Shared& s = *state;
        tsan_observe(slot);
        const auto& chunks = s.reader.chunks();
        slot->status = slot->id < chunks.size() ? s.reader.decode(chunks[slot->id], &slot->chunk)
                                                : Status::invalid_argument("chunk id out of range");
        tsan_publish(slot);
        return slot;
      }) & tbb::make_filter<Slot*, void>(tbb::filter_mode::serial_in_order, [state](Slot* slot) {
        Shared& s = *state;
        tsan_observe(slot);
        tsan_observe(&s.first_error);
        if (!s.stop.load(std::memory_order_relaxed)) {
          if (!slot->status) {
            s.first_error = slot->status;
            s.stop = true;
          } else if (!s.sink(slot->chunk)) {
            s.stop = true;
          }
        }
        tsan_publish(slot);
        s.free_slots.push(slot);
        tsan_publish(&s.first_error);  // last: the caller's reads and reuse come after
      }));
  tsan_observe(&shared.next);
  tsan_observe(&shared.first_error);
  return shared.first_error;
}

}  // namespace mmreplay::formats
