// Page migration out of an isolated range (mm/migrate.c, reason MR_CONTIG_RANGE).
//
// An anonymous page: rmap walk to its one mapping (the Lruvec frame's mm and address),
// try_to_migrate() replaces the pte by a migration entry and flushes the owning mm's TLB
// (arch/x86/tlb.h), the page is copied, remove_migration_ptes() maps the new page (pte bits kept).
// A page whose frame is held elsewhere (isolated by reclaim, or freed while a batch holds it)
// is busy. A page-cache page with buffer heads: buffer_migrate_page() fails with -EAGAIN while
// any of its buffer heads has a reference (b_count: a bh_lru entry or I/O in flight); otherwise
// the page is copied and the mapping and buffer heads move to the new page. Under
// bh_invalidate=selected the page's buffer heads are first dropped from every CPU's bh_lru.
// The page keeps its identity (frame, buffer heads, dirty bits); only its pfn changes
// (CmaArea::move_page()).
// Known simplifications: no lru_lock round for isolate_lru_page() / putback; mapping locks
// (anon_vma, i_mmap, private_lock) are not contended.

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;

// Models unmap_and_move() for the page at `pfn` of the CMA area. True when it moved.
Co<bool> migrate_page(Task& t, uint64_t pfn);
// Models migrate_pages() over the used pages of [pfn, pfn + n): one pass. Returns the pages that
// could not be migrated (counted in pgmigrate_fail; moved ones in pgmigrate_success).
Co<uint64_t> migrate_range(Task& t, uint64_t pfn, uint64_t n);

}  // namespace mmreplay::kernelsim
