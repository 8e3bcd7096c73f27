// Each file's device readahead window as the trace recorded it (format 1.8): replay reads a cold
// mapped file ahead by its device's window, and a read_ahead_kb the policy gives stands for every
// device instead (replay/run.cpp set_files(), replay/policy_spec.h policy_names_knob()).

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "replay/policy_spec.h"
#include "replay/run.h"
#include "tests/formats/random_trace.h"

namespace mmreplay::replay {
namespace {

namespace ev = formats::ev;

constexpr uint64_t kMapping = 0x7f0000000000;
constexpr uint64_t kPage = 4096;
constexpr uint64_t kFilePages = 8192;  // 32 MiB
constexpr uint64_t kStride = 16;       // one fault per 64 KiB, as fault-around leaves them
constexpr uint32_t kProtRead = 1;
constexpr uint32_t kMapPrivate = 0x02;

// One thread maps a 32 MiB file that existed before the recording and faults it every 16 pages;
// the file's device had `read_ahead_kb` (-1: not recorded).
std::string strided_mapped_read(const std::string& name, int32_t read_ahead_kb) {
  const std::string path = formats::testing::temp_path(name);
  formats::TraceMeta meta;
  meta.threads = {{1, 1, "reader"}};
  meta.files = {{1, "/data/input", kFilePages * kPage, 4096, formats::FileKind::kRegular, false,
                 read_ahead_kb}};
  Status s;
  auto w = formats::TraceWriter::create(path, meta, formats::WriterOptions(), &s);
  EXPECT_TRUE(w) << s.message();
  uint64_t ts = 1000;
  EXPECT_TRUE(w->append(0, ev::thread_start(ts)));
  EXPECT_TRUE(w->append(0, ev::mmap(ts += 1000, kMapping, kFilePages * kPage, kProtRead,
                                    kMapPrivate, /*file_id=*/1, 0)));
  for (uint64_t page = 0; page < kFilePages; page += kStride) {
    EXPECT_TRUE(w->append(0, ev::page_fault(ts += 1000, kMapping + page * kPage, false)));
  }
  EXPECT_TRUE(w->append(0, ev::thread_exit(ts += 1000)));
  EXPECT_TRUE(w->close());
  return path;
}

RunResult replay_cold(const std::string& path, const std::string& policy,
                      std::optional<kernelsim::CostProfile> costs = std::nullopt) {
  Status s;
  auto reader = formats::TraceReader::open(path, formats::ReaderOptions(), &s);
  EXPECT_TRUE(reader) << s.message();
  ChunkCache cache(8);
  RunSpec spec;
  spec.cpus = 1;
  spec.cache = CacheStart::kCold;
  spec.policy_name = policy;
  spec.costs = costs;
  EXPECT_TRUE(resolve_policy(policy, &spec.config, &spec.rewrites));
  RunResult r;
  EXPECT_TRUE(execute_run(spec, *reader, cache, &r));
  return r;
}

TEST(DeviceReadaheadReplay, ACold8MiBWindowDeviceWaitsOnceWhereTheDefaultWaitsEveryFault) {
  const std::string fast = strided_mapped_read("ra8192.mmtrace", 8192);
  const RunResult as_recorded = replay_cold(fast, "default");
  EXPECT_EQ(as_recorded.counters.at("faults"), kFilePages / kStride);
  EXPECT_EQ(as_recorded.counters.at("major_faults"), 1u);
  EXPECT_EQ(as_recorded.counters.at("pgcache_miss"), kFilePages);

  // The same recording with the knob given: 128 KiB for every device, as before format 1.8.
  const RunResult what_if = replay_cold(fast, "default+read_ahead_kb=128");
  EXPECT_EQ(what_if.counters.at("major_faults"), kFilePages / kStride - 1);

  // A file whose device was not recorded takes the knob (its default, 128 KiB).
  const RunResult unknown = replay_cold(strided_mapped_read("ra-unknown.mmtrace", -1), "default");
  EXPECT_EQ(unknown.counters.at("major_faults"), kFilePages / kStride - 1);
}

// With a profile that prices a device request apart (calibrate's page_cache_read_request), the
// recorded 8 MiB window saves the 128 KiB what-if's 507 extra requests.
TEST(DeviceReadaheadReplay, TheRecordedWindowSavesRequestsOverTheWhatIf) {
  kernelsim::CostProfile costs = kernelsim::cost_profile_default();
  costs.page_cache_read_request = kernelsim::SimTime::us(50);
  costs.page_cache_miss_read = kernelsim::SimTime::us(1);
  const std::string fast = strided_mapped_read("ra8192-request.mmtrace", 8192);
  const RunResult as_recorded = replay_cold(fast, "default", costs);
  const RunResult what_if = replay_cold(fast, "default+read_ahead_kb=128", costs);
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
