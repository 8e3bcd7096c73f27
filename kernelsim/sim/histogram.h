// Histogram: a log-linear histogram of non-negative integer values (nanoseconds, pages).
//
// Values below 2^(b+1) are counted exactly; above, each power of two is split into 2^b equal
// buckets, so a recorded value is known to within 2^-b of itself, the scheme of HdrHistogram.
// The default b = 10 (within 0.1%) is HdrHistogram's "3 significant digits", the precision the
// results promise. Buckets are allocated as large values arrive, so an unused histogram costs a few
// bytes. Histograms with the same precision merge exactly (bucket counts add), which lets results
// of split runs be combined.

#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace mmreplay::kernelsim {

class Histogram {
 public:
  static constexpr int kDefaultSubBucketBits = 10;

  Histogram() : Histogram(kDefaultSubBucketBits) {}
  explicit Histogram(int sub_bucket_bits);

  void record(uint64_t value) { record_n(value, 1); }
  // Inline: a fault records four or five values (its latency, lock waits and holds).
  void record_n(uint64_t value, uint64_t n) {
    if (n == 0) return;
    const size_t i = index_of(value);
    if (i >= buckets_.size()) buckets_.resize(i + 1, 0);
    buckets_[i] += n;
    if (count_ == 0 || value < min_) min_ = value;
    if (value > max_) max_ = value;
    count_ += n;
    sum_ += value * n;
  }

  // REQUIRES: other.sub_bucket_bits() == sub_bucket_bits().
  void merge(const Histogram& other);

  uint64_t count() const { return count_; }
  uint64_t sum() const { return sum_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const {
    return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0;
  }
  int sub_bucket_bits() const { return bits_; }

  // The smallest bucket bound v such that at least `percent`% of values are <= v (clamped to
  // max()). percentile(100) == max(). 0 for an empty histogram.
  // REQUIRES: 0 <= percent <= 100.
  uint64_t percentile(double percent) const;

  // Calls fn(low, high, count) for every non-empty bucket, in increasing order; the bucket holds
  // values in [low, high].
  void for_each_bucket(const std::function<void(uint64_t, uint64_t, uint64_t)>& fn) const;

  friend bool operator==(const Histogram&, const Histogram&) = default;

 private:
  // Bucket index of v with S = 2^b sub-buckets: shift = max(0, bit_width(v) - b - 1) and
  // index = shift * S + (v >> shift). For shift 0 this is v itself (exact counts below 2S); for
  // larger v, v >> shift lies in [S, 2S), so consecutive shifts tile the index space.
  size_t index_of(uint64_t v) const {
    const int width = std::bit_width(v);
    const int shift = width > bits_ + 1 ? width - bits_ - 1 : 0;
    return (static_cast<size_t>(shift) << bits_) + static_cast<size_t>(v >> shift);
  }
  uint64_t low_of(size_t index) const;
  uint64_t high_of(size_t index) const;

  int bits_;
  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  uint64_t sum_ = 0;
  uint64_t min_ = 0;
  uint64_t max_ = 0;
};

}  // namespace mmreplay::kernelsim
