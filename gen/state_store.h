// Where the retrograde solver keeps its per-position state (gen/solver_state.h): one side's states,
// 16 bits a slot (WideStates) or 12 bits a slot packed five to a 64-bit word (PackedStates).
#pragma once

#include <atomic>
#include <bit>
#include <cassert>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "formats/large_allocator.h"
#include "gen/solver_state.h"

namespace tbkit::gen {

// Both stores have the same interface, in the 16-bit encoding of solver_state.h:
//   allocate(n)            n states, all 0, untouched pages until written
//   get(i)                 a plain read (the solver's scans read a side that no task writes)
//   init(i, s, first, last)  the first write of slot i, by the one thread that writes slots
//                          [first, last) (others may write the slots around them)
//   slot(i)                where slot i is (a Slot), for the atomic accesses:
//   load(at)               an atomic read
//   cas(at, expected, s)   compare-and-swap; on failure `expected` is the state read
//   store(at, s)           an atomic write
//   where(at)              the address to prefetch
//   next_at(i, last, t)    the next slot in [i, last) whose state, mark bit aside, is t, else last
//   release(first, last)   returns the pages wholly inside slots [first, last) to the system
//   reset()                frees everything
// kMaxPly: the last ply the store can hold.

class WideStates {
 public:
  static constexpr int kMaxPly = solver_state::kMaxPly;

  void allocate(std::uint64_t n) { s_ = formats::ZeroedArray<std::uint16_t>(n); }
  using Slot = std::uint16_t*;
  [[nodiscard]] std::uint16_t get(std::uint64_t i) const { return s_[i]; }
  void init(std::uint64_t i, std::uint16_t s, std::uint64_t, std::uint64_t) { s_[i] = s; }
  [[nodiscard]] Slot slot(std::uint64_t i) { return &s_[i]; }
  [[nodiscard]] static std::uint16_t load(Slot at) { return std::atomic_ref(*at).load(std::memory_order_relaxed); }
  static bool cas(Slot at, std::uint16_t& expected, std::uint16_t s) {
    return std::atomic_ref(*at).compare_exchange_weak(expected, s, std::memory_order_relaxed);
  }
  static void store(Slot at, std::uint16_t s) { std::atomic_ref(*at).store(s, std::memory_order_relaxed); }
  [[nodiscard]] static const void* where(Slot at) { return at; }
  [[nodiscard]] std::uint64_t next_at(std::uint64_t i, std::uint64_t last, std::uint16_t target) const {
    using namespace solver_state;
    const std::uint16_t* st = &s_[0];
#if defined(__SSE2__)
    // Most slots do not match: test 32 at a time, then find the match within the 8 that hold it.
    const __m128i keep = _mm_set1_epi16(std::int16_t(std::uint16_t(~kConvBit)));
    const __m128i want = _mm_set1_epi16(std::int16_t(target));
    auto match8 = [&](std::uint64_t at) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(st + at));
      return _mm_cmpeq_epi16(_mm_and_si128(v, keep), want);
    };
    for (; i + 32 <= last; i += 32) {
      const __m128i a = match8(i), b = match8(i + 8), c = match8(i + 16), d = match8(i + 24);
      if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) == 0) continue;
      for (const auto& [m, at] : {std::pair{a, i}, {b, i + 8}, {c, i + 16}, {d, i + 24}})
        if (const int bits = _mm_movemask_epi8(m)) return at + std::uint64_t(std::countr_zero(unsigned(bits))) / 2;
    }
#endif
    for (; i < last; ++i)
      if ((st[i] & ~kConvBit) == target) return i;
    return last;
  }
  void release(std::uint64_t first, std::uint64_t last) { s_.release(first, last); }
  void reset() { s_.reset(); }

 private:
  // On huge pages: the predecessor updates hit the states at random, and with 4 KiB pages nearly
  // each one would miss the TLB.
  formats::ZeroedArray<std::uint16_t> s_;
};

// 12-bit cells, five to a word (1.6 bytes a slot). A cell is the 16-bit state with its unused bits
// left out:
//   0x001..0x3FF          resolved, ply = cell - 1, up to kMaxPly = 1022 (16 bits: 1..0x3FFF)
//   0x400 | that          the same, marked (16 bits: kConvBit 0x4000)
//   0x800 | c, 0x900 | c  unresolved, may still lose, count c (16 bits: kOpen | c, kOpen | kFloorBit | c)
//   0xFFD..0xFFF          kNoLossOther, kNoLoss, kIllegal (16 bits: 0x87FD..0x87FF)
// Updates of a cell are compare-and-swaps of its word: the other four cells of the word may change
// meanwhile, which only makes the swap retry.
class PackedStates {
 public:
  static constexpr int kMaxPly = 0x3FF - 1;

  // Without branches: the states come in no predictable order.
  static constexpr std::uint32_t narrow(std::uint16_t s) {
    const std::uint32_t unresolved = 0x800u | (s & 0x7FFu), resolved = (s & 0x3FFu) | ((s >> 4) & 0x400u);
    return s & solver_state::kOpen ? unresolved : resolved;
  }
  static constexpr std::uint16_t widen(std::uint32_t c) {
    const std::uint32_t unresolved = solver_state::kOpen | (c & 0x7FFu), resolved = (c & 0x3FFu) | ((c & 0x400u) << 4);
    return std::uint16_t(c & 0x800u ? unresolved : resolved);
  }

