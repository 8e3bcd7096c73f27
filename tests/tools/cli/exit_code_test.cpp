// The one mapping from Status codes to trace-replay's exit status (tools/cli/exit_code.h).

#include "tools/cli/exit_code.h"

#include <gtest/gtest.h>

namespace mmreplay::tools {
namespace {

TEST(ExitCode, OneStatusPerKindOfFailure) {
  EXPECT_EQ(exit_status(Status::ok()), 0);
  // Bad input: an argument, a missing input, a corrupt or foreign file.
  EXPECT_EQ(exit_status(Status::invalid_argument("--policy x: no preset 'x'")), 2);
  EXPECT_EQ(exit_status(Status::not_found("a.mmtrace: cannot open")), 2);
  EXPECT_EQ(exit_status(Status::corruption("a.mmtrace: frame at offset 9: zstd")), 2);
  // The environment and I/O.
  EXPECT_EQ(exit_status(Status::io_error("x.json: cannot write")), 1);
  EXPECT_EQ(exit_status(Status::resource_exhausted("frame declares 1 GiB")), 1);
  // A bug: EX_SOFTWARE.
  EXPECT_EQ(exit_status(Status::internal("model deadlock")), 70);
  EXPECT_EQ(kExitSoftware, 70);
}

TEST(ExitCode, ContextDoesNotChangeTheExitStatus) {
  const Status s = Status::corruption("frame at offset 9: zstd").with_context("run 1 (free)");
  EXPECT_EQ(exit_status(s), kExitBadInput);
}

TEST(ExitCode, ReportStatusPrintsOneLineOnlyOnError) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(report_status("trace-replay info", Status::ok()), kExitOk);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(report_status("trace-replay merge", Status::io_error("m.json: cannot write")),
            kExitFailure);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "trace-replay merge: m.json: cannot write\n");
}

}  // namespace
}  // namespace mmreplay::tools
