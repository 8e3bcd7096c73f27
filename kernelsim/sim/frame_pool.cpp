#include "kernelsim/sim/frame_pool.h"

#include <cassert>
#include <new>

namespace mmreplay::kernelsim {

FramePool::~FramePool() {
  assert(live_ == 0 && "invariant (2): a frame outlived its simulation");
  for (Block*& head : free_) {
    while (head != nullptr) {
      Block* b = head;
      head = b->next;
      ::operator delete(b);
    }
  }
}

void* FramePool::allocate(size_t n) {
  const size_t cls = (n + sizeof(Header) + kClassBytes - 1) / kClassBytes;
  if (cls >= kClasses) return allocate_unpooled(n);
  void* raw;
  if (Block* b = free_[cls]; b != nullptr) {
    free_[cls] = b->next;
    raw = b;
  } else {
    const size_t bytes = cls * kClassBytes;
    raw = ::operator new(bytes);
  }
  ++live_;
  auto* h = static_cast<Header*>(raw);
  h->pool = this;
  h->size_class = cls;
  return h + 1;
}

void* FramePool::allocate_unpooled(size_t n) {
  auto* h = static_cast<Header*>(::operator new(n + sizeof(Header)));
  h->pool = nullptr;
  h->size_class = 0;
  return h + 1;
}

void FramePool::deallocate(void* frame) noexcept {
  Header* h = static_cast<Header*>(frame) - 1;
  FramePool* pool = h->pool;
  if (pool == nullptr) {
    ::operator delete(h);
    return;
  }
  assert(pool->live_ > 0 && h->size_class < kClasses && "invariant (1)");
  --pool->live_;
  const size_t cls = h->size_class;
  auto* b = reinterpret_cast<Block*>(h);
  b->next = pool->free_[cls];
  pool->free_[cls] = b;
}

}  // namespace mmreplay::kernelsim
