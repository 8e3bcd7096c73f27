// Helpers for the importer tests: load a fixture, find a thread's stream, count events.

#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

#include "formats/import/import.h"
#include "tests/formats/random_trace.h"  // kPage

namespace mmreplay::formats::testing {

inline std::string fixture(const std::string& name) {
  return std::string(MMREPLAY_IMPORT_FIXTURES) + "/" + name;
}

// Imports `text` as the file "in.txt" would be.
inline Status import_snippet(ImportFormat f, std::string_view text, ImportedTrace* t,
                             ImportReport* r) {
  return import_text(f, "in.txt", text, t, r);
}

// Stream index of `tid`, or -1.
inline int stream_of(const ImportedTrace& t, uint64_t tid) {
  for (size_t i = 0; i < t.meta.threads.size(); ++i) {
    if (t.meta.threads[i].tid == tid) return static_cast<int>(i);
  }
  return -1;
}

inline uint64_t count_if(const ImportedTrace& t, const std::function<bool(const Event&)>& pred) {
  uint64_t n = 0;
  for (const auto& s : t.streams) {
    for (const Event& e : s) n += pred(e) ? 1 : 0;
  }
  return n;
}

inline const Event* first_of(const ImportedTrace& t, int stream, EventKind kind) {
  for (const Event& e : t.streams[static_cast<size_t>(stream)]) {
    if (e.kind == kind) return &e;
  }
  return nullptr;
}

// Every stream in time order.
inline bool streams_ordered(const ImportedTrace& t) {
  for (const auto& s : t.streams) {
    for (size_t i = 1; i < s.size(); ++i) {
      if (s[i].ts_ns < s[i - 1].ts_ns) return false;
    }
  }
  return true;
}

}  // namespace mmreplay::formats::testing
