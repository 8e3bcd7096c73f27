// AddressOrder: the orders between threads of one address space that the addresses themselves
// impose, for the importer to turn into wake-up edges (issue 19).
//
// Replay keeps each thread's own order and the recorded clone, futex and wait4 orders; threads
// otherwise replay at their own pace. A thread that uses a range another thread mapped (jemalloc
// purges an extent that another thread's arena mmapped; a worker faults in a buffer the main
// thread mmapped after starting it) must not get there first, or its madvise fails with -ENOMEM
// and its faults SEGV. The kernel orders these through the mm itself (mmap_lock, the VMA tree);
// the trace orders them only by time.
//
// The resolver feeds the calls of each mm in recorded time order. Every call that changes the
// mappings of a range (mmap, munmap, mremap, brk, mprotect, shmat) is the range's last change
// from then on; a later call or fault on the range by another thread (madvise, munmap,
// mprotect, mremap, a fault, or a change of its own) is ordered after that last change: one
// edge from the change to the use. Only the first use of a change by each other thread gets an
// edge (later ones follow in that thread's own order), and none where the using thread was
// created after the change by the changing thread (or one of its ancestors), which the clone
// order already gives. So the edges stay few: one per (change, thread) pair that really crosses.
//
// Invariants: (1) the spans of one mm are disjoint; (2) every edge goes from a change to a use
// by another thread that came later in recorded time; (3) a (change, thread) pair gives at most
// one edge.

#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace mmreplay::formats::detail {

// An item of the resolver: a thread (stream) and its index in that thread's items.
struct ItemRef {
  uint32_t thread = 0;
  uint32_t index = 0;
};

// `to` must not replay before `from` has.
struct OrderEdge {
  ItemRef from;
  ItemRef to;
};

class AddressOrder {
 public:
  // Whether `user` is already ordered after `change` without an edge (the clone order).
  using Implied = std::function<bool(ItemRef change, uint32_t user)>;
  explicit AddressOrder(Implied implied) : implied_(std::move(implied)) {}

  // `by` used [start, end) of `mm` (a fault: one byte): an edge to it from the range's last change
  // by another thread, for each change `by`'s thread is not yet ordered after.
  void use(uint64_t mm, uint64_t start, uint64_t end, ItemRef by);
  // `by` changed the mappings of [start, end): a use first, then the range's last change.
  void change(uint64_t mm, uint64_t start, uint64_t end, ItemRef by);

  const std::vector<OrderEdge>& edges() const { return edges_; }

 private:
  struct Change {
    ItemRef by;
    std::vector<uint32_t> ordered;  // threads with an edge from it (3)
  };
  struct Span {
    uint64_t end = 0;
    uint32_t change = 0;  // index in changes_
  };
  using Spans = std::map<uint64_t, Span>;  // start -> span (1)

  Implied implied_;
  std::map<uint64_t, Spans> mms_;
  std::vector<Change> changes_;
  std::vector<OrderEdge> edges_;
};

}  // namespace mmreplay::formats::detail
