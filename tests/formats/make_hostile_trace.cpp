// Writes IN with its first chunk's stream id set to STREAM to OUT (the command-line tests of the
// reader's validation: a crafted stream id must be refused, not crash or allocate per id).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "formats/trace_reader.h"
#include "tests/formats/hostile_trace.h"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: make_hostile_trace IN OUT STREAM\n");
    return 2;
  }
  using namespace mmreplay::formats;
  mmreplay::Status status;
  auto reader = TraceReader::open(argv[1], ReaderOptions(), &status);
  if (!reader || reader->chunks().empty()) {
    std::fprintf(stderr, "%s\n", status.message().c_str());
    return 1;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::string file(std::istreambuf_iterator<char>(in), {});
  const ChunkRef& c = reader->chunks().front();
  const auto stream = static_cast<uint32_t>(std::strtoul(argv[3], nullptr, 10));
  const std::string frame = testing::with_chunk_stream(file.substr(c.offset, c.size), stream);
  const std::string out = testing::splice(file, c.offset, c.size, frame);
  std::ofstream(argv[2], std::ios::binary)
      .write(out.data(), static_cast<std::streamsize>(out.size()));
  return 0;
}
