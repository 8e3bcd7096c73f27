// Small, allocation-free helpers for the text importers: numbers in the forms perf, strace and
// trace-cmd print them, timestamps with a fractional part, and splitting on white space.
// Every parser returns false on bad input; none throws or reads past the view it is given.

#pragma once

#include <cstdint>
#include <string_view>

namespace mmreplay::formats {

inline constexpr uint64_t kNsPerSecond = 1'000'000'000;

// "0x1f", "31", "-1" (as two's complement), "0" -> value. Rejects empty input, trailing junk and
// overflow.
bool parse_u64(std::string_view text, uint64_t* value);
// Decimal only.
bool parse_dec(std::string_view text, uint64_t* value);

// "1468.215347535" or "1796015380.190431" (any number of fraction digits, at most 9 used)
// -> nanoseconds.
bool parse_seconds_ns(std::string_view text, uint64_t* ns);

// White space handling.
bool is_space(char c);
std::string_view trim(std::string_view s);
// The next white-space separated token from *rest (rest advances past it); "" at the end.
std::string_view next_token(std::string_view* rest);

// True when `s` starts with / ends with `affix`.
inline bool starts_with(std::string_view s, std::string_view affix) {
  return s.starts_with(affix);
}

}  // namespace mmreplay::formats
