// Page isolation for contiguous allocation (mm/page_isolation.c): the pageblocks of a range turn
// MIGRATE_ISOLATE so that no allocation lands in them while their pages are migrated out.
// The model isolates exactly the range's pfns of the CMA area (mm/cma.h).

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;

// Models start_isolate_page_range() (set_migratetype_isolate() under zone->lock). The cost of
// the isolation and of its undo is paid here (CostProfile::isolate_page_range).
Co<void> start_isolate_page_range(Task& t, uint64_t pfn, uint64_t n);
// Models undo_isolate_page_range().
void undo_isolate_page_range(Task& t, uint64_t pfn, uint64_t n);
// Models test_pages_isolated(): every page of the range is free.
bool test_pages_isolated(Task& t, uint64_t pfn, uint64_t n);

}  // namespace mmreplay::kernelsim
