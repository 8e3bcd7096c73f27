// LEB128 varints and zigzag, the column encoding of chunks.
//
// The decoder is bounds-checked: a column that ends inside a varint, or a varint longer than ten
// bytes, sets the reader's error flag instead of reading past the buffer.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace mmreplay::formats {

inline uint64_t zigzag_encode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t zigzag_decode(uint64_t v) {
  return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
}

// Appends varints to a growing byte string.
inline constexpr int kPageShift = 12;
inline constexpr uint64_t kPageLowMask = (uint64_t{1} << kPageShift) - 1;

class VarintWriter {
 public:
  void put(uint64_t v) {
    uint8_t buf[10];
    size_t n = 0;
    while (v >= 0x80) {
      buf[n++] = static_cast<uint8_t>(v) | 0x80;
      v >>= 7;
    }
    buf[n++] = static_cast<uint8_t>(v);
    bytes_.append(reinterpret_cast<const char*>(buf), n);
  }
  void put_signed(int64_t v) { put(zigzag_encode(v)); }
  // Page-scaled forms for addresses and lengths, which are mostly multiples of 4 KiB: the value
  // above bit 12 with a flag in bit 0, then the low 12 bits only when the flag says they are not
  // zero. A page-aligned delta of up to 64 pages costs one byte instead of three.
  void put_paged(uint64_t v) {
    const uint64_t low = v & kPageLowMask;
    put(((v >> kPageShift) << 1) | (low != 0));
    if (low != 0) put(low);
  }
  void put_paged_signed(int64_t v) {
    const uint64_t low = static_cast<uint64_t>(v) & kPageLowMask;
    put((zigzag_encode(v >> kPageShift) << 1) | (low != 0));
    if (low != 0) put(low);
  }
  void put_byte(uint8_t b) { bytes_.push_back(static_cast<char>(b)); }

  const std::string& bytes() const { return bytes_; }
  size_t size() const { return bytes_.size(); }
  void clear() { bytes_.clear(); }

 private:
  std::string bytes_;
};

// Appends varints to two byte strings: the first byte of each varint to `head`, the others to
// `tail` (format 1.6 columns). The first bytes of a field's values and their high bytes have
// different distributions (a timestamp gap's low 7 bits are near uniform, its high byte takes a
// few values); kept apart, zstd codes each with its own Huffman table. Returns bytes written.
class SplitVarintWriter {
 public:
  size_t put(uint64_t v) {
    if (v < 0x80) {
      head_.push_back(static_cast<char>(v));
      return 1;
    }
    head_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
    size_t n = 1;
    while (v >= 0x80) {
      tail_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
      ++n;
    }
    tail_.push_back(static_cast<char>(v));
    return n + 1;
  }
  // The page-scaled forms of VarintWriter.
  size_t put_paged(uint64_t v) {
    const uint64_t low = v & kPageLowMask;
    const size_t n = put(((v >> kPageShift) << 1) | (low != 0));
    return low != 0 ? n + put(low) : n;
  }
  size_t put_paged_signed(int64_t v) {
    const uint64_t low = static_cast<uint64_t>(v) & kPageLowMask;
    const size_t n = put((zigzag_encode(v >> kPageShift) << 1) | (low != 0));
    return low != 0 ? n + put(low) : n;
  }

  const std::string& head() const { return head_; }
  const std::string& tail() const { return tail_; }
  bool empty() const { return head_.empty(); }
  void clear() {
    head_.clear();
    tail_.clear();
  }

 private:
  std::string head_, tail_;
};

// Reads varints from a column; never reads past its end.
class VarintReader {
 public:
  VarintReader() = default;
  VarintReader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}

  uint64_t get() {
    // Fast paths: one- and two-byte values dominate the columns.
    if (end_ - p_ >= 2) {
      if (p_[0] < 0x80) return *p_++;
      if (p_[1] < 0x80) {
        const uint64_t v = (p_[0] & 0x7fu) | static_cast<uint64_t>(p_[1]) << 7;
        p_ += 2;
        return v;
      }
    } else if (p_ < end_ && *p_ < 0x80) {
      return *p_++;
    }
    return get_slow();
  }
  int64_t get_signed() { return zigzag_decode(get()); }
  uint64_t get_paged() {
    const uint64_t token = get();
    const uint64_t high = (token >> 1) << kPageShift;
    return (token & 1) ? high | (get() & kPageLowMask) : high;
  }
  int64_t get_paged_signed() {
    const uint64_t token = get();
    const uint64_t high = static_cast<uint64_t>(zigzag_decode(token >> 1)) << kPageShift;
    return static_cast<int64_t>((token & 1) ? high | (get() & kPageLowMask) : high);
  }
  uint8_t get_byte() {
    if (p_ < end_) return *p_++;
    failed_ = true;
    return 0;
  }

  bool failed() const { return failed_; }
  bool at_end() const { return p_ == end_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

 private:
  uint64_t get_slow();

  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  bool failed_ = false;
};

