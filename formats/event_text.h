// One-line text form of an event, as `trace-replay cat` prints it:
//   <ts_ns> <kind> field=value ...  (addresses in hex, advice and prot by name)

#pragma once

#include <span>
#include <string>

#include "formats/event.h"

namespace mmreplay::formats {

// Appends the fields of `event` (not the timestamp) to `out`.
void append_event_fields(const Event& event, std::span<const Range> ranges, std::string* out);

// Name of a madvise advice ("dontneed", "free", ...) or its number.
std::string advice_name(uint64_t advice);

}  // namespace mmreplay::formats
