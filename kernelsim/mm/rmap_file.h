// The reverse map of a page-cache page (mm/rmap.c: rmap_walk_file()): the ptes that map page
// `index` of a file, found through the file's mappings (mapping->i_mmap).
//
// The model keeps no i_mmap tree: a walk visits every live mm's VMAs of the file, and only for a
// page whose PageCache::mapcount() says some pte maps it. A pte maps the page-cache page when it
// is present in a VMA of the file at linear_page_index() == index and is not a page of its own
// (a private mapping's copied page, pgtable.h kOwnPage) or the zero page.
//
// What walks it: reclaim's page_referenced() and try_to_unmap() (mm/vmscan.cpp), writeback's
// page_mkclean() (mm/filemap.cpp) and migration's try_to_migrate() (mm/migrate.cpp).

#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace mmreplay::kernelsim {

class Mm;
class Simulation;

// Models page_referenced() of page-cache frame f: the ptes that map it with the accessed bit set,
// each cleared (page_referenced_one()). *exec (when given) is set when a mapping that referenced
// it is executable (vm_flags & VM_EXEC).
uint32_t page_referenced_file(Simulation& sim, uint32_t f, bool* exec = nullptr);

// Models try_to_unmap() of page-cache frame f: every pte that maps it is cleared (rss, mapcount);
// a dirty pte dirties the page (set_page_dirty()). Appends each (mm, address) unmapped to
// `flushes`: the caller flushes those TLB entries.
void try_to_unmap_file(Simulation& sim, uint32_t f, std::vector<std::pair<Mm*, uint64_t>>* flushes);

// The (mm, address) of every pte that maps page-cache frame f: the rmap walk of
// try_to_migrate() and remove_migration_ptes(), whose ptes end where they began.
std::vector<std::pair<Mm*, uint64_t>> page_mappings_file(Simulation& sim, uint32_t f);

// Models page_mkclean() of page-cache frame f, as its writeback starts: the ptes that map it
// lose their dirty bit, so a later write through them dirties the page again (wp_page_shared()).
// The model flushes no TLB entry for it (a write-protect the CPU would fault on anyway).
void page_mkclean_file(Simulation& sim, uint32_t f);

}  // namespace mmreplay::kernelsim
