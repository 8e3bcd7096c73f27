// The chunk encoding of format 1.6 (columns by kind, formats/chunk_codec.h): exact round trips of
// values the predictions get wrong, and clear errors for column indexes that lie.

#include "formats/chunk_codec.h"

#include <capnp/message.h>
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include "tests/formats/random_trace.h"

namespace mmreplay::formats {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

// Encodes `events` (ranges only for vector madvise) into `message` and returns its chunk.
capnp_schema::Chunk::Builder encode(capnp::MallocMessageBuilder& message,
                                    const std::vector<Event>& events,
                                    const std::vector<std::vector<Range>>& ranges) {
  ChunkEncoder enc;
  for (size_t i = 0; i < events.size(); ++i) enc.append(events[i], ranges[i]);
  auto chunk = message.initRoot<capnp_schema::Chunk>();
  enc.build(chunk, 3, 7);
  return chunk;
}

Status decode(capnp_schema::Chunk::Builder chunk, DecodedChunk* out) {
  return decode_chunk(chunk.asReader(), 100, out);
}

// Timestamps out of order, addresses that wrap, unaligned lengths, file offsets going backwards,
// every field at its extremes: what the predictions get wrong still reads back exactly.
TEST(ChunkCodec, MispredictedValuesRoundTripExactly) {
  std::vector<Event> events = {
      ev::page_fault(1000, 0x7f0000001000, true),
      ev::touch(900, 0x7f0000001000, 3 * 4096 + 5, true, 4096),  // earlier than the fault
      ev::page_fault(kMax, kMax, false, true, true),
      ev::page_fault(0, 0, false),
      ev::madvise(5, 0x1234, 0x5679, kMadvFree),
      ev::madvise_vector(6, kMadvDontNeed),
      ev::mmap(7, kMax - 4095, kMax, 3, 0x22, kMax, kMax),
      ev::file_read(8, 4, 1 << 20, 4096),
      ev::file_read(9, 4, (1 << 20) + 4096, 100),
      ev::file_write(10, 5, 0, kMax),
      ev::file_read(11, 4, 12345, 0),
      ev::futex_wait(12, kMax, 0xdead, kMax - 1),
      ev::observation(13, ObservationKind::kTlbFlush, kMax),
  };
  std::vector<std::vector<Range>> ranges(events.size());
  ranges[5] = {{kMax - 4095, 4096}, {0, kMax}, {0x1000, 1}};
  capnp::MallocMessageBuilder message;
  auto chunk = encode(message, events, ranges);
  EXPECT_EQ(chunk.getEncoding(), capnp_schema::ChunkEncoding::BY_KIND);
  DecodedChunk out;
  ASSERT_TRUE(decode(chunk, &out)) << decode(chunk, &out).message();
  ASSERT_EQ(out.events.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    Event got = out.events[i];
    if (got.kind == EventKind::kMadviseVector) {
      EXPECT_EQ(std::vector<Range>(out.ranges.begin() + got.range_begin,
                                   out.ranges.begin() + got.range_begin + got.range_count),
                ranges[i]);
      got.range_begin = 0;
      got.range_count = 0;
    }
    EXPECT_EQ(got, events[i]) << "event " << i;
  }
  EXPECT_EQ(out.ref.stream, 3u);
  EXPECT_EQ(out.ref.seq, 7u);
}

// A chunk whose column index is replaced by `index` (varints: kind, field, head, tail).
Status decode_with_index(const std::vector<uint8_t>& index, std::string* message) {
  capnp::MallocMessageBuilder builder;
  auto chunk = encode(builder, {ev::page_fault(10, 0x1000, true), ev::page_fault(20, 0x2000, true)},
                      {{}, {}});
  chunk.setColumnIndex(capnp::Data::Reader(index.data(), index.size()));
  DecodedChunk out;
  Status s = decode(chunk, &out);
  *message = s.message();
  return s;
}

TEST(ChunkCodec, LyingColumnIndexIsAnErrorNamingTheFrame) {
  const auto fault = static_cast<uint8_t>(EventKind::kPageFault);
  std::string message;
  // The columns of the chunk above: ts (2 bytes), flags (2), addr (2) of page_fault.
  ASSERT_TRUE(decode_with_index({fault, 0, 2, 0, fault, 2, 2, 0, fault, 3, 2, 0}, &message));
  // Longer than the column bytes.
  EXPECT_FALSE(decode_with_index({fault, 0, 2, 0, fault, 2, 2, 0, fault, 3, 100, 0}, &message));
  EXPECT_NE(message.find("past the end of the column bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("offset 100"), std::string::npos) << message;
  // A length near 2^64 must not wrap the bounds check.
  EXPECT_FALSE(
      decode_with_index({fault, 0,    2,     0xff, 0xff, 0xff, 0xff,  0xff, 0xff, 0xff, 0xff,
                         0xff,  0x01, fault, 2,    2,    0,    fault, 3,    2,    0},
                        &message));
  // Bytes no column holds.
  EXPECT_FALSE(decode_with_index({fault, 0, 2, 0, fault, 2, 2, 0}, &message));
  EXPECT_NE(message.find("no column holds"), std::string::npos) << message;
  // Unknown kind or field, two columns for one field, an entry cut short.
  EXPECT_FALSE(decode_with_index({60, 0, 2, 0, fault, 2, 2, 0, fault, 3, 2, 0}, &message));
  EXPECT_NE(message.find("unknown kind 60"), std::string::npos) << message;
  EXPECT_FALSE(decode_with_index({fault, 9, 2, 0, fault, 2, 2, 0, fault, 3, 2, 0}, &message));
  EXPECT_FALSE(decode_with_index({fault, 0, 2, 0, fault, 0, 2, 0, fault, 3, 2, 0}, &message));
  EXPECT_NE(message.find("two columns"), std::string::npos) << message;
  EXPECT_FALSE(decode_with_index({fault, 0, 2, 0, fault, 2, 2}, &message));
  EXPECT_NE(message.find("ends inside an entry"), std::string::npos) << message;
  // Columns swapped between fields: the lengths still add up, the values do not.
  EXPECT_FALSE(decode_with_index({fault, 0, 2, 0, fault, 3, 2, 0, fault, 2, 2, 0}, &message));
}

TEST(ChunkCodec, VectorRangeCountPastItsAddressesIsAnError) {
  capnp::MallocMessageBuilder builder;
  auto chunk = encode(builder, {ev::madvise_vector(1, kMadvDontNeed)}, {{{0x1000, 0x1000}}});
  // Columns of madvise_vector, field-major: ts, addr, len, arg0, arg2 (the range count, 1).
  const capnp::Data::Reader bytes = chunk.getColumnBytes();
  std::vector<uint8_t> patched(bytes.begin(), bytes.end());
  ASSERT_EQ(patched.back(), 1u);
  patched.back() = 100;
  chunk.setColumnBytes(capnp::Data::Reader(patched.data(), patched.size()));
  DecodedChunk out;
  const Status s = decode(chunk, &out);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("range count"), std::string::npos) << s.message();
}

// Every kind mixed at random, with the kinds that predict each other's values (faults and touches,
// madvise and vector madvise, the mapping calls, file reads and writes) interleaved, reads back
// exactly and in order, whether the kind changes at every event or in runs of 16: the decoder
// reads by kind and adds the predictions up in event order. With `wide_flags`, every third event
// has flags of any byte value (those of 0x80 and above are two-byte varints, which the passes read
// apart from one-byte flags).
void expect_random_kinds_round_trip(uint32_t run, bool wide_flags = false) {
  std::mt19937_64 pick(18);
  uint64_t rng = 18;
  std::vector<Event> events;
  std::vector<std::vector<Range>> ranges;
  uint64_t ts = 1;
  auto kind = EventKind::kThreadStart;
  for (uint32_t i = 0; i < 3000; ++i) {
    if (i % run == 0) kind = static_cast<EventKind>(pick() % kEventKindCount);
    ts += pick() % 5000;
    std::vector<Range> r;
    events.push_back(testing::random_event(kind, ts, &rng, &r));
    if (wide_flags && i % 3 == 0) events.back().flags = static_cast<uint8_t>(pick());
    ranges.push_back(std::move(r));
  }
  capnp::MallocMessageBuilder message;
  auto chunk = encode(message, events, ranges);
  DecodedChunk out;
  ASSERT_TRUE(decode(chunk, &out)) << decode(chunk, &out).message();
  ASSERT_EQ(out.events.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    Event got = out.events[i];
    EXPECT_EQ(std::vector<Range>(out.ranges.begin() + got.range_begin,
                                 out.ranges.begin() + got.range_begin + got.range_count),
              ranges[i])
        << "event " << i;
    got.range_begin = events[i].range_begin;
    got.range_count = events[i].range_count;
    ASSERT_EQ(got, events[i]) << "event " << i << " (" << kind_name(events[i].kind) << ")";
  }
}

TEST(ChunkCodec, KindsInterleavedAtRandomRoundTripInOrder) {
  expect_random_kinds_round_trip(1);
}

TEST(ChunkCodec, KindsInRunsRoundTripInOrder) {
  expect_random_kinds_round_trip(16);
}

TEST(ChunkCodec, FlagsOfAnyByteRoundTripWhicheverDecoderReadsThem) {
  expect_random_kinds_round_trip(1, /*wide_flags=*/true);
  expect_random_kinds_round_trip(16, /*wide_flags=*/true);
}

TEST(ChunkCodec, UnknownEncodingIsNamed) {
  capnp::MallocMessageBuilder builder;
  auto chunk = encode(builder, {ev::thread_start(1)}, {{}});
  chunk.setEncoding(static_cast<capnp_schema::ChunkEncoding>(7));
  DecodedChunk out;
  const Status s = decode(chunk, &out);
  EXPECT_FALSE(s);
  EXPECT_NE(s.message().find("unknown column encoding 7"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace mmreplay::formats
