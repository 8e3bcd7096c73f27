// How the host's malloc should behave in a process that runs simulations: call once, first thing
// in main() (trace-replay, the benchmarks).
//
// glibc's defaults fit a program whose heap is small and steady: blocks above a dynamic threshold
// (128 KiB to start) are mmap()ed and unmapped when freed, and free memory above 128 KiB at the
// top of the heap is given back to the kernel. A replay allocates and frees blocks of hundreds of
// KiB to tens of MiB all the time (decoded chunks, page frames, histograms, one simulation after
// another in a study), so with the defaults each came back as fresh memory and was faulted in
// again: on a PVM guest a host page fault costs about 11 us, and `perf record -e page-faults` put
// most of a recorded program's replay faults there. Raising both thresholds keeps that memory in
// the heap for the next user.

#pragma once

namespace mmreplay::replay {

// Blocks up to 32 MiB come from the heap, and the heap gives back free memory only above 256 MiB.
// A no-op where the C library is not glibc.
void tune_host_malloc();

}  // namespace mmreplay::replay
