#include "tests/formats/hostile_trace.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <gtest/gtest.h>

#include <span>

#include "formats/frame_io.h"
#include "formats/trace.capnp.h"

namespace mmreplay::formats::testing {

std::string with_chunk_stream(const std::string& frame, uint32_t stream) {
  WordBuffer words;
  const auto bytes = std::span(reinterpret_cast<const uint8_t*>(frame.data()), frame.size());
  Status status = decompress_frame(bytes, 0, 256ull << 20, &words);
  EXPECT_TRUE(status) << status.message();
  capnp::FlatArrayMessageReader reader(as_words(words));
  capnp::MallocMessageBuilder builder;
  builder.setRoot(reader.getRoot<capnp_schema::Frame>());
  builder.getRoot<capnp_schema::Frame>().getChunk().setStream(stream);
  FrameCompressor compressor(3);
  std::string out;
  status = compressor.compress(builder, &out);
  EXPECT_TRUE(status) << status.message();
  return out;
}

std::string splice(const std::string& file, uint64_t offset, uint64_t size,
                   const std::string& frame) {
  return file.substr(0, offset) + frame + file.substr(offset + size);
}

}  // namespace mmreplay::formats::testing
