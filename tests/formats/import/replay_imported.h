// For the import-then-replay tests: writes an imported trace to a temporary file, opens it and
// replays it with `spec`, as `trace-replay import` then `replay` would.

#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "formats/import/import.h"
#include "formats/trace_reader.h"
#include "replay/run.h"
#include "tests/formats/random_trace.h"

namespace mmreplay::formats::testing {

inline replay::RunResult replay_imported(const ImportedTrace& trace, const std::string& name,
                                         const replay::RunSpec& spec) {
  const std::string path = temp_path(name + ".mmtrace");
  Status s = write_imported_trace(trace, path, WriterOptions{});
  EXPECT_TRUE(s) << s.message();
  auto reader = TraceReader::open(path, ReaderOptions(), &s);
  EXPECT_TRUE(reader) << s.message();
  replay::RunResult r;
  if (!reader) return r;
  replay::ChunkCache chunks(64);
  s = replay::execute_run(spec, *reader, chunks, &r);
  EXPECT_TRUE(s) << s.message();
  return r;
}

// replay_imported() under the default policy.
inline replay::RunResult replay_default(const ImportedTrace& trace, const std::string& name) {
  replay::RunSpec spec;
  spec.policy_name = "default";
  return replay_imported(trace, name, spec);
}

// Imports `text` in `format` (its report to *report when given) and replays it under the
// default policy.
inline replay::RunResult import_and_replay_text(ImportFormat format, const std::string& name,
                                                std::string_view text,
                                                ImportReport* report = nullptr) {
  ImportedTrace trace;
  ImportReport own;
  const Status s = import_text(format, name, text, &trace, report != nullptr ? report : &own);
  EXPECT_TRUE(s) << s.message();
  return replay_default(trace, name);
}

}  // namespace mmreplay::formats::testing
