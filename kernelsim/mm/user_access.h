// User-space accesses (the MMU's side): a `touch` of a range, read or write, at a stride.
//
// An access to a page whose pte allows it is done by the hardware: no fault, the accessed bit is
// set, and a write sets the dirty bit -- which on a lazyfree page cancels the lazy free (reclaim
// finds it dirty and keeps it: try_to_unmap_one()). Any other access (no pte, zero page or
// read-only COW page on write, no VMA) raises a fault (mm/memory.h).

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;

// Accesses addr, addr + stride, ... below addr + len (stride 0 = PAGE_SIZE). Returns the number
// of faults taken.
Co<uint64_t> do_touch(Task& t, uint64_t addr, uint64_t len, bool write, uint64_t stride);

}  // namespace mmreplay::kernelsim
