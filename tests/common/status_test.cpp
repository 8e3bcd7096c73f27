// Status (common/status.h): the code each factory gives, ok by default, messages kept as given,
// with_context() keeping the code, from_errno() choosing NotFound or IOError, and the names.

#include "common/status.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

namespace mmreplay {
namespace {

TEST(Status, DefaultIsOk) {
  const Status s;
  EXPECT_TRUE(s.is_ok());
  EXPECT_TRUE(static_cast<bool>(s));
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_TRUE(Status::ok().is_ok());
}

TEST(Status, EachFactoryGivesItsCode) {
  struct Case {
    Status status;
    StatusCode code;
  };
  const std::vector<Case> cases = {
      {Status::invalid_argument("m"), StatusCode::kInvalidArgument},
      {Status::not_found("m"), StatusCode::kNotFound},
      {Status::corruption("m"), StatusCode::kCorruption},
      {Status::io_error("m"), StatusCode::kIOError},
      {Status::resource_exhausted("m"), StatusCode::kResourceExhausted},
      {Status::internal("m"), StatusCode::kInternal},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.status.code(), c.code) << status_code_name(c.code);
    EXPECT_FALSE(c.status.is_ok());
    EXPECT_FALSE(static_cast<bool>(c.status));
    EXPECT_EQ(c.status.message(), "m");
  }
}

TEST(Status, ErrorNeverHasAnEmptyMessage) {
  const Status s = Status::corruption("");
  EXPECT_FALSE(s.is_ok());
  EXPECT_EQ(s.message(), "unknown error");
}

TEST(Status, WithContextKeepsTheCode) {
  const Status s =
      Status::corruption("frame at offset 12: not a zstd frame").with_context("a.mmtrace");
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_EQ(s.message(), "a.mmtrace: frame at offset 12: not a zstd frame");
  const Status twice = Status::io_error("x: cannot write").with_context("run 2 (free)");
  EXPECT_EQ(twice.code(), StatusCode::kIOError);
  EXPECT_EQ(twice.message(), "run 2 (free): x: cannot write");
  EXPECT_TRUE(Status::ok().with_context("ignored").is_ok());
  EXPECT_EQ(Status::ok().with_context("ignored").message(), "");
}

TEST(Status, FromCode) {
  const Status s = Status::from_code(StatusCode::kNotFound, "--profile p.json: cannot open");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "--profile p.json: cannot open");
  EXPECT_TRUE(Status::from_code(StatusCode::kOk, "dropped").is_ok());
  EXPECT_EQ(Status::from_code(StatusCode::kOk, "dropped").message(), "");
}

TEST(Status, FromErrnoMissingIsNotFoundOtherwiseIOError) {
  EXPECT_EQ(Status::from_errno(ENOENT, "a: cannot open").code(), StatusCode::kNotFound);
  EXPECT_EQ(Status::from_errno(ENOTDIR, "a/b: cannot open").code(), StatusCode::kNotFound);
  EXPECT_EQ(Status::from_errno(EACCES, "a: cannot open").code(), StatusCode::kIOError);
  EXPECT_EQ(Status::from_errno(EIO, "a: cannot open").code(), StatusCode::kIOError);
  EXPECT_EQ(Status::from_errno(ENOENT, "a: cannot open").message(), "a: cannot open");
}

TEST(Status, CopiesAreIndependentValues) {
  Status a = Status::internal("model deadlock");
  const Status b = a;
  a = Status::ok();
  EXPECT_TRUE(a.is_ok());
  EXPECT_EQ(b.code(), StatusCode::kInternal);
  EXPECT_EQ(b.message(), "model deadlock");
}

TEST(Status, CodeNames) {
  EXPECT_EQ(status_code_name(StatusCode::kOk), "OK");
  EXPECT_EQ(status_code_name(StatusCode::kInvalidArgument), "InvalidArgument");
  EXPECT_EQ(status_code_name(StatusCode::kNotFound), "NotFound");
  EXPECT_EQ(status_code_name(StatusCode::kCorruption), "Corruption");
  EXPECT_EQ(status_code_name(StatusCode::kIOError), "IOError");
  EXPECT_EQ(status_code_name(StatusCode::kResourceExhausted), "ResourceExhausted");
  EXPECT_EQ(status_code_name(StatusCode::kInternal), "Internal");
  static_assert(status_code_name(StatusCode::kCorruption) == "Corruption");
}

}  // namespace
}  // namespace mmreplay
