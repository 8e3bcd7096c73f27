#include "formats/import/text_scan.h"

#include <limits>

namespace mmreplay::formats {
namespace {

constexpr int kMaxFractionDigits = 9;  // nanoseconds
constexpr uint64_t kHexBase = 16;
constexpr uint64_t kDecBase = 10;

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool parse_base(std::string_view text, uint64_t base, uint64_t* value) {
  if (text.empty()) return false;
  uint64_t v = 0;
  for (char c : text) {
    const int d = digit_value(c);
    if (d < 0 || static_cast<uint64_t>(d) >= base) return false;
    if (v > (std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(d)) / base) return false;
    v = v * base + static_cast<uint64_t>(d);
  }
  *value = v;
  return true;
}

}  // namespace

bool parse_dec(std::string_view text, uint64_t* value) {
  return parse_base(text, kDecBase, value);
}

bool parse_u64(std::string_view text, uint64_t* value) {
  bool negative = false;
  if (!text.empty() && text.front() == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  uint64_t v = 0;
  bool ok;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    ok = parse_base(text.substr(2), kHexBase, &v);
  } else {
    ok = parse_base(text, kDecBase, &v);
  }
  if (!ok) return false;
  *value = negative ? ~v + 1 : v;
  return true;
}

bool parse_seconds_ns(std::string_view text, uint64_t* ns) {
  const size_t dot = text.find('.');
  uint64_t secs = 0;
  if (!parse_dec(text.substr(0, dot), &secs)) return false;
  uint64_t frac = 0;
  if (dot != std::string_view::npos) {
    std::string_view f = text.substr(dot + 1);
    if (f.empty()) return false;
    int digits = 0;
    for (char c : f) {
      if (c < '0' || c > '9') return false;
      if (digits < kMaxFractionDigits) {
        frac = frac * kDecBase + static_cast<uint64_t>(c - '0');
        ++digits;
      }
    }
    for (; digits < kMaxFractionDigits; ++digits) frac *= kDecBase;
  }
  if (secs > (std::numeric_limits<uint64_t>::max() - frac) / kNsPerSecond) return false;
  *ns = secs * kNsPerSecond + frac;
  return true;
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view next_token(std::string_view* rest) {
  std::string_view s = *rest;
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  size_t n = 0;
  while (n < s.size() && !is_space(s[n])) ++n;
  *rest = s.substr(n);
  return s.substr(0, n);
}

}  // namespace mmreplay::formats
