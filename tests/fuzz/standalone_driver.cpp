// Runs a libFuzzer-style target without libFuzzer (g++ builds): every file of the corpus, then a
// fixed number of deterministic mutations of them (bit flips, byte runs, cuts, splices, duplicated
// ranges). Same arguments, same inputs: a failure reproduces.
//
//   fuzz_trace_reader [--iterations N] [--seed S] CORPUS_DIR...

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

uint64_t next(uint64_t* s) {  // splitmix64
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<uint8_t> mutate(std::vector<uint8_t> in, const std::vector<uint8_t>& other,
                            uint64_t* rng) {
  if (in.empty()) return other;
  const int rounds = 1 + static_cast<int>(next(rng) % 4);
  for (int r = 0; r < rounds && !in.empty(); ++r) {
    const size_t pos = next(rng) % in.size();
    switch (next(rng) % 6) {
      case 0:
        in[pos] ^= static_cast<uint8_t>(1u << (next(rng) % 8));
        break;
      case 1:
        in[pos] = static_cast<uint8_t>(next(rng));
        break;
      case 2:
        in.resize(pos);
        break;   // cut
      case 3: {  // run of 0x00 / 0xff (lengths, counts)
        const size_t n = std::min<size_t>(in.size() - pos, 1 + next(rng) % 8);
        std::memset(in.data() + pos, next(rng) % 2 ? 0xff : 0x00, n);
        break;
      }
      case 4: {  // splice the tail of another input
        const size_t from = other.empty() ? 0 : next(rng) % other.size();
        in.resize(pos);
        in.insert(in.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
        break;
      }
      case 5: {  // duplicate a range
        const size_t n = std::min<size_t>(in.size() - pos, 1 + next(rng) % 64);
        std::vector<uint8_t> copy(in.begin() + static_cast<std::ptrdiff_t>(pos),
                                  in.begin() + static_cast<std::ptrdiff_t>(pos + n));
        in.insert(in.begin() + static_cast<std::ptrdiff_t>(next(rng) % in.size()), copy.begin(),
                  copy.end());
        break;
      }
    }
  }
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t iterations = 1000, seed = 1;
  std::vector<std::vector<uint8_t>> corpus;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--iterations" && i + 1 < argc) {
      iterations = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        std::ifstream in(entry.path(), std::ios::binary);
        corpus.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      }
    } else {
      std::fprintf(stderr, "fuzz driver: %s: not a corpus directory or flag\n", arg.c_str());
      return 2;
    }
  }
  if (corpus.empty()) {
    std::fprintf(stderr, "fuzz driver: empty corpus\n");
    return 2;
  }
  for (const auto& input : corpus) LLVMFuzzerTestOneInput(input.data(), input.size());
  uint64_t rng = seed;
  for (uint64_t i = 0; i < iterations; ++i) {
    const auto& base = corpus[next(&rng) % corpus.size()];
    const auto& other = corpus[next(&rng) % corpus.size()];
    const std::vector<uint8_t> input = mutate(base, other, &rng);
    LLVMFuzzerTestOneInput(input.data(), input.size());
  }
  std::printf("fuzz driver: %zu corpus inputs and %llu mutations ran without a crash\n",
              corpus.size(), static_cast<unsigned long long>(iterations));
  return 0;
}
