// cma_alloc() / cma_release() (mm/cma.c): a driver's contiguous allocation from the CMA area
// (mm/cma.h), by any thread (OpKind::kContigAlloc / kContigFree).
//
// cma_alloc() looks for `count` pfns clear in cma->bitmap from the start of the area, sets them,
// and calls alloc_contig_range() (mm/alloc_contig.h); on -EBUSY it clears them and tries the next
// position (mainline's "try again with a bit different memory target"), until no run is left.
// The area's lock (cma->lock) is not contended in the model.

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;

// Models mm/cma.c: cma_alloc() of ceil(bytes / PAGE_SIZE) pages, remembered as `handle`.
// Returns 0, -ENOMEM (no free range, or every range failed), -EINVAL (handle in use or 0 bytes).
Co<int64_t> cma_alloc(Task& t, uint64_t handle, uint64_t bytes);
// Models mm/cma.c: cma_release() of allocation `handle`. Returns 0 or -EINVAL (unknown handle).
Co<int64_t> cma_release(Task& t, uint64_t handle);

}  // namespace mmreplay::kernelsim
