// Generated traces as files: every workload at small scale writes a trace that `check` accepts
// and that reads back with the header (generator, parameters, command line) and the events the
// in-memory sink saw; same seed gives the same bytes, another seed other bytes; the gen
// subcommand's exit codes.

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "formats/trace_check.h"
#include "formats/trace_reader.h"
#include "gen_test_util.h"
#include "tools/cli/commands.h"
#include "tools/gen/gen_command.h"
#include "tools/gen/registry.h"

namespace mmreplay::gen {
namespace {

namespace fs = std::filesystem;
using formats::EventKind;

// Small arguments per workload, so the whole table runs in well under a second.
const std::map<std::string, std::vector<std::string>>& small_args() {
  static const std::map<std::string, std::vector<std::string>> args = {
      {"madv-bomb", {"--scale", "small"}},
      {"jemalloc-purge", {"--threads", "4", "--loops", "2000", "--scale", "small", "--vector"}},
      {"bulk-free", {"--threads", "4", "--scale", "small"}},
      {"page-fault-scale", {"--processes", "8", "--scale", "small"}},
      {"parallel-dd", {"--scale", "tiny"}},
      {"cma-bh", {"--threads", "2", "--loops", "500", "--lmbench"}},
      {"page_fault1", {"--threads", "4", "--processes", "1", "--scale", "small"}},
      {"page_fault2", {"--scale", "small"}},
      {"page_fault3", {"--scale", "small"}},
      {"tlb_flush1", {"--scale", "small"}},
      {"tlb_flush2", {"--threads", "4", "--processes", "1"}},
      {"tlb_flush3", {"--scale", "small"}},
      {"ebizzy", {"--threads", "4", "--loops", "200", "--scale", "small"}},
      {"madvise-vector", {"--scale", "small"}},
      {"mmap-munmap", {"--loops", "100", "--scale", "small"}},
  };
  return args;
}

class GenTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("mmreplay_gen_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::vector<std::string>& args,
                    const std::string& file) {
    std::string path = (dir_ / file).string();
    PreparedWorkload prepared;
    Status status = prepare_workload(name, args, path, &prepared);
    EXPECT_TRUE(status.is_ok()) << status.message();
    GenStats stats;
    status = generate_to_file(prepared, path, formats::WriterOptions{}, &stats);
    EXPECT_TRUE(status.is_ok()) << name << ": " << status.message();
    return path;
  }

