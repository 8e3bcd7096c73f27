// File kinds in the header (format 1.3, issue 19): kind and created survive a write and a read;
// a kind value this reader does not know (a newer writer, a crafted file) reads as unknown, which
// the replay treats as a regular file; files of a 1.1 trace read as unknown and existing. Each
// file's device readahead window (format 1.8) round-trips and reads as unknown (-1) from 1.7.

#include <gtest/gtest.h>

#include <capnp/message.h>

#include <string>

#include "formats/header_codec.h"
#include "formats/trace_reader.h"
#include "tests/formats/random_trace.h"

namespace mmreplay::formats {
namespace {

TEST(FileKindHeader, KindAndCreatedRoundTrip) {
  TraceMeta meta;
  meta.files = {{1, "/data/in", 8192, 4096, FileKind::kRegular, false, 8192},
                {2, "pipe:[77]", 0, 4096, FileKind::kPipe, true},
                {3, "/dev/null", 0, 4096, FileKind::kCharDevice, false},
                {4, "pid 5 fd 1", 0, 4096, FileKind::kUnknown, false},
                {5, "/dev/vda", 0, 4096, FileKind::kBlockDevice, false, 0}};
  capnp::MallocMessageBuilder message;
  build_header(meta, 64, message.initRoot<capnp_schema::Header>());
  TraceMeta back;
  ASSERT_TRUE(read_header(message.getRoot<capnp_schema::Header>().asReader(), "h", &back,
                          kDefaultMaxThreads));
  EXPECT_EQ(back.files, meta.files);
  EXPECT_EQ(back.version_minor, kFormatVersionMinor);  // 1.3 brought file kinds
}

TEST(FileKindHeader, AKindValueBeyondTheEnumReadsAsUnknown) {
  TraceMeta meta;
  meta.files = {{1, "/x", 0, 4096, FileKind::kSocket, true}};
  capnp::MallocMessageBuilder message;
  auto header = message.initRoot<capnp_schema::Header>();
  build_header(meta, 64, header);
  header.getFiles()[0].setKind(static_cast<capnp_schema::FileKind>(200));  // crafted
  TraceMeta back;
  ASSERT_TRUE(read_header(header.asReader(), "h", &back, kDefaultMaxThreads));
  ASSERT_EQ(back.files.size(), 1u);
  EXPECT_EQ(back.files[0].kind, FileKind::kUnknown);
  EXPECT_TRUE(back.files[0].created);
  EXPECT_EQ(file_kind_name(static_cast<FileKind>(200)), "unknown");
}

TEST(FileKindHeader, AFormat11TraceReadsItsFilesAsUnknownAndExisting) {
  Status status;
  const std::string path = std::string(MMREPLAY_FORMAT_FIXTURES_DIR) + "/v1_1_sample.mmtrace";
  auto reader = TraceReader::open(path, ReaderOptions(), &status);
  ASSERT_TRUE(reader) << status.message();
  EXPECT_EQ(reader->meta().version_minor, 1);
  EXPECT_EQ(reader->meta().allocator, "");  // format 1.5's field reads empty in older files
  ASSERT_FALSE(reader->meta().files.empty());
  for (const FileInfo& f : reader->meta().files) {
    EXPECT_EQ(f.kind, FileKind::kUnknown) << f.path;
    EXPECT_FALSE(f.created) << f.path;
  }
}

TEST(FileKindHeader, AFormat17TraceReadsEveryDeviceWindowAsUnknown) {
  Status status;
  const std::string path = std::string(MMREPLAY_FORMAT_FIXTURES_DIR) + "/v1_7_sample.mmtrace";
  auto reader = TraceReader::open(path, ReaderOptions(), &status);
  ASSERT_TRUE(reader) << status.message();
  EXPECT_EQ(reader->meta().version_minor, 7);
  ASSERT_FALSE(reader->meta().files.empty());
  for (const FileInfo& f : reader->meta().files) EXPECT_EQ(f.read_ahead_kb, -1) << f.path;
}

TEST(FileKindHeader, ACraftedDeviceWindowBelowUnknownReadsAsUnknown) {
  TraceMeta meta;
  meta.files = {{1, "/x", 0, 4096, FileKind::kRegular, false, 128}};
  capnp::MallocMessageBuilder message;
  auto header = message.initRoot<capnp_schema::Header>();
  build_header(meta, 64, header);
  header.getFiles()[0].setReadAheadKb(-5);
  TraceMeta back;
  ASSERT_TRUE(read_header(header.asReader(), "h", &back, kDefaultMaxThreads));
  ASSERT_EQ(back.files.size(), 1u);
  EXPECT_EQ(back.files[0].read_ahead_kb, -1);
}

}  // namespace
}  // namespace mmreplay::formats
