// MADV_POPULATE_READ and MADV_POPULATE_WRITE (5.14+: 4ca9b3859dac; mm/madvise.c:
// madvise_populate(), mm/gup.c: faultin_page_range()).
//
// Under mmap_sem for read, the range is prefaulted page by page as get_user_pages() does it:
// follow_page_pte() finds a present pte good enough (any present page for a read; a writable one
// for a write: an own page not shared with a fork peer, or a dirty page of a shared file
// mapping), else faultin_page() runs handle_mm_fault() (mm/memory.h) for a read or a write, with
// no exception entry: a read maps the zero page or the file's page, a write allocates, copies or
// dirties, a swapped page is read back. Each such fault counts in `faults` (handle_mm_fault()
// counts PGFAULT) and in `madv_populate_faults`; a recording holds none of them, since no
// exception was taken, so replay makes them here.
// The walk stops at the first hole with -ENOMEM (the pages before it stay populated), and at a
// VMA the access is not allowed on with -EINVAL ("incompatible mappings / permissions").

#pragma once

#include <cstdint>

#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Task;
class Mm;

// Whether `advice` is MADV_POPULATE_READ or MADV_POPULATE_WRITE.
bool madvise_is_populate(int advice);

// Models madvise_populate() over [start, end) of mm. Returns 0, -ERRNO_ENOMEM (a hole, or a fault
// that found no memory), -ERRNO_EINVAL (access not allowed) or -ERRNO_EFAULT (a fault that would
// have raised SIGBUS or SIGSEGV).
// REQUIRES: mmap_sem of mm held for read; mm is t's; start, end page aligned, start < end.
Co<int64_t> madvise_populate(Task& t, Mm& mm, uint64_t start, uint64_t end, bool write);

}  // namespace mmreplay::kernelsim
