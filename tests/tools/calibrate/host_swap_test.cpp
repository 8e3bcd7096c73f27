// record's reading of /proc/swaps: the size of every area, and the kind of the one the kernel
// fills first (the highest priority).

#include "tools/calibrate/host_swap.h"

#include <gtest/gtest.h>

namespace mmreplay::tools {
namespace {

constexpr const char* kHeader = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";

TEST(HostSwap, NoAreaIsNoSwap) {
  const HostSwap swap = parse_proc_swaps(kHeader);
  EXPECT_EQ(swap.bytes, 0u);
  EXPECT_EQ(swap.device, "");
}

TEST(HostSwap, ZramIsSynchronousAndAFileIsABlockDevice) {
  EXPECT_EQ(
      parse_proc_swaps(std::string(kHeader) +
                       "/dev/zram0                              partition\t1048572\t\t0\t\t-2\n")
          .device,
      "zram");
  const HostSwap file = parse_proc_swaps(std::string(kHeader) + "/swapfile file 4194300 12 -2\n");
  EXPECT_EQ(file.device, "block");
  EXPECT_EQ(file.bytes, uint64_t{4194300} * 1024);
}

TEST(HostSwap, TheHighestPriorityAreaGivesTheKindAndAllGiveTheSize) {
  const HostSwap swap = parse_proc_swaps(std::string(kHeader) +
                                         "/dev/vda3 partition 8388604 0 -2\n"
                                         "/dev/zram0 partition 4194300 0 100\n");
  EXPECT_EQ(swap.device, "zram");
  EXPECT_EQ(swap.bytes, uint64_t{8388604 + 4194300} * 1024);
  EXPECT_EQ(parse_proc_swaps(std::string(kHeader) + "/dev/zram0 partition 4194300 0 -3\n"
                                                    "/dev/nvme0n1p2 partition 8388604 0 -2\n")
                .device,
            "block");
}

TEST(HostSwap, AFileOnADirectoryNamedLikeZramIsNotZram) {
  EXPECT_EQ(parse_proc_swaps(std::string(kHeader) + "/dev/zram0/swapfile file 1024 0 -2\n").device,
            "block");
}

TEST(HostSwap, ALineThatDoesNotParseIsSkipped) {
  const HostSwap swap = parse_proc_swaps(std::string(kHeader) +
                                         "garbage\n"
                                         "/swapfile file 1024 0 -2\n");
  EXPECT_EQ(swap.bytes, 1024u * 1024);
  EXPECT_EQ(swap.device, "block");
}

TEST(HostSwap, AnUnreadableFileIsNoSwap) {
  EXPECT_EQ(host_swap("/nonexistent/proc/swaps").bytes, 0u);
}

}  // namespace
}  // namespace mmreplay::tools
