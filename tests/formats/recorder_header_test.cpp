// What the recorder says of the recording machine beyond its size: the sync wake-up placement
// (format 1.11), vm.min_free_kbytes (1.12), the swap device's kind (1.13) and the recorded
// program's memcg limit (1.14) survive a write and a read, and older traces read as not known
// (0, "").

#include <gtest/gtest.h>

#include <capnp/message.h>

#include <string>

#include "formats/header_codec.h"
#include "formats/trace_reader.h"

namespace mmreplay::formats {
namespace {

TEST(RecorderHeader, SyncWakePlacementAndMinFreeKbytesRoundTrip) {
  TraceMeta meta;
  meta.recorder.sync_wakes_on_waker_cpu = 7;
  meta.recorder.sync_wakes_on_other_cpu = 2008;
  meta.recorder.min_free_kbytes = 67584;
  meta.recorder.swap_bytes = uint64_t{1} << 30;
  meta.recorder.swap_device = "zram";
  meta.recorder.memcg_limit_bytes = uint64_t{256} << 20;
  capnp::MallocMessageBuilder message;
  build_header(meta, 64, message.initRoot<capnp_schema::Header>());
  TraceMeta back;
  ASSERT_TRUE(read_header(message.getRoot<capnp_schema::Header>().asReader(), "h", &back,
                          kDefaultMaxThreads));
  EXPECT_EQ(back.recorder, meta.recorder);
  EXPECT_EQ(back.version_minor, kFormatVersionMinor);
}

TEST(RecorderHeader, AFormat110TraceHasNoPlacement) {
  Status status;
  const std::string path = std::string(MMREPLAY_FORMAT_FIXTURES_DIR) + "/v1_10_sample.mmtrace";
  auto reader = TraceReader::open(path, ReaderOptions(), &status);
  ASSERT_TRUE(reader) << status.message();
  EXPECT_EQ(reader->meta().version_minor, 10);
  EXPECT_EQ(reader->meta().recorder.sync_wakes_on_waker_cpu, 0u);
  EXPECT_EQ(reader->meta().recorder.sync_wakes_on_other_cpu, 0u);
}

TEST(RecorderHeader, AFormat111TraceHasNoMinFreeKbytes) {
  Status status;
  const std::string path = std::string(MMREPLAY_FORMAT_FIXTURES_DIR) + "/v1_11_sample.mmtrace";
  auto reader = TraceReader::open(path, ReaderOptions(), &status);
  ASSERT_TRUE(reader) << status.message();
  EXPECT_EQ(reader->meta().version_minor, 11);
  EXPECT_EQ(reader->meta().recorder.min_free_kbytes, 0u);
}

TEST(RecorderHeader, AFormat112TraceHasNoSwapDevice) {
  Status status;
  const std::string path = std::string(MMREPLAY_FORMAT_FIXTURES_DIR) + "/v1_12_sample.mmtrace";
  auto reader = TraceReader::open(path, ReaderOptions(), &status);
  ASSERT_TRUE(reader) << status.message();
  EXPECT_EQ(reader->meta().version_minor, 12);
  EXPECT_EQ(reader->meta().recorder.swap_device, "");
}

TEST(RecorderHeader, AFormat113TraceHasNoMemcgLimit) {
  Status status;
  const std::string path = std::string(MMREPLAY_FORMAT_FIXTURES_DIR) + "/v1_13_sample.mmtrace";
  auto reader = TraceReader::open(path, ReaderOptions(), &status);
  ASSERT_TRUE(reader) << status.message();
  EXPECT_EQ(reader->meta().version_minor, 13);
  EXPECT_EQ(reader->meta().recorder.memcg_limit_bytes, 0u);
}

// A kind this reader does not know (a newer one, or a crafted header) reads as not known.
TEST(RecorderHeader, AnUnknownSwapDeviceReadsAsNotKnown) {
  TraceMeta meta;
  meta.recorder.swap_device = "nvdimm";
  capnp::MallocMessageBuilder message;
  build_header(meta, 64, message.initRoot<capnp_schema::Header>());
  TraceMeta back;
  ASSERT_TRUE(read_header(message.getRoot<capnp_schema::Header>().asReader(), "h", &back,
                          kDefaultMaxThreads));
  EXPECT_EQ(back.recorder.swap_device, "");
}

}  // namespace
}  // namespace mmreplay::formats