  static std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  fs::path dir_;
};

TEST_F(GenTrace, EveryWorkloadWritesACheckedTraceThatReadsBack) {
  ASSERT_EQ(small_args().size(), all_workloads().size());
  for (const WorkloadSpec& spec : all_workloads()) {
    const std::vector<std::string>& args = small_args().at(spec.name);
    std::string path = write(spec.name, args, spec.name + ".mmtrace");
    formats::CheckReport report;
    Status status = formats::check_trace(path, &report);
    ASSERT_TRUE(status.is_ok()) << spec.name << ": " << status.message();

    CollectingSink expected = testing::run_workload(spec.name, args);
    EXPECT_EQ(report.events, expected.total()) << spec.name;

    std::unique_ptr<formats::TraceReader> reader =
        formats::TraceReader::open(path, formats::ReaderOptions{}, &status);
    ASSERT_NE(reader, nullptr) << status.message();
    const formats::TraceMeta& meta = reader->meta();
    EXPECT_EQ(meta.generator, spec.name);
    EXPECT_EQ(meta.params.size(), spec.params.size());
    EXPECT_EQ(meta.threads, expected.threads()) << spec.name;
    EXPECT_EQ(meta.recorder.command_line.rfind("trace-replay gen " + spec.name + " --", 0), 0u);
    EXPECT_NE(meta.recorder.command_line.find(" -o " + path), std::string::npos);
    // Stream by stream, the file holds exactly what the generator emitted.
    for (uint32_t s = 0; s < meta.threads.size(); ++s) {
      formats::StreamCursor cursor(*reader, s);
      size_t i = 0;
      const auto& events = expected.events(s);
      while (cursor.next()) {
        ASSERT_LT(i, events.size()) << spec.name << " stream " << s;
        formats::Event got = cursor.event();
        formats::Event want = events[i];
        if (want.kind == EventKind::kMadviseVector) {
          std::vector<formats::Range> want_ranges(
              expected.ranges().begin() + want.range_begin,
              expected.ranges().begin() + want.range_begin + want.range_count);
          std::span<const formats::Range> got_ranges = cursor.ranges();
          EXPECT_EQ(std::vector<formats::Range>(got_ranges.begin(), got_ranges.end()), want_ranges);
          got.range_begin = want.range_begin = 0;
          got.range_count = want.range_count = 0;
        }
        ASSERT_EQ(got, want) << spec.name << " stream " << s << " event " << i;
        ++i;
      }
      EXPECT_TRUE(cursor.status().is_ok()) << cursor.status().message();
      EXPECT_EQ(i, events.size()) << spec.name << " stream " << s;
    }
  }
}

TEST_F(GenTrace, SameSeedSameBytesOtherSeedOtherBytes) {
  // One file name throughout: the recorded command line (-o PATH) is part of the bytes.
  std::vector<std::string> seed7 = {"--threads", "3",     "--loops", "1000",
                                    "--scale",   "small", "--seed",  "7"};
  std::vector<std::string> seed8 = seed7;
  seed8.back() = "8";
  std::string path = write("jemalloc-purge", seed7, "same.mmtrace");
  std::string first = slurp(path);
  fs::remove(path);
  write("jemalloc-purge", seed7, "same.mmtrace");
  EXPECT_EQ(slurp(path), first);
  fs::remove(path);
  write("jemalloc-purge", seed8, "same.mmtrace");
  EXPECT_NE(slurp(path), first);
  // And the events themselves, stream by stream.
  CollectingSink x = testing::run_workload("jemalloc-purge", seed7);
  CollectingSink y = testing::run_workload("jemalloc-purge", seed7);
  CollectingSink z = testing::run_workload("jemalloc-purge", seed8);
  for (uint32_t s = 0; s < 3; ++s) {
    EXPECT_EQ(x.events(s), y.events(s));
    EXPECT_NE(x.events(s), z.events(s));
  }
}

int run_cli(const std::vector<std::string>& argv_in, std::string* out = nullptr) {
  CLI::App app{"test"};
  int exit_code = -1;
  tools::register_gen_command(app, &exit_code);
  std::vector<std::string> argv = {"trace-replay"};
  argv.insert(argv.end(), argv_in.begin(), argv_in.end());
  std::vector<const char*> raw;
  for (const std::string& arg : argv) raw.push_back(arg.c_str());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  try {
    app.parse(static_cast<int>(raw.size()), const_cast<char**>(raw.data()));
  } catch (const CLI::ParseError& e) {
    exit_code = tools::kExitBadInput;
  }
  std::string captured = ::testing::internal::GetCapturedStdout();
  ::testing::internal::GetCapturedStderr();
  if (out != nullptr) *out = captured;
  return exit_code;
}

TEST_F(GenTrace, CliExitCodes) {
  std::string out;
  EXPECT_EQ(run_cli({"gen", "--list"}, &out), tools::kExitOk);
  EXPECT_NE(out.find("madv-bomb"), std::string::npos);
  std::string path = (dir_ / "cli.mmtrace").string();
  EXPECT_EQ(run_cli({"gen", "madv-bomb", "--scale", "small", "--loops", "2", "-o", path}),
            tools::kExitOk);
  EXPECT_TRUE(fs::exists(path));
  EXPECT_EQ(run_cli({"gen", "madv-bomb", "--bogus", "1", "-o", path}), tools::kExitBadInput);
  EXPECT_EQ(run_cli({"gen", "madv-bomb", "--size", "12Q", "-o", path}), tools::kExitBadInput);
  EXPECT_EQ(run_cli({"gen", "no-such-workload", "-o", path}), tools::kExitBadInput);
  EXPECT_EQ(run_cli({"gen", "madv-bomb"}), tools::kExitBadInput) << "no -o";
  EXPECT_EQ(run_cli({"gen"}), tools::kExitBadInput);
  EXPECT_EQ(run_cli({"gen", "madv-bomb", "--scale", "small", "-o", "/nonexistent/dir/x.mmtrace"}),
            tools::kExitFailure);
}

TEST_F(GenTrace, RunGenCommandNamesTheFlag) {
  std::ostringstream out;
  std::vector<std::string> args = {"tlb_flush2", "--thread", "2", "-o", "x.mmtrace"};
  const Status s = run_gen_command(args, out, out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "tlb_flush2: unknown parameter --thread");
  EXPECT_EQ(out.str(), "");
}

TEST_F(GenTrace, RunGenCommandUnwritableOutputIsIOError) {
  std::ostringstream out;
  // Under /dev/null: no one, root included, can create it.
  std::vector<std::string> args = {"madv-bomb", "--scale", "small", "-o", "/dev/null/x.mmtrace"};
  const Status s = run_gen_command(args, out, out);
  EXPECT_EQ(s.code(), StatusCode::kIOError) << s.message();
  EXPECT_NE(s.message().find("/dev/null/x.mmtrace"), std::string::npos);
}

}  // namespace
}  // namespace mmreplay::gen
