// The swap probe's arithmetic, on made-up repetitions (the probe itself needs root and swap):
// what a read waits and what it costs beyond a swap-cache hit, and the repetitions left out; and
// its read of the child's pipe, which gives up on a child that does not finish.

#include <gtest/gtest.h>
#include <unistd.h>

#include "tools/calibrate/probes.h"

namespace mmreplay::tools::calibrate {
namespace {

constexpr size_t kPages = 64;

// Pass A: 64 major faults in 5 ms of wall time, 2 ms of it on CPU; pass B: 64 hits in 0.64 ms.
SwapInSample sample(uint64_t cpu_a_ns = 2'000'000) {
  SwapInSample s;
  s.wall_a_ns = 5'000'000;
  s.cpu_a_ns = cpu_a_ns;
  s.major_a = static_cast<long>(kPages);
  s.cpu_b_ns = 640'000;
  s.minor_b = static_cast<long>(kPages);
  return s;
}

TEST(SwapProbe, WaitIsWallLessCpuAndCpuIsBeyondAHit) {
  const std::vector<Figure> f = swap_figures({sample(), sample(), sample()}, kPages);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].key, "swap_in");
  ASSERT_TRUE(f[0].measured);
  EXPECT_DOUBLE_EQ(f[0].ns.median, 3'000'000.0 / kPages);
  EXPECT_EQ(f[1].key, "swap_read_cpu");
  ASSERT_TRUE(f[1].measured);
  EXPECT_DOUBLE_EQ(f[1].ns.median, (2'000'000.0 - 640'000.0) / kPages);
  EXPECT_EQ(f[1].ns.samples, 3u);
}

// A repetition whose swap cache stayed (few major faults in pass A) says nothing about a read.
TEST(SwapProbe, RepetitionsThatReadLittleBackAreLeftOut) {
  SwapInSample cached = sample(9'000'000);
  cached.major_a = 3;
  const std::vector<Figure> f = swap_figures({sample(), cached, sample()}, kPages);
  EXPECT_EQ(f[1].ns.samples, 2u);
  EXPECT_DOUBLE_EQ(f[1].ns.median, (2'000'000.0 - 640'000.0) / kPages);

  const std::vector<Figure> none = swap_figures({cached}, kPages);
  ASSERT_EQ(none.size(), 2u);
  EXPECT_FALSE(none[0].measured);
  EXPECT_FALSE(none[1].measured);
  EXPECT_NE(none[1].note.find("swap cache emptied"), std::string::npos) << none[1].note;
}

// A few hits in pass A cost pass B's rate and are taken out before dividing by the reads.
TEST(SwapProbe, PassAsHitsAreTakenOutAtPassBsRate) {
  SwapInSample s = sample(2'000'000 + 4 * 10'000);
  s.major_a = static_cast<long>(kPages) - 4;
  s.minor_a = 4;
  const std::vector<Figure> f = swap_figures({s}, kPages);
  ASSERT_TRUE(f[1].measured);
  EXPECT_DOUBLE_EQ(f[1].ns.median,
                   (2'000'000.0 + 40'000.0 - 4 * 10'000.0) / (kPages - 4) - 10'000.0);
}

// A device whose reads skip the swap cache (zram since 4.15) reads in pass B too: no sample.
TEST(SwapProbe, APassBThatReadsFromSwapIsNoSample) {
  SwapInSample s = sample();
  s.major_b = static_cast<long>(kPages);
  s.minor_b = 0;
  EXPECT_FALSE(swap_figures({s}, kPages)[1].measured);
}

// zram: a repetition's read less its zero-filled faults, a fault; its pageout, a page.
TEST(SwapProbe, ZramReadIsBeyondAZeroFilledFaultAndWriteIsPerPage) {
  ZramSample s;
  s.zero_cpu_ns = 64 * 5000;
  s.zero_faults = kPages;
  s.pageout_cpu_ns = 64 * 8000;
  s.read_cpu_ns = 64 * 6500;
  s.read_major = kPages;
  const std::vector<Figure> f = zram_figures({s, s, s}, kPages);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].key, "zram_read");
  ASSERT_TRUE(f[0].measured);
  EXPECT_DOUBLE_EQ(f[0].ns.median, 1500.0);
  EXPECT_EQ(f[1].key, "zram_write");
  EXPECT_DOUBLE_EQ(f[1].ns.median, 8000.0);
}

// Pages read back without a major fault (a swap cache kept them, or they never left): left out.
TEST(SwapProbe, ZramRepetitionsWithoutMajorFaultsAreLeftOut) {
  ZramSample s;
  s.zero_cpu_ns = 64 * 5000;
  s.zero_faults = kPages;
  s.read_cpu_ns = 64 * 500;
  s.read_major = 3;
  const std::vector<Figure> f = zram_figures({s}, kPages);
  EXPECT_FALSE(f[0].measured);
  EXPECT_NE(f[0].note.find("skipped"), std::string::npos);
}

TEST(SwapProbe, AChildsPipeIsReadToItsEnd) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], "1 2 3\n", 6), 6);
  ::close(fds[1]);
  std::string text;
  EXPECT_TRUE(read_until_eof(fds[0], 60'000, &text));
  EXPECT_EQ(text, "1 2 3\n");
  ::close(fds[0]);
}

// A child that writes a line and then neither writes nor exits: the read keeps what came and
// gives up at its deadline (20 ms, so that the wait in poll() is what ends it).
TEST(SwapProbe, AChildThatDoesNotFinishIsGivenUpOn) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], "1\n", 2), 2);
  std::string text;
  const uint64_t start = now_ns();
  EXPECT_FALSE(read_until_eof(fds[0], 20, &text));
  EXPECT_GE(now_ns() - start, 20'000'000u) << "it waited for the deadline";
  EXPECT_EQ(text, "1\n");
  ::close(fds[0]);
  ::close(fds[1]);
}

}  // namespace
}  // namespace mmreplay::tools::calibrate
