// Outputs are whole or absent (issue 15): a failed write leaves the old file, no temporary is
// left behind, and unwritable places are named before any work.

#include "formats/atomic_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "formats/event.h"
#include "formats/trace_reader.h"
#include "formats/trace_writer.h"
#include "tests/formats/random_trace.h"

namespace mmreplay::formats {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("mmreplay-atomic-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

size_t entries(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(AtomicFile, ReplacesTheFileWhole) {
  const fs::path dir = fresh_dir("replace");
  const std::string path = (dir / "out.json").string();
  ASSERT_TRUE(write_file_atomically(path, [](std::ostream& o) { o << "old\n"; }));
  ASSERT_TRUE(write_file_atomically(path, [](std::ostream& o) { o << "new\n"; }));
  EXPECT_EQ(testing::read_file(path), "new\n");
  EXPECT_EQ(entries(dir), 1u) << "no temporary left behind";
}

TEST(AtomicFile, AFailedWriteKeepsTheOldFile) {
  const fs::path dir = fresh_dir("fail");
  const std::string path = (dir / "out.json").string();
  ASSERT_TRUE(write_file_atomically(path, [](std::ostream& o) { o << "old\n"; }));
  const Status s = write_file_atomically(path, [](std::ostream& o) {
    o << "half";
    o.setstate(std::ios::badbit);  // what a full disk does to the stream
  });
  EXPECT_EQ(s.code(), StatusCode::kIOError);
  EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
  EXPECT_EQ(testing::read_file(path), "old\n");
  EXPECT_EQ(entries(dir), 1u);
}

TEST(AtomicFile, DevicesAreWrittenInPlaceAndTheirErrorsReported) {
  EXPECT_TRUE(write_file_atomically("/dev/null", [](std::ostream& o) { o << "x"; }));
  const Status full = write_file_atomically("/dev/full", [](std::ostream& o) {
    for (int i = 0; i < 100000; ++i) o << "0123456789";
  });
  EXPECT_EQ(full.code(), StatusCode::kIOError) << full.message();
}

TEST(AtomicFile, UnwritablePlacesAreNamedBeforeAnyWork) {
  const fs::path dir = fresh_dir("check");
  EXPECT_TRUE(check_output_path((dir / "x.json").string(), "--json"));
  const Status missing = check_output_path((dir / "no" / "x.json").string(), "--json");
  EXPECT_EQ(missing.code(), StatusCode::kIOError);
  EXPECT_NE(missing.message().find("--json"), std::string::npos) << missing.message();
  EXPECT_FALSE(check_output_path(dir.string(), "--csv"));  // a directory is no output file
  std::ofstream(dir / "file") << "x";
  EXPECT_FALSE(check_output_dir((dir / "file").string(), "--hgrm"));
  EXPECT_TRUE(check_output_dir((dir / "new" / "deeper").string(), "--hgrm"));
  EXPECT_FALSE(check_output_path("/dev/null/x.json", "--json"));
  const Status is_dir = write_file_atomically(dir.string(), [](std::ostream&) {});
  EXPECT_EQ(is_dir.code(), StatusCode::kIOError);
}

}  // namespace
}  // namespace mmreplay::formats

namespace mmreplay::formats {
namespace {

// gen and import write through TraceWriter: an abandoned writer (a generator that failed part-way)
// leaves the trace that was there, and close() replaces it whole.
TEST(AtomicFile, AnAbandonedTraceWriterLeavesTheOldTrace) {
  const fs::path dir = fresh_dir("trace");
  const std::string path = (dir / "t.mmtrace").string();
  TraceMeta meta;
  meta.threads = {{1, 1, "t"}};
  auto write = [&](uint64_t events, bool close) {
    Status s;
    auto w = TraceWriter::create(path, meta, WriterOptions(), &s);
    ASSERT_TRUE(w) << s.message();
    for (uint64_t i = 0; i < events; ++i) ASSERT_TRUE(w->append(0, ev::thread_start(i)));
    if (close) {
      ASSERT_TRUE(w->close());
    }
  };
  write(3, true);
  const std::string first = testing::read_file(path);
  write(5000, false);
  EXPECT_EQ(testing::read_file(path), first);
  EXPECT_EQ(entries(dir), 1u) << "the abandoned temporary is removed";
  write(7, true);
  Status s;
  auto reader = TraceReader::open(path, ReaderOptions(), &s);
  ASSERT_TRUE(reader) << s.message();
  EXPECT_EQ(reader->total_events(), 7u);
}

}  // namespace
}  // namespace mmreplay::formats
