// A fixed, documented pseudo-random generator for the workload generators.
//
// Why not <random>: std::uniform_int_distribution and friends are implementation-defined, so
// libstdc++ and libc++ turn the same engine output into different numbers. The issue asks for
// "same seed, same bytes" on any host, so every draw goes through the integer-only helpers below.
//
// The engine is SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014; the constants are those of java.util.SplittableRandom). It passes BigCrush, needs
// one 64-bit word of state and is trivially reproducible from this file alone.

#pragma once

#include <cstdint>

namespace mmreplay::gen {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    state_ += kGoldenGamma;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * kMix1;
    z = (z ^ (z >> 27)) * kMix2;
    return z ^ (z >> 31);
  }

  // Uniform in [0, n). The modulo bias is below n / 2^64, negligible for the counts used here.
  // REQUIRES: n > 0.
  uint64_t below(uint64_t n) { return next() % n; }

  // Uniform in [lo, hi]. REQUIRES: lo <= hi.
  uint64_t between(uint64_t lo, uint64_t hi) { return lo + below(hi - lo + 1); }

  // True with probability percent / 100.
  bool percent(uint64_t percent) { return below(kPercentScale) < percent; }

  // A size spread evenly over powers of two between lo and hi (log-uniform, as allocation sizes
  // of real programs are), computed with integers only: pick an octave, then a point inside it.
  // REQUIRES: 0 < lo <= hi.
  uint64_t log_uniform(uint64_t lo, uint64_t hi);

  // A generator for a sub-stream (one per thread), independent of the order other streams draw in.
  static SplitMix64 for_stream(uint64_t seed, uint64_t stream) {
    SplitMix64 mixer(seed ^ (stream * kStreamSpread));
    return SplitMix64(mixer.next());
  }

 private:
  static constexpr uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ull;  // 2^64 / golden ratio
  static constexpr uint64_t kMix1 = 0xbf58476d1ce4e5b9ull;
  static constexpr uint64_t kMix2 = 0x94d049bb133111ebull;
  static constexpr uint64_t kStreamSpread = 0xd1b54a32d192ed03ull;  // odd, from Steele et al.
  static constexpr uint64_t kPercentScale = 100;
  uint64_t state_;
};

inline uint64_t SplitMix64::log_uniform(uint64_t lo, uint64_t hi) {
  int lo_octave = 63 - __builtin_clzll(lo);
  int hi_octave = 63 - __builtin_clzll(hi);
  int octave =
      lo_octave + static_cast<int>(below(static_cast<uint64_t>(hi_octave - lo_octave) + 1));
  uint64_t base = uint64_t{1} << octave;
  uint64_t value = base + below(base);
  if (value < lo) value = lo;
  if (value > hi) value = hi;
  return value;
}

}  // namespace mmreplay::gen
