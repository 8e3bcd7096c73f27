// validate --real --pressure's machine side that runs without root: reading /proc/swaps.

#include "tools/calibrate/pressure_sandbox.h"

#include <gtest/gtest.h>

namespace mmreplay::tools::calibrate {
namespace {

TEST(PressureSandbox, SwapTotalSumsTheSizeColumnInKib) {
  EXPECT_EQ(parse_swap_total("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"), 0u);
  EXPECT_EQ(
      parse_swap_total("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
                       "/var/tmp/x/pressure.swap               file\t\t1048572\t\t0\t\t-2\n"
                       "/dev/zram0                              partition\t4194300\t\t12\t\t100\n"),
      (uint64_t{1048572} + 4194300) * 1024);
  EXPECT_EQ(parse_swap_total(""), 0u);
  EXPECT_EQ(parse_swap_total("Filename Type Size Used Priority\ngarbage line\n"), 0u);
}

}  // namespace
}  // namespace mmreplay::tools::calibrate
