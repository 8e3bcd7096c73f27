// Helpers for the replay tests that run generated workloads: gen's workload written to a
// temporary file, and that file opened.

#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "formats/trace_reader.h"
#include "tests/formats/random_trace.h"
#include "tools/gen/generate.h"

namespace mmreplay::replay::testing {

// Writes gen's workload `name` with its parameters `params` to the temporary file `file`; the
// file's path (the test fails when gen does).
inline std::string generate_file(const std::string& name, const std::vector<std::string>& params,
                                 const std::string& file) {
  const std::string path = formats::testing::temp_path(file);
  gen::PreparedWorkload prepared;
  gen::GenStats stats;
  Status s = gen::prepare_workload(name, params, path, &prepared);
  if (s) s = gen::generate_to_file(prepared, path, formats::WriterOptions(), &stats);
  EXPECT_TRUE(s) << s.message();
  return path;
}

// The trace at `path`; null, with the test failed, when it does not open.
inline std::unique_ptr<formats::TraceReader> open_trace(const std::string& path) {
  Status s;
  auto reader = formats::TraceReader::open(path, formats::ReaderOptions(), &s);
  EXPECT_TRUE(reader) << s.message();
  return reader;
}

}  // namespace mmreplay::replay::testing
