// The registry of workloads `trace-replay gen` can make: one explicit list (registry.cpp), one
// line per workload file, in the order `gen --list` prints them.

#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tools/gen/workload.h"

namespace mmreplay::gen {

const std::vector<WorkloadSpec>& all_workloads();
// nullptr when no workload has that name.
const WorkloadSpec* find_workload(std::string_view name);
// `gen --list`: every workload with its description and parameters (default, unit, help).
std::string describe_workloads();

// One factory per workload, defined in the workload's own file.
WorkloadSpec madv_bomb_spec();         // madv_bomb.cpp
WorkloadSpec jemalloc_purge_spec();    // jemalloc_purge.cpp
WorkloadSpec bulk_free_spec();         // bulk_free.cpp
WorkloadSpec page_fault_scale_spec();  // page_fault_scale.cpp
WorkloadSpec parallel_dd_spec();       // parallel_dd.cpp
WorkloadSpec cma_bh_spec();            // cma_bh.cpp
WorkloadSpec page_fault1_spec();       // page_fault.cpp
WorkloadSpec page_fault2_spec();       // page_fault.cpp
WorkloadSpec page_fault3_spec();       // page_fault.cpp
WorkloadSpec tlb_flush1_spec();        // tlb_flush.cpp
WorkloadSpec tlb_flush2_spec();        // tlb_flush.cpp
WorkloadSpec tlb_flush3_spec();        // tlb_flush.cpp
WorkloadSpec ebizzy_spec();            // ebizzy.cpp
WorkloadSpec madvise_vector_spec();    // madvise_vector.cpp
WorkloadSpec mmap_munmap_spec();       // mmap_munmap.cpp

}  // namespace mmreplay::gen
