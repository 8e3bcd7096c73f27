#include "formats/import/strace_args.h"

#include <string>

#include "formats/import/strace_symbols.h"
#include "formats/import/text_scan.h"

namespace mmreplay::formats {
namespace {

// Bracket nesting beyond this is refused (no real strace line comes close).
constexpr int kMaxNesting = 64;

bool is_open(char c) {
  return c == '(' || c == '{' || c == '[';
}
bool is_close(char c) {
  return c == ')' || c == '}' || c == ']';
}

// Skips a "..." string starting at text[i] == '"'; returns the index after the closing quote,
// or npos.
size_t skip_string(std::string_view text, size_t i) {
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

}  // namespace

size_t strace_args_end(std::string_view text) {
  int depth = 0;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"') {
      i = skip_string(text, i);
      if (i == std::string_view::npos) return i;
      continue;
    }
    if (is_open(c) && ++depth > kMaxNesting) return std::string_view::npos;
    if (is_close(c)) {
      if (depth == 0) return c == ')' ? i : std::string_view::npos;
      --depth;
    }
    ++i;
  }
  return std::string_view::npos;
}

bool split_strace_args(std::string_view text, std::vector<std::string_view>* args) {
  args->clear();
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"') {
      i = skip_string(text, i);
      if (i == std::string_view::npos) return false;
      continue;
    }
    if (is_open(c) && ++depth > kMaxNesting) return false;
    if (is_close(c) && --depth < 0) return false;
    if (c == ',' && depth == 0) {
      args->push_back(trim(text.substr(start, i - start)));
      start = i + 1;
    }
    ++i;
  }
  if (depth != 0) return false;
  const std::string_view last = trim(text.substr(start));
  if (!last.empty() || !args->empty()) args->push_back(last);
  return true;
}

bool strace_arg_value(std::string_view arg, uint64_t* value, uint64_t* unknown_names) {
  arg = trim(arg);
  if (arg.empty()) return false;
  // A descriptor decoded by -y: "3</tmp/x>" or "3<socket:[123]>".
  const size_t lt = arg.find('<');
  if (lt != std::string_view::npos && lt > 0 && arg.back() == '>') arg = arg.substr(0, lt);
  if (arg == "NULL") {
    *value = 0;
    return true;
  }
  if (arg.front() == '"' || arg.front() == '{' || arg.front() == '[') return false;
  uint64_t v = 0;
  while (!arg.empty()) {
    const size_t bar = arg.find('|');
    const std::string_view part = trim(arg.substr(0, bar));
    arg = bar == std::string_view::npos ? std::string_view() : arg.substr(bar + 1);
    uint64_t x = 0;
    if (parse_u64(part, &x)) {
      v |= x;
    } else if (strace_symbol_value(part, &x)) {
      v |= x;
    } else {
      // A name strace knows and this build does not; anything else is no value.
      for (char c : part) {
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
      }
      if (part.empty()) return false;
      ++*unknown_names;
    }
  }
  *value = v;
  return true;
}

std::string_view strace_keyword(std::string_view text, std::string_view key) {
  if (!text.empty() && (text.front() == '{' || text.front() == '[')) text = text.substr(1);
  if (!text.empty() && (text.back() == '}' || text.back() == ']')) text.remove_suffix(1);
  std::vector<std::string_view> parts;
  if (!split_strace_args(text, &parts)) return {};
  for (std::string_view p : parts) {
    if (p.size() > key.size() && p.starts_with(key) && p[key.size()] == '=') {
      return p.substr(key.size() + 1);
    }
  }
  return {};
}

bool strace_iovec(std::string_view arg, std::vector<Range>* ranges) {
  arg = trim(arg);
  if (arg.size() < 2 || arg.front() != '[' || arg.back() != ']') return false;
  std::vector<std::string_view> items;
  if (!split_strace_args(arg.substr(1, arg.size() - 2), &items)) return false;
  uint64_t ignored = 0;
  for (std::string_view item : items) {
    if (item == "...") continue;  // strace abbreviates long vectors
    Range r;
    if (!strace_arg_value(strace_keyword(item, "iov_base"), &r.addr, &ignored) ||
        !strace_arg_value(strace_keyword(item, "iov_len"), &r.len, &ignored)) {
      return false;
    }
    if (ranges->size() < kMaxVectorRanges) ranges->push_back(r);
  }
  return true;
}

bool strace_result(std::string_view text, bool* has_return, int64_t* ret, uint64_t* duration_ns,
                   std::string_view* ret_path) {
  text = trim(text);
  if (!text.starts_with("= ")) return false;
  text.remove_prefix(2);
  *duration_ns = kNoDuration;
  if (ret_path != nullptr) *ret_path = {};
  if (text.size() >= 2 && text.back() == '>') {
    const size_t lt = text.rfind('<');
    uint64_t ns = 0;
    if (lt != std::string_view::npos &&
        parse_seconds_ns(text.substr(lt + 1, text.size() - lt - 2), &ns)) {
      *duration_ns = ns;
      text = trim(text.substr(0, lt));
    }
  }
  // -y: "3</tmp/x>", the returned descriptor and what it points at.
  if (const size_t lt = text.find('<'); lt != std::string_view::npos && lt > 0) {
    const std::string_view path = strace_fd_path(text);
    if (ret_path != nullptr) *ret_path = path;
    text = text.substr(0, lt);
  }
  std::string_view first = next_token(&text);
  if (first == "?") {
    *has_return = false;
    return true;
  }
  uint64_t v = 0;
  if (!parse_u64(first, &v)) return false;
  *has_return = true;
  *ret = static_cast<int64_t>(v);
  return true;
}

std::string_view strace_fd_path(std::string_view arg) {
  arg = trim(arg);
  const size_t lt = arg.find('<');
  const size_t gt = arg.rfind('>');
  if (lt == std::string_view::npos || lt == 0 || gt == std::string_view::npos || gt <= lt) {
    return {};
  }
  return arg.substr(lt + 1, gt - lt - 1);
}

bool strace_string(std::string_view arg, std::string* out) {
  arg = trim(arg);
  if (arg.size() < 2 || arg.front() != '"') return false;
  const size_t end = skip_string(arg, 0);
  if (end == std::string_view::npos) return false;
  out->assign(arg.substr(1, end - 2));
  return true;
}

}  // namespace mmreplay::formats
