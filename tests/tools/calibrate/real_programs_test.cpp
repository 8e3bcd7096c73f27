// validate --real's programs (tools/calibrate/real_programs.h): the untraced run times every
// call the program makes, under the key its recording shows it by, and the times go through a
// file between the child that runs the program and validate.

#include "tools/calibrate/real_programs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace mmreplay::tools::calibrate {
namespace {

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "real_programs_test." + std::to_string(::getpid()) + "." + name;
}

// The madvise program: one mapping (mmap and its MADV_NOHUGEPAGE), 200 MADV_DONTNEED, one
// munmap: each call timed once, and nothing timed that the recording would not show.
TEST(RealProgramCalls, TheUntracedRunTimesEachCallUnderItsKey) {
  CallTimes times;
  ASSERT_TRUE(run_real_program("madvise", &times));
  EXPECT_EQ(times.size(), 3u);
  EXPECT_EQ(times["mmap"].size(), 1u);
  EXPECT_EQ(times["madvise"].size(), 201u);
  EXPECT_EQ(times["munmap"].size(), 1u);

  CallTimes mprotect;
  ASSERT_TRUE(run_real_program("mprotect", &mprotect));
  EXPECT_EQ(mprotect["mprotect"].size(), 400u);

  EXPECT_TRUE(run_real_program("anon-mmap"));  // untimed, as under record
  EXPECT_FALSE(run_real_program("no-such-program", &times));
}

TEST(RealProgramCalls, CallTimesRoundTripThroughTheirFile) {
  const CallTimes times = {{"madvise", {1200, 57000, 0}}, {"mmap", {2500}}};
  const std::string path = temp_path("times");
  ASSERT_TRUE(write_call_times(path, times));
  CallTimes back;
  ASSERT_TRUE(read_call_times(path, &back));
  EXPECT_EQ(back, times);
  ::unlink(path.c_str());
}

TEST(RealProgramCalls, ABadCallTimesLineNamesTheFileAndLine) {
  const std::string path = temp_path("bad");
  {
    std::ofstream out(path);
    out << "mmap 2500\nmunmap\n";
  }
  CallTimes times;
  const Status s = read_call_times(path, &times);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find(path + ":2:"), std::string::npos) << s.message();
  {
    std::ofstream out(path);
    out << "mmap 2500 extra\n";
  }
  EXPECT_FALSE(read_call_times(path, &times));
  ::unlink(path.c_str());
  EXPECT_FALSE(read_call_times(path, &times));  // gone: cannot be read
}

}  // namespace
}  // namespace mmreplay::tools::calibrate
