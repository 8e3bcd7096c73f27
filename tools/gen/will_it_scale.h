// What the will-it-scale style workloads share (page_fault1/2/3, page-fault-scale, tlb_flush1/2/3,
// mmap-munmap): the process/thread task layout, a file per task, and the machine.
//
// will-it-scale runs N copies of one testcase either as N processes (each its own mm) or as N
// threads of one process (one shared mm); here --processes P --threads T gives P processes of T
// threads each, so `--processes 16` is process mode and `--threads 16` thread mode. Testcases over
// a file create their own temporary file per task (mkstemp + ftruncate in page_fault2.c), so each
// task gets one file of the mapping's size.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/trace_meta.h"
#include "tools/gen/params.h"
#include "tools/gen/workload.h"

namespace mmreplay::gen {

// Seed 001's machine ("48CPU with 32G of RAM"), where the page-fault scalability figures were
// taken; the will-it-scale microbenchmarks default to it too.
inline constexpr Machine kSeed001Machine{48, 32 * kGiB, 0};

// Default task count of the microbenchmarks: enough tasks to contend, few enough to make quickly.
inline constexpr uint64_t kDefaultWillItScaleTasks = 8;

// How a testcase maps its memory.
enum class Backing : uint8_t { kAnonymous, kPrivateFile, kSharedFile };

// --processes and --threads with the will-it-scale meaning above.
std::vector<ParamSpec> task_mode_params(uint64_t default_processes, uint64_t default_threads);

// One file per task, ids 1..tasks, named like will-it-scale's temporary files.
std::vector<formats::FileInfo> per_task_files(uint64_t tasks, uint64_t size_bytes);

}  // namespace mmreplay::gen