  void allocate(std::uint64_t n) { w_ = formats::ZeroedArray<std::uint64_t>((n + kCells - 1) / kCells); }
  struct Slot {
    std::uint64_t* word;
    unsigned shift;
  };
  [[nodiscard]] std::uint16_t get(std::uint64_t i) const { return widen(cell(w_[i / kCells], shift(i))); }
  void init(std::uint64_t i, std::uint16_t s, std::uint64_t first, std::uint64_t last) {
    // Every cell starts at 0 (fresh pages), and each is initialised once. A word wholly inside
    // [first, last) is this thread's alone: no locked instruction for it.
    const std::uint64_t w = i / kCells;
    const std::uint64_t bits = std::uint64_t(narrow(s)) << shift(i);
    if (w * kCells >= first && w * kCells + kCells <= last) w_[w] |= bits;
    else std::atomic_ref(w_[w]).fetch_or(bits, std::memory_order_relaxed);
  }
  [[nodiscard]] Slot slot(std::uint64_t i) { return {&w_[i / kCells], shift(i)}; }
  [[nodiscard]] static std::uint16_t load(Slot at) {
    return widen(cell(std::atomic_ref(*at.word).load(std::memory_order_relaxed), at.shift));
  }
  static bool cas(Slot at, std::uint16_t& expected, std::uint16_t s) {
    std::atomic_ref r(*at.word);
    std::uint64_t word = r.load(std::memory_order_relaxed);
    const std::uint16_t now = widen(cell(word, at.shift));
    if (now != expected) {
      expected = now;
      return false;
    }
    const std::uint64_t mask = std::uint64_t{0xFFF} << at.shift;
    if (r.compare_exchange_weak(word, (word & ~mask) | std::uint64_t(narrow(s)) << at.shift, std::memory_order_relaxed))
      return true;
    expected = widen(cell(word, at.shift));
    return false;
  }
  static void store(Slot at, std::uint16_t s) {
    std::atomic_ref r(*at.word);
    const std::uint64_t mask = std::uint64_t{0xFFF} << at.shift;
    const std::uint64_t bits = std::uint64_t(narrow(s)) << at.shift;
    std::uint64_t word = r.load(std::memory_order_relaxed);
    while (!r.compare_exchange_weak(word, (word & ~mask) | bits, std::memory_order_relaxed)) {
    }
  }
  [[nodiscard]] static const void* where(Slot at) { return at.word; }
  [[nodiscard]] std::uint64_t next_at(std::uint64_t i, std::uint64_t last, std::uint16_t target) const {
    if (i >= last) return last;
    // Five cells at a time (SWAR): a cell matches when, mark bit aside, it equals the target's cell.
    const std::uint64_t want = lanes(narrow(target)), keep = ~lanes(0x400);
    std::uint64_t w = i / kCells;
    const std::uint64_t last_word = (last - 1) / kCells;
    std::uint64_t found = matches(w_[w], want, keep) & ~lanes_below(unsigned(i % kCells));
#if defined(__SSE2__)
    // Four words (20 cells) at a time while none matches.
    if (found == 0) {
      const __m128i want2 = _mm_set1_epi64x(std::int64_t(want)), keep2 = _mm_set1_epi64x(std::int64_t(keep));
      const __m128i low = _mm_set1_epi64x(std::int64_t(lanes(0x7FF))), high = _mm_set1_epi64x(std::int64_t(lanes(0x800)));
      auto match2 = [&](std::uint64_t at) {
        const __m128i x = _mm_xor_si128(_mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(&w_[at])), keep2), want2);
        return _mm_andnot_si128(_mm_or_si128(_mm_add_epi64(_mm_and_si128(x, low), low), x), high);
      };
      while (w + 4 <= last_word) {
        const __m128i any = _mm_or_si128(match2(w + 1), match2(w + 3));
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(any, _mm_setzero_si128())) != 0xFFFF) break;
        w += 4;
      }
    }
#endif
    while (found == 0 && w < last_word) found = matches(w_[++w], want, keep);
    if (found == 0) return last;
    const std::uint64_t at = w * kCells + std::uint64_t(std::countr_zero(found)) / 12;
    return at < last ? at : last;
  }
  void release(std::uint64_t first, std::uint64_t last) {
    const std::uint64_t from = (first + kCells - 1) / kCells, to = last / kCells;
    if (to > from) w_.release(from, to);
  }
  void reset() { w_.reset(); }

 private:
  static constexpr std::uint64_t kCells = 5;
  static constexpr std::uint64_t lanes(std::uint64_t v) { return v | v << 12 | v << 24 | v << 36 | v << 48; }
  // The bits 11 of the cells below cell k of a word.
  static constexpr std::uint64_t lanes_below(unsigned k) { return lanes(0x800) & ((std::uint64_t{1} << (12 * k)) - 1); }
  // Bit 11 of each cell of `word` equal to the matching cell of `want` (bits `keep` compared).
  static constexpr std::uint64_t matches(std::uint64_t word, std::uint64_t want, std::uint64_t keep) {
    const std::uint64_t x = (word & keep) ^ want;  // a cell of 0: a match
    // Per cell, the low 11 bits plus 0x7FF carry into bit 11 unless they are all 0; no carry
    // crosses into the next cell.
    return ~(((x & lanes(0x7FF)) + lanes(0x7FF)) | x) & lanes(0x800);
  }
  static constexpr unsigned shift(std::uint64_t i) { return unsigned(i % kCells) * 12; }
  static constexpr std::uint32_t cell(std::uint64_t word, unsigned shift) { return std::uint32_t(word >> shift) & 0xFFF; }
  formats::ZeroedArray<std::uint64_t> w_;  // on huge pages, as WideStates'
};

}  // namespace tbkit::gen
