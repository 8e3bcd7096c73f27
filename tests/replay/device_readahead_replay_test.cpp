// Each file's device readahead window as the trace recorded it (format 1.8): replay reads a cold
// mapped file ahead by its device's window, and a read_ahead_kb the policy gives stands for every
// device instead (replay/run.cpp set_files(), replay/policy_spec.h policy_names_knob()).

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "replay/policy_spec.h"
#include "replay/run.h"
#include "tests/formats/import/replay_imported.h"
#include "tests/formats/random_trace.h"

namespace mmreplay::replay {
namespace {

namespace ev = formats::ev;

constexpr uint64_t kMapping = 0x7f0000000000;
using formats::testing::kPage;
constexpr uint64_t kFilePages = 8192;  // 32 MiB
constexpr uint64_t kStride = 16;       // one fault per 64 KiB, as fault-around leaves them
constexpr uint32_t kProtRead = 1;
constexpr uint32_t kMapPrivate = 0x02;

// One thread maps a 32 MiB file that existed before the recording and faults it every 16 pages;
// the file's device had `read_ahead_kb` (-1: not recorded).
formats::ImportedTrace strided_mapped_read(int32_t read_ahead_kb) {
  formats::ImportedTrace t;
  t.meta.threads = {{1, 1, "reader"}};
  t.meta.files = {{1, "/data/input", kFilePages * kPage, 4096, formats::FileKind::kRegular, false,
                   read_ahead_kb}};
  std::vector<formats::Event>& events = t.streams.emplace_back();
  uint64_t ts = 1000;
  events.push_back(ev::thread_start(ts));
  events.push_back(
      ev::mmap(ts += 1000, kMapping, kFilePages * kPage, kProtRead, kMapPrivate, /*file_id=*/1, 0));
  for (uint64_t page = 0; page < kFilePages; page += kStride) {
    events.push_back(ev::page_fault(ts += 1000, kMapping + page * kPage, false));
  }
  events.push_back(ev::thread_exit(ts += 1000));
  return t;
}

RunResult replay_cold(const formats::ImportedTrace& trace, const std::string& name,
                      const std::string& policy,
                      std::optional<kernelsim::CostProfile> costs = std::nullopt) {
  RunSpec spec;
  spec.cpus = 1;
  spec.cache = CacheStart::kCold;
  spec.policy_name = policy;
  spec.costs = costs;
  EXPECT_TRUE(resolve_policy(policy, &spec.config, &spec.rewrites));
  return formats::testing::replay_imported(trace, name, spec);
}

TEST(DeviceReadaheadReplay, ACold8MiBWindowDeviceWaitsOnceWhereTheDefaultWaitsEveryFault) {
  const formats::ImportedTrace fast = strided_mapped_read(8192);
  const RunResult as_recorded = replay_cold(fast, "ra8192", "default");
  EXPECT_EQ(as_recorded.counters.at("faults"), kFilePages / kStride);
  EXPECT_EQ(as_recorded.counters.at("major_faults"), 1u);
  EXPECT_EQ(as_recorded.counters.at("pgcache_miss"), kFilePages);

  // The same recording with the knob given: 128 KiB for every device, as before format 1.8.
  const RunResult what_if = replay_cold(fast, "ra8192-what-if", "default+read_ahead_kb=128");
  EXPECT_EQ(what_if.counters.at("major_faults"), kFilePages / kStride - 1);

  // A file whose device was not recorded takes the knob (its default, 128 KiB).
  const RunResult unknown = replay_cold(strided_mapped_read(-1), "ra-unknown", "default");
  EXPECT_EQ(unknown.counters.at("major_faults"), kFilePages / kStride - 1);
}

// With a profile that prices a device request apart (calibrate's page_cache_read_request), the
// recorded 8 MiB window saves the 128 KiB what-if's 507 extra requests.
TEST(DeviceReadaheadReplay, TheRecordedWindowSavesRequestsOverTheWhatIf) {
  kernelsim::CostProfile costs = kernelsim::cost_profile_default();
  costs.page_cache_read_request = kernelsim::SimTime::us(50);
  costs.page_cache_miss_read = kernelsim::SimTime::us(1);
  const formats::ImportedTrace fast = strided_mapped_read(8192);
  const RunResult as_recorded = replay_cold(fast, "ra8192-request", "default", costs);
  const RunResult what_if =
      replay_cold(fast, "ra8192-request-what-if", "default+read_ahead_kb=128", costs);
  // 511 faults wait each for a request of its own (25.6 ms at least) where the recorded window
  // reads 8,192 pages in 4 (9.2 ms).
  EXPECT_GT(what_if.makespan_ns, 511u * 50'000u);
  EXPECT_GT(what_if.makespan_ns, 2 * as_recorded.makespan_ns);
}

TEST(DeviceReadaheadReplay, APolicyNamesAKnobOnlyWhenItSetsIt) {
  EXPECT_TRUE(policy_names_knob("read_ahead_kb=0", "read_ahead_kb"));
  EXPECT_TRUE(policy_names_knob("linux-6.6+read_ahead_kb=512", "read_ahead_kb"));
  EXPECT_TRUE(policy_names_knob("linux-6.6 + read_ahead_kb = 512", "read_ahead_kb"));
  EXPECT_FALSE(policy_names_knob("linux-6.6", "read_ahead_kb"));
  EXPECT_FALSE(policy_names_knob("default", "read_ahead_kb"));
  EXPECT_FALSE(policy_names_knob("madv_free=lazy+tlb=broadcast", "read_ahead_kb"));
}

}  // namespace
}  // namespace mmreplay::replay
