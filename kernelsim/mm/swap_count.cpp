// Models the swap count of entries fork shares (mm/swapfile.c swap_duplicate(),
// __swap_entry_free()) and what do_swap_page() and try_to_unmap() do with such an entry.

#include "kernelsim/mm/swap_count.h"

#include <algorithm>
#include <cassert>
#include <memory>

#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/pgtable.h"
#include "kernelsim/mm/swapfile.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

constexpr uint8_t kSharedSwapPte = pte::kSwapped | pte::kCowShared;

// A holder's pte, or nullptr while its VMA is out of the tree (a munmap's detached range before
// its zap, an mremap's moved VMA before its insertion).
uint8_t* pte_ptr(Mm& mm, uint64_t addr) {
  Vma* v = mm.vmas.vma_lookup(addr);
  return v == nullptr ? nullptr : &v->ptes.ref(addr);
}

// The fork peers whose pte at addr maps the owner's fork-shared page without owning it (the
// pages cow_sharer() finds, all of them).
template <typename Fn>
void for_each_peer_mapping(Mm& owner, uint64_t addr, Fn fn) {
  for (Mm* peer : owner.cow_peers) {
    if (peer->dead) continue;
    Vma* v = peer->vmas.vma_lookup(addr);
    if (v == nullptr) continue;
    const uint8_t p = v->ptes.get(addr);  // get(): no PTE leaf made where the peer has none
    if (pte::is_mapped(p) && (p & pte::kCowShared) && !(p & pte::kOwnPage)) {
      fn(*peer, v->ptes.ref(addr));
    }
  }
}

}  // namespace

uint8_t swap_duplicate(Simulation& sim, Mm& parent, uint8_t& parent_pte, Mm& child, uint64_t addr) {
  assert(pte::state(parent_pte) == pte::kSwapped);
  std::shared_ptr<SharedSwapEntry>& entry = parent.shared_swap[addr];
  if (!(parent_pte & pte::kCowShared)) {  // swap count 1 -> 2
    assert(entry == nullptr);
    entry = std::make_shared<SharedSwapEntry>();
    entry->holders.emplace_back(&parent, addr);
    parent_pte = kSharedSwapPte;
  }
  assert(entry != nullptr && "swap_count.h invariant (5)");
  entry->holders.emplace_back(&child, addr);
  child.shared_swap[addr] = entry;
  ++child.swapents;
  sim.swap().swap_duplicate();
  return kSharedSwapPte;
}

bool swap_entry_shared(const Mm& mm, uint8_t p, uint64_t addr) {
  return pte::state(p) == pte::kSwapped && (p & pte::kCowShared) && mm.shared_swap.contains(addr);
}

void swap_entry_free(Simulation& sim, Mm& mm, uint8_t p, uint64_t addr) {
  --mm.swapents;
  auto it = (p & pte::kCowShared) ? mm.shared_swap.find(addr) : mm.shared_swap.end();
  if (it == mm.shared_swap.end()) {  // the count was 1
    sim.swap().swap_free();
    return;
  }
  std::shared_ptr<SharedSwapEntry> entry = std::move(it->second);
  mm.shared_swap.erase(it);
  auto& holders = entry->holders;
  const auto self = std::find(holders.begin(), holders.end(), std::make_pair(&mm, addr));
  assert(self != holders.end() && "swap_count.h invariant (5): a record its entry does not list");
  holders.erase(self);
  if (holders.empty() && !entry->page_in_swap_cache) {  // was the last reference after all
    sim.swap().swap_free();
    return;
  }
  sim.swap().swap_put_shared();
  if (holders.size() == 1 && !entry->page_in_swap_cache) {
    // The last holder's entry is its own again (unless its VMA is out of the tree for now).
    auto [last, last_addr] = holders.front();
    if (uint8_t* p = pte_ptr(*last, last_addr)) {
      *p = pte::kSwapped;
      last->shared_swap.erase(last_addr);
    }
  }
}

bool swap_cache_share(Simulation& sim, Mm& mm, uint64_t addr) {
  auto it = mm.shared_swap.find(addr);
  assert(it != mm.shared_swap.end() && "swap_count.h invariant (5)");
  const std::shared_ptr<SharedSwapEntry> entry = std::move(it->second);
  mm.shared_swap.erase(it);
  const bool slot_cached = entry->page_in_swap_cache;
  std::vector<std::pair<Mm*, uint64_t>> kept;  // holders whose VMA is out of the tree for now
  for (const auto& [holder, holder_addr] : entry->holders) {
    if (holder == &mm && holder_addr == addr) continue;
    uint8_t* p = pte_ptr(*holder, holder_addr);
    if (p == nullptr) {
      kept.emplace_back(holder, holder_addr);
      continue;
    }
    assert(*p == kSharedSwapPte && "swap_count.h invariant (5)");
    *p = pte::kPresent | pte::kCowShared | pte::kSwapCache;
    --holder->swapents;
    holder->shared_swap.erase(holder_addr);
    sim.swap().swap_put_shared();
  }
  if (!kept.empty()) {  // they keep the entry, beside the page in the swap cache
    entry->holders = std::move(kept);
    entry->page_in_swap_cache = true;
  }
  return slot_cached;
}

uint32_t swap_entry_share_on_unmap(Simulation& sim, Mm& owner, uint64_t addr,
                                   std::vector<std::pair<Mm*, uint64_t>>* unmapped) {
  uint8_t* owner_pte_ptr = pte_ptr(owner, addr);
  assert(owner_pte_ptr != nullptr && *owner_pte_ptr == pte::kSwapped);
  uint8_t& owner_pte = *owner_pte_ptr;
  std::shared_ptr<SharedSwapEntry> entry;
  for_each_peer_mapping(owner, addr, [&](Mm& peer, uint8_t& p) {
    if (entry == nullptr) {
      entry = std::make_shared<SharedSwapEntry>();
      entry->holders.emplace_back(&owner, addr);
      owner.shared_swap[addr] = entry;
      owner_pte = kSharedSwapPte;
    }
    p = kSharedSwapPte;
    entry->holders.emplace_back(&peer, addr);
    peer.shared_swap[addr] = entry;
    ++peer.swapents;
    sim.swap().swap_duplicate();
    unmapped->emplace_back(&peer, addr);
  });
  return entry == nullptr ? 0 : static_cast<uint32_t>(entry->holders.size() - 1);
}

void move_swap_entry(Mm& mm, uint64_t old_addr, uint64_t new_addr) {
  auto node = mm.shared_swap.extract(old_addr);
  assert(!node.empty() && "swap_count.h invariant (5)");
  for (auto& holder : node.mapped()->holders) {
    if (holder == std::make_pair(&mm, old_addr)) holder.second = new_addr;
  }
  node.key() = new_addr;
  mm.shared_swap.insert(std::move(node));
}

uint32_t fork_peers_referenced(Mm& owner, uint64_t addr) {
  uint32_t young = 0;
  for_each_peer_mapping(owner, addr, [&](Mm&, uint8_t& p) {
    if (p & pte::kYoung) ++young;
    p = static_cast<uint8_t>(p & ~pte::kYoung);
  });
  return young;
}

}  // namespace mmreplay::kernelsim