// Reads what SplitVarintWriter wrote; never reads past either string. A varint that ends past
// the tail, or runs longer than 64 bits, sets the error flag. The readers are forced inline: the
// decoder calls them from 24 instantiations, where the compiler kept them out of line, and
// inlined they took BM_DecodeColumnsOnly from 30.3-31.9 to 28.5 ms CPU (A/B, load 10).
class SplitVarintReader {
 public:
  SplitVarintReader() = default;
  SplitVarintReader(const uint8_t* head, size_t head_size, const uint8_t* tail, size_t tail_size)
      : head_(head), head_end_(head + head_size), tail_(tail), tail_end_(tail + tail_size) {}

  [[gnu::always_inline]] uint64_t get() {
    if (head_ == head_end_) {
      failed_ = true;
      return 0;
    }
    const uint8_t b = *head_++;
    if (b < 0x80) return b;
    // Two-byte values are the common long case (timestamp gaps, lengths of a few pages).
    if (tail_ != tail_end_ && *tail_ < 0x80) return (b & 0x7fu) | uint64_t{*tail_++} << 7;
    const Tail t = read_tail(tail_, tail_end_, b & 0x7fu);
    if (t.next == nullptr) {
      failed_ = true;
      head_ = head_end_;
      tail_ = tail_end_;
      return 0;
    }
    tail_ = t.next;
    return t.value;
  }
  [[gnu::always_inline]] uint64_t get_paged() {
    const uint64_t token = get();
    const uint64_t high = (token >> 1) << kPageShift;
    return (token & 1) ? high | (get() & kPageLowMask) : high;
  }
  [[gnu::always_inline]] int64_t get_paged_signed() {
    const uint64_t token = get();
    const uint64_t high = static_cast<uint64_t>(zigzag_decode(token >> 1)) << kPageShift;
    return static_cast<int64_t>((token & 1) ? high | (get() & kPageLowMask) : high);
  }
  // get() when `present`, else 0 without reading: for a column that only the events whose op byte
  // says so have (flags). Decides without a branch on `present` for one-byte values, since which
  // events carry the field is as random as the data (a fault is a write or not).
  [[gnu::always_inline]] uint64_t get_if(bool present) {
    static constexpr uint8_t kNone = 0;
    const bool readable = head_ != head_end_;
    // The byte at head_, or kNone at the end, chosen by a mask: a conditional here became a
    // branch, and the columns of kinds without the field are always at their end.
    const uintptr_t keep = uintptr_t{0} - uintptr_t{readable};
    const uint8_t b =
        *reinterpret_cast<const uint8_t*>((reinterpret_cast<uintptr_t>(head_) & keep) |
                                          (reinterpret_cast<uintptr_t>(&kNone) & ~keep));
    const unsigned want = present;
    if ((want & ((b >> 7) | !readable)) != 0) [[unlikely]] {
      return get();
    }
    head_ += want;
    return b & (uint64_t{0} - want);
  }

  bool failed() const { return failed_; }
  bool at_end() const { return head_ == head_end_ && tail_ == tail_end_; }
  size_t remaining() const { return static_cast<size_t>(head_end_ - head_); }

  // For a caller that reads one-byte values straight from the head (their tail is empty): the
  // head bytes left, and skip_head(n) after it has read n of them. REQUIRES: n <= remaining().
  const uint8_t* head() const { return head_; }
  bool tail_empty() const { return tail_ == tail_end_; }
  void skip_head(size_t n) { head_ += n; }

 private:
  // A varint's value from its first 7 bits and its bytes at `p`, and where it ends; nullptr when
  // it runs past `end` or past 64 bits. Static, so that a reader copied into a local stays in
  // registers (the decoder's loops over one kind's events).
  struct Tail {
    uint64_t value;
    const uint8_t* next;
  };
  static Tail read_tail(const uint8_t* p, const uint8_t* end, uint64_t low7);

  const uint8_t* head_ = nullptr;
  const uint8_t* head_end_ = nullptr;
  const uint8_t* tail_ = nullptr;
  const uint8_t* tail_end_ = nullptr;
  bool failed_ = false;
};

}  // namespace mmreplay::formats
