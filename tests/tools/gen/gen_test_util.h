// Helpers for the generator tests: run a workload into memory and fail loudly on errors.

#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tools/gen/event_sink.h"
#include "tools/gen/generate.h"

namespace mmreplay::gen::testing {

// Generates `name` with `args` into a CollectingSink (events kept).
inline CollectingSink run_workload(const std::string& name, const std::vector<std::string>& args,
                                   formats::TraceMeta* meta = nullptr) {
  CollectingSink sink;
  PreparedWorkload prepared;
  Status status = prepare_workload(name, args, "", &prepared);
  EXPECT_TRUE(status.is_ok()) << status.message();
  if (!status.is_ok()) return sink;
  status = generate_to_sink(prepared, sink);
  EXPECT_TRUE(status.is_ok()) << status.message();
  EXPECT_TRUE(sink.monotonic()) << name << ": a stream's clock went backwards";
  if (meta != nullptr) *meta = prepared.meta;
  return sink;
}

}  // namespace mmreplay::gen::testing
