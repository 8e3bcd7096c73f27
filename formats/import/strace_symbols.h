// The symbolic constants strace prints for the calls the importer reads (PROT_*, MAP_*, MADV_*,
// MREMAP_*, CLONE_*, FUTEX_* ops, and the exit signal in clone flags), with their Linux x86-64
// values from include/uapi/asm-generic/mman-common.h, mman.h, linux/sched.h, linux/futex.h and
// asm/signal.h.

#pragma once

#include <cstdint>
#include <string_view>

namespace mmreplay::formats {

// Looks one name up. False when this build does not know it.
bool strace_symbol_value(std::string_view name, uint64_t* value);

}  // namespace mmreplay::formats
