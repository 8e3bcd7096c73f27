#include "kernelsim/sim/histogram.h"

#include <cassert>
#include <cmath>

namespace mmreplay::kernelsim {

Histogram::Histogram(int sub_bucket_bits) : bits_(sub_bucket_bits) {
  assert(sub_bucket_bits >= 1 && sub_bucket_bits <= 16);
}

uint64_t Histogram::low_of(size_t index) const {
  const size_t s = size_t{1} << bits_;
  if (index < 2 * s) return index;
  const size_t shift = index / s - 1;
  const uint64_t top = index - shift * s;
  return top << shift;
}

uint64_t Histogram::high_of(size_t index) const {
  const size_t s = size_t{1} << bits_;
  if (index < 2 * s) return index;
  const size_t shift = index / s - 1;
  return low_of(index) + ((uint64_t{1} << shift) - 1);
}

void Histogram::merge(const Histogram& other) {
  assert(other.bits_ == bits_);
  if (other.count_ == 0) return;
  if (other.buckets_.size() > buckets_.size()) buckets_.resize(other.buckets_.size(), 0);
  for (size_t i = 0; i < other.buckets_.size(); ++i) buckets_[i] += other.buckets_[i];
  if (count_ == 0 || other.min_ < min_) min_ = other.min_;
  if (other.max_ > max_) max_ = other.max_;
  count_ += other.count_;
  sum_ += other.sum_;
}

uint64_t Histogram::percentile(double percent) const {
  assert(percent >= 0.0 && percent <= 100.0);
  if (count_ == 0) return 0;
  const double wanted = std::ceil(percent / 100.0 * static_cast<double>(count_));
  const uint64_t target = wanted < 1.0 ? 1 : static_cast<uint64_t>(wanted);
  uint64_t seen = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= target) return high_of(i) < max_ ? high_of(i) : max_;
  }
  return max_;
}

void Histogram::for_each_bucket(const std::function<void(uint64_t, uint64_t, uint64_t)>& fn) const {
  for (size_t i = 0; i < buckets_.size(); ++i) {
    if (buckets_[i] != 0) fn(low_of(i), high_of(i), buckets_[i]);
  }
}

}  // namespace mmreplay::kernelsim
