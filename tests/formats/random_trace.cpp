#include "tests/formats/random_trace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "formats/trace_reader.h"

namespace mmreplay::formats::testing {
namespace {

uint64_t next(uint64_t* s) {  // splitmix64: fixed output on every platform
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Mostly page-aligned user addresses, sometimes extreme ones.
uint64_t random_addr(uint64_t* rng) {
  switch (next(rng) % 16) {
    case 0:
      return 0;
    case 1:
      return ~uint64_t{0};
    case 2:
      return next(rng);
    default:
      return 0x7f0000000000ull + (next(rng) % (1ull << 30)) * 4096;
  }
}

uint64_t random_len(uint64_t* rng) {
  switch (next(rng) % 8) {
    case 0:
      return next(rng);
    case 1:
      return 0;
    default:
      return (1 + next(rng) % 512) * 4096;
  }
}

}  // namespace

uint64_t RandomTrace::total_events() const {
  uint64_t n = 0;
  for (const auto& s : streams) n += s.events.size();
  return n;
}

Event random_event(EventKind kind, uint64_t ts, uint64_t* rng, std::vector<Range>* ranges) {
  ranges->clear();
  const uint64_t a = random_addr(rng), l = random_len(rng);
  Event e;
  switch (kind) {
    case EventKind::kThreadStart:
      e = ev::thread_start(ts);
      break;
    case EventKind::kThreadExit:
      e = ev::thread_exit(ts);
      break;
    case EventKind::kMmCreate:
      e = ev::mm_create(ts, next(rng) % 100, next(rng) % 100);
      break;
    case EventKind::kMmExit:
      e = ev::mm_exit(ts, next(rng) % 100);
      break;
    case EventKind::kMmap:
      e = ev::mmap(ts, a, l, next(rng) & 7, static_cast<uint32_t>(next(rng)), next(rng) % 4,
                   next(rng) % 3 == 0 ? next(rng) : 4096 * (next(rng) % 100));
      break;
    case EventKind::kMunmap:
      e = ev::munmap(ts, a, l);
      break;
    case EventKind::kMprotect:
      e = ev::mprotect(ts, a, l, next(rng) & 7);
      break;
    case EventKind::kMremap:
      e = ev::mremap(ts, a, l, random_addr(rng), random_len(rng), next(rng) % 4);
      break;
    case EventKind::kBrk:
      e = ev::brk(ts, a);
      break;
    case EventKind::kMadvise:
      e = ev::madvise(ts, a, l, next(rng) % 2 ? kMadvDontNeed : kMadvFree);
      break;
    case EventKind::kMadviseVector: {
      e = ev::madvise_vector(ts, next(rng) % 2 ? kMadvDontNeed : kMadvFree);
      const uint64_t n = next(rng) % 20;
      for (uint64_t i = 0; i < n; ++i) ranges->push_back({random_addr(rng), random_len(rng)});
      break;
    }
    case EventKind::kPageFault:
      e = ev::page_fault(ts, a, next(rng) % 2, next(rng) % 5 == 0);
      break;
    case EventKind::kTouch:
      e = ev::touch(ts, a, l, next(rng) % 2, (next(rng) % 3) * 4096);
      break;
    case EventKind::kFileRead:
      e = ev::file_read(ts, 1 + next(rng) % 3, next(rng), l);
      break;
    case EventKind::kFileWrite:
      e = ev::file_write(ts, 1 + next(rng) % 3, next(rng), l);
      break;
    case EventKind::kFsync:
      e = ev::fsync(ts, 1 + next(rng) % 3);
      break;
    case EventKind::kFileTruncate:
      e = ev::file_truncate(ts, 1 + next(rng) % 3, next(rng) % 2 ? l : 0,
                            next(rng) % 2 ? next(rng) % 100 : kTruncatedPagesUnknown);
      break;
    case EventKind::kContigAlloc:
      e = ev::contig_alloc(ts, next(rng) % 64, l);
      break;
    case EventKind::kContigFree:
      e = ev::contig_free(ts, next(rng) % 64);
      break;
    case EventKind::kClone:
      e = ev::clone(ts, next(rng) % 100, next(rng) % 2 ? next(rng) : kCloneFlagsUnknown);
      break;
    case EventKind::kWaitChild:
      e = ev::wait_child(ts, next(rng) % 100, BlockCall::kWait4,
                         next(rng) % 2 ? next(rng) % 1000000 : kNoDuration);
      break;
    case EventKind::kFutexWake:
      e = ev::futex_wake(ts, next(rng) % 10, a);
      break;
    case EventKind::kFutexWait:
      e = ev::futex_wait(ts, next(rng) % 10, a, next(rng) % 2 ? next(rng) % 1000000 : kNoDuration);
      break;
    case EventKind::kObservation:
      e = ev::observation(ts, static_cast<ObservationKind>(next(rng) % kObservationKindCount),
                          next(rng) % 2 ? next(rng) : 1);
      break;
    case EventKind::kBlock:
      e = ev::block(ts, static_cast<BlockCall>(next(rng) % kBlockCallCount), kNoDuration);
      break;
  }
  if (next(rng) % 3 == 0) e.duration_ns = next(rng) % 4 == 0 ? next(rng) >> 1 : next(rng) % 100000;
  return e;
}

RandomTrace make_random_trace(uint64_t seed, uint32_t threads, uint32_t events_per_thread) {
  uint64_t rng = seed;
  RandomTrace t;
  t.meta.recorder.tool = "random_trace test";
  t.meta.recorder.command_line = "make_random_trace(" + std::to_string(seed) + ")";
  t.meta.recorder.kernel_release = "6.1.0-test";
  t.meta.recorder.cpus = 48;
  t.meta.recorder.memory_bytes = 3ull << 30;
  t.meta.recorder.swap_bytes = 8ull << 30;
  t.meta.generator = "random";
  t.meta.params = {{"seed", std::to_string(seed)}, {"threads", std::to_string(threads)}};
  t.meta.files = {{1, "/data/a", 1ull << 30, 4096}, {2, "/data/b", 4096, 1024}, {3, "", 0, 4096}};
  t.streams.resize(threads);
  for (uint32_t s = 0; s < threads; ++s) {
    t.meta.threads.push_back({1000 + s, 1 + s % 3, "thread-" + std::to_string(s),
                              s % 2 ? static_cast<int32_t>(s % 48) : -1});
    uint64_t ts = next(&rng) % 1000000;
    for (uint32_t i = 0; i < events_per_thread; ++i) {
      // Cycle through every kind first, then pick at random.
      const auto kind =
          static_cast<EventKind>(i < kEventKindCount ? i : next(&rng) % kEventKindCount);
      ts += next(&rng) % 4 == 0 ? next(&rng) % 10000000 : next(&rng) % 2000;
      std::vector<Range> ranges;
      t.streams[s].events.push_back(random_event(kind, ts, &rng, &ranges));
      t.streams[s].ranges.push_back(std::move(ranges));
    }
  }
  return t;
}

void write_trace(const std::string& path, const RandomTrace& trace, WriterOptions options) {
  Status status;
  auto writer = TraceWriter::create(path, trace.meta, options, &status);
  ASSERT_TRUE(writer) << status.message();
  std::vector<size_t> pos(trace.streams.size(), 0);
  bool more = true;
  while (more) {
    more = false;
    for (uint32_t s = 0; s < trace.streams.size(); ++s) {
      const auto& st = trace.streams[s];
      // A few events of this thread at a time, as per-CPU buffers of a recorder would deliver.
      for (int k = 0; k < 3 && pos[s] < st.events.size(); ++k, ++pos[s]) {
        Status a = writer->append(s, st.events[pos[s]], st.ranges[pos[s]]);
        ASSERT_TRUE(a) << a.message();
      }
      more = more || pos[s] < st.events.size();
    }
  }
  Status c = writer->close();
  ASSERT_TRUE(c) << c.message();
}

RandomTrace read_trace(const std::string& path) {
  RandomTrace t;
  Status status;
  auto reader = TraceReader::open(path, ReaderOptions(), &status);
  EXPECT_TRUE(reader) << status.message();
  if (!reader) return t;
  t.meta = reader->meta();
  t.streams.resize(t.meta.threads.size());
  for (uint32_t s = 0; s < t.meta.threads.size(); ++s) {
    StreamCursor cursor(*reader, s);
    while (cursor.next()) {
      Event e = cursor.event();
      auto r = cursor.ranges();
      e.range_begin = 0;  // positions inside a chunk are not part of the event's content
      e.range_count = 0;
      t.streams[s].events.push_back(e);
      t.streams[s].ranges.emplace_back(r.begin(), r.end());
    }
    EXPECT_TRUE(cursor.status()) << cursor.status().message();
  }
  return t;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string temp_path(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string test = info ? std::string(info->test_suite_name()) + "." + info->name() : "global";
  for (char& c : test) {
    if (c == '/') c = '_';
  }
  const auto dir = std::filesystem::temp_directory_path() / "mmreplay-tests";
  std::filesystem::create_directories(dir);
  return (dir / (test + "." + std::to_string(::getpid()) + "." + name)).string();
}

}  // namespace mmreplay::formats::testing
