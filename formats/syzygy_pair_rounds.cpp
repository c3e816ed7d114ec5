// Syzygy writer, compression core: the pair rounds that turn a value stream into pair symbols.
#include "formats/syzygy_pairs.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

namespace tbkit::formats::syzygy::pairs {
namespace {

constexpr std::uint32_t kMaxExpansion = 256;  // values per symbol: readers keep the count in a byte
constexpr int kPairsPerRound = 250;
// Up to this many symbols a round counts its pairs in a grid (32 KiB of counts) rather than a hash table.
constexpr std::size_t kGridSymbols = 64;

// A pair's key in PairCounts: the same in every round (symbols stay below 4096).
constexpr std::uint32_t kPairKeyBase = 4096;
static_assert(kMaxSymbols <= int(kPairKeyBase));
constexpr std::uint32_t pair_key(int first, int second) { return std::uint32_t(first) * kPairKeyBase + std::uint32_t(second); }

struct PairCandidate {
  std::uint64_t frequency;
  int first, second;
};

// Occurrences of adjacent symbol pairs (keys below 2^24), in an open-addressing table kept at most
// half full: the pairs a stream holds are few against count^2, and a compact table keeps them in
// cache where a count x count grid misses on nearly every increment (beyond kGridSymbols).
class PairCounts {
 public:
  void add(std::uint32_t pair, std::uint64_t n = 1) {
    const std::uint64_t tag = std::uint64_t(pair + 1) << kCountBits;
    for (std::size_t i = slot_of(pair);; i = (i + 1) & mask_) {
      std::uint64_t& e = table_[i];
      if ((e & ~kCountMask) == tag) {
        e += n;
        return;
      }
      if (e == 0) {
        e = tag | n;
        if (++used_ * 2 > table_.size()) grow();
        return;
      }
    }
  }

  // Takes n off a pair's count, which is at least n.
  void subtract(std::uint32_t pair, std::uint64_t n = 1) {
    const std::uint64_t tag = std::uint64_t(pair + 1) << kCountBits;
    for (std::size_t i = slot_of(pair);; i = (i + 1) & mask_) {
      std::uint64_t& e = table_[i];
      if (e == 0) {
        assert(false && "subtract: the pair was never counted");
        return;
      }
      if ((e & ~kCountMask) == tag) {
        assert((e & kCountMask) >= n);
        e -= n;
        return;
      }
    }
  }

  // Calls f(pair, count) for every pair of a positive count (in no particular order).
  template <class F>
  void for_each(F&& f) const {
    for (const std::uint64_t e : table_)
      if ((e & kCountMask) != 0) f(std::uint32_t((e >> kCountBits) - 1), e & kCountMask);
  }

  // Calls f(pair, count) for every pair counted (in no particular order), then forgets them.
  template <class F>
  void drain(F&& f) {
    for (std::uint64_t& e : table_) {
      if (e != 0) f(std::uint32_t((e >> kCountBits) - 1), e & kCountMask);
      e = 0;
    }
    used_ = 0;
  }

 private:
  static constexpr int kCountBits = 39;  // counts below 2^39; keys + 1 fit the 25 bits above
  static constexpr std::uint64_t kCountMask = (std::uint64_t{1} << kCountBits) - 1;

  [[nodiscard]] std::size_t slot_of(std::uint32_t pair) const {
    return std::size_t((std::uint64_t(pair) * 0x9E3779B97F4A7C15ULL) >> shift_) & mask_;
  }

  void grow() {
    std::vector<std::uint64_t> old(table_.size() * 2, 0);
    old.swap(table_);
    mask_ = table_.size() - 1;
    --shift_;
    for (const std::uint64_t e : old) {
      if (e == 0) continue;
      std::size_t i = slot_of(std::uint32_t((e >> kCountBits) - 1));
      while (table_[i] != 0) i = (i + 1) & mask_;
      table_[i] = e;
    }
  }

  std::vector<std::uint64_t> table_ = std::vector<std::uint64_t>(std::size_t{1} << 12, 0);
  std::size_t mask_ = (std::size_t{1} << 12) - 1;
  int shift_ = 64 - 12;
  std::size_t used_ = 0;
};

// A stream cut into parts for the pair rounds run in parallel: part t holds the symbols starting in
// [starts[t], starts[t + 1]), starts[t] being the first symbol at or after t * n / parts.
constexpr std::uint64_t kValuesPerPart = std::uint64_t{1} << 18;
constexpr std::size_t kMaxParts = 16;

// The symbols of the stream in order, as a round walks them: in place (position = value index, the
// step a symbol's expansion) or packed (position = symbol index, step 1).
template <class T>
struct InPlaceSymbols {
  SymbolStream<T>& s;
  const std::vector<SymbolDef>& defs;
  [[nodiscard]] std::uint64_t end() const { return s.size(); }
  [[nodiscard]] int at(std::uint64_t i) const { return s.at(i); }
  [[nodiscard]] std::uint64_t after(std::uint64_t i, int sym) const { return i + defs[std::size_t(sym)].expansion; }
};
struct PackedSymbols {
  StreamValues<std::uint16_t>& x;
  [[nodiscard]] std::uint64_t end() const { return x.size(); }
  [[nodiscard]] int at(std::uint64_t i) const { return x[i]; }
  [[nodiscard]] static std::uint64_t after(std::uint64_t i, int) { return i + 1; }
};

// Recursive pairing: each round counts adjacent symbol pairs, turns up to kPairsPerRound of the most
// frequent ones that cannot overlap each other into new symbols and rewrites the stream from left to
// right, until no pair reaches min_frequency or the symbol space is full.
//
// The parts are counted and rewritten side by side, with the same result as one pass from the start.
// The chosen pairs never share a symbol as the first of one and the second of another, except a pair
// of twins (x, x), whose x is in no other chosen pair. So a pair's first is never taken as a second,
// and an occurrence (a, b) of a chosen pair with a != b is always rewritten, while a run of twins
// pairs from its first x. Whether the symbol opening a part is taken as a pair's second thus follows
// from the last symbol before the cut and, for twins, from the parity of the run of equal symbols
// ending there, which the count notes. A part reads the symbol opening the next from a copy taken
// before the round, and in place a pair over a cut is written after the parts, so no part touches
// another's bytes.
//
// Once at most 1 in pack_ratio values starts a symbol (the late rounds of a large subtable, most of
// them), the symbols move into an array of their own, one after another: a round then reads a few MB
// in order instead of a cache line per symbol across the whole stream, and the pair counts are kept
// from round to round, each rewrite noting the pairs it ends and makes. Packed, a part writes its
// symbols from its own start on and the parts then close up; the cuts stay where they were in the
// stream, so the parts, and the result, do not change. A pair over a cut is the part's last symbol.
template <class T>
void build_pairs(SymbolStream<T>& s, std::vector<SymbolDef>& defs, int min_frequency, const ParallelFor& parallel,
                 int pack_ratio) {
  const std::uint64_t n = s.size();
  // The leaves: the symbols `defs` holds at first, each one value wide.
  const int leaves = int(defs.size());
  // Without a parallel loop, one part: the plain left-to-right pass the parts must reproduce.
  const std::size_t parts = parallel ? std::size_t(std::clamp<std::uint64_t>(n / kValuesPerPart, 1, kMaxParts)) : 1;
  std::vector<std::uint64_t> starts(parts + 1);  // in place: value indexes; packed: symbol indexes
  for (std::size_t t = 0; t <= parts; ++t) starts[t] = n * t / parts;
  const auto each_part = [&](const std::function<void(std::size_t)>& body) {
    if (parts > 1) parallel(parts, body);
    else body(0);
  };
  // Per part: the symbol opening the next (-1 past the end); its own last symbol, how many equal
  // symbols end it, and whether they are all of it; whether its first symbol is a pair's second;
  // in place, its symbols before the round and the pairs it made; packed, the symbols it wrote.
  std::vector<int> opening(parts), last(parts);
  std::vector<std::uint64_t> run(parts), symbols(parts), written(parts);
  std::vector<char> whole(parts), taken(parts);
  std::vector<PairCounts> part_counts(parts);
  // Packed, the counts are kept from round to round: a part notes the pairs its rewrite ends (-1)
  // and makes (+1) within it, and the pairs over the cuts are redone after the parts.
  std::vector<std::vector<std::pair<std::uint32_t, int>>> changes(parts);
  PairCounts counts;
  bool counted = false;  // counts holds the stream's pairs as it is
  StreamValues<std::uint16_t> packed;
  bool is_packed = false;
  std::uint64_t remaining = n;  // in place, the symbols in the stream (at first a leaf per value)

  // One round over `seq`; false when no pair is left to make.
  const auto round = [&]<bool kPacked>(const auto& seq, std::bool_constant<kPacked>) {
    const std::size_t count = defs.size();
    const std::uint64_t total = seq.end();
    for (std::size_t t = 0; t < parts; ++t) opening[t] = starts[t + 1] < total ? seq.at(starts[t + 1]) : -1;
    if (counted) {
      // Only the run of equal symbols ending each part is needed.
      for (std::size_t t = 0; t < parts; ++t) {
        std::uint64_t i = starts[t + 1] - 1;
        last[t] = seq.at(i);
        while (i > starts[t] && seq.at(i - 1) == last[t]) --i;
        run[t] = starts[t + 1] - i;
        whole[t] = i == starts[t];
      }
    } else {
      // Part t's symbols, each pair handed to add(first, second, times).
      const auto count_part = [&](std::size_t t, auto&& add) {
        int previous = -1;
        std::uint64_t equal = 0, seen = 0;
        bool all_equal = true;
        for (std::uint64_t i = starts[t]; i < starts[t + 1];) {
          const int sym = seq.at(i);
          if (previous >= 0) add(previous, sym, 1);
          if (sym == previous) {
            ++equal;
          } else {
            all_equal = previous < 0;
            equal = 1;
          }
          previous = sym;
          ++seen;
          i = seq.after(i, sym);
          if constexpr (!kPacked) {
            // A run of one leaf (long in WDL streams) counted 8 values at a time.
            if (sym < leaves) {
              const std::uint64_t more = s.leaf_words(i, starts[t + 1], sym);
              if (more > 0) {
                add(sym, sym, more);
                equal += more;
                seen += more;
                i += more;
              }
            }
          }
        }
        if (previous >= 0 && opening[t] >= 0) add(previous, opening[t], 1);
        last[t] = previous;
        run[t] = equal;
        whole[t] = all_equal;
        symbols[t] = seen;
      };
      each_part([&](std::size_t t) {
        if (count <= kGridSymbols) {
          // Few symbols (a stream's first round): a grid of their pairs, in L1, not the hash table.
          std::vector<std::uint64_t> grid(count * count, 0);
          count_part(t, [&](int a, int b, std::uint64_t k) { grid[std::size_t(a) * count + std::size_t(b)] += k; });
          for (std::size_t a = 0; a < count; ++a)
            for (std::size_t b = 0; b < count; ++b)
              if (const std::uint64_t f = grid[a * count + b]; f != 0) part_counts[t].add(pair_key(int(a), int(b)), f);
        } else {
          count_part(t, [&](int a, int b, std::uint64_t k) { part_counts[t].add(pair_key(a, b), k); });
        }
      });
      if (parts == 1) {
        std::swap(counts, part_counts[0]);
      } else {
        for (PairCounts& c : part_counts) c.drain([&](std::uint32_t pair, std::uint64_t f) { counts.add(pair, f); });
      }
    }

    std::vector<PairCandidate> candidates;
    counts.for_each([&](std::uint32_t pair, std::uint64_t f) {
      const std::size_t a = pair / kPairKeyBase, b = pair % kPairKeyBase;
      if (f >= std::uint64_t(min_frequency) && defs[a].expansion + defs[b].expansion <= kMaxExpansion)
        candidates.push_back({f, int(a), int(b)});
    });
    // In place, the next round counts again.
    counted = kPacked;
    if (!kPacked) counts.drain([](std::uint32_t, std::uint64_t) {});
    if (candidates.empty()) return false;
    const std::size_t keep = std::min<std::size_t>(candidates.size(), 4 * kPairsPerRound);
    std::partial_sort(candidates.begin(), candidates.begin() + std::ptrdiff_t(keep), candidates.end(),
                      [](const PairCandidate& x, const PairCandidate& y) {
                        if (x.frequency != y.frequency) return x.frequency > y.frequency;
                        return std::pair(x.first, x.second) < std::pair(y.first, y.second);
                      });

    // A pair may not start with a symbol that ends a more frequent chosen pair, nor end with one that
    // starts one: then every occurrence is unambiguous in a left-to-right rewrite.
    const std::size_t budget = std::min<std::size_t>(kPairsPerRound, std::size_t(kMaxSymbols) - count);
    std::vector<char> starts_pair(count, 0), ends_pair(count, 0);
    std::vector<int> head(count, -1), next;
    std::vector<PairCandidate> chosen;
    for (std::size_t i = 0; i < keep && chosen.size() < budget; ++i) {
      const PairCandidate& c = candidates[i];
      if (!ends_pair[std::size_t(c.first)] && !starts_pair[std::size_t(c.second)]) {
        next.push_back(head[std::size_t(c.first)]);
        head[std::size_t(c.first)] = int(chosen.size());
        chosen.push_back(c);
      }
      starts_pair[std::size_t(c.first)] = 1;
      ends_pair[std::size_t(c.second)] = 1;
    }
    for (const PairCandidate& c : chosen)
      defs.push_back({std::uint16_t(c.first), std::uint16_t(c.second),
                      defs[std::size_t(c.first)].expansion + defs[std::size_t(c.second)].expansion});

    // The chosen pair (first a, second b), or -1.
    const auto pair_of = [&](int a, int b) {
      int k = head[std::size_t(a)];
      while (k >= 0 && chosen[std::size_t(k)].second != b) k = next[std::size_t(k)];
      return k;
    };
    taken[0] = 0;
    std::uint64_t ending = 0;  // the run of equal symbols ending part t, over earlier parts too
    for (std::size_t t = 0; t + 1 < parts; ++t) {
      const int a = last[t], b = opening[t];
      ending = run[t] + (whole[t] && t > 0 && last[t - 1] == a ? ending : 0);
      // Twins: the run of a's before the cut pairs from its first, so its last is a pair's first
      // when the run's length is odd.
      taken[t + 1] = pair_of(a, b) >= 0 && (a != b || ending % 2 == 1);
    }
    if constexpr (kPacked) {
      each_part([&](std::size_t t) {
        // Writes the part's symbols from its start on. A pair ends the pairs its two symbols were in;
        // (x, y) with x the symbol before: noted when y is known to be taken or not.
        std::vector<std::pair<std::uint32_t, int>>& change = changes[t];
        change.clear();
        const std::uint64_t end = starts[t + 1];
        std::uint64_t i = starts[t], out = starts[t];
        int before = -1, made_before = 0;  // the symbol read before i, and whether it went into a pair
        int out_before = -1, out_made = 0;  // the symbol written before, and whether it is a new pair
        const auto write = [&](int sym, int made) {
          if (out_before >= 0 && (made || out_made)) change.push_back({pair_key(out_before, sym), 1});
          seq.x[out++] = std::uint16_t(sym);
          out_before = sym;
          out_made = made;
        };
        if (taken[t]) {
          before = seq.at(i++);
          made_before = 1;
        }
        while (i < end) {
          const int a = seq.at(i);
          if (i + 1 < total && head[std::size_t(a)] >= 0) {
            const int b = i + 1 < end ? seq.at(i + 1) : opening[t];
            if (const int k = pair_of(a, b); k >= 0) {
              if (before >= 0) change.push_back({pair_key(before, a), -1});
              if (i + 1 < end) change.push_back({pair_key(a, b), -1});  // else the pair over the cut
              write(int(count) + k, 1);
              before = b;
              made_before = 1;
              i += 2;
              continue;
            }
          }
          if (made_before) change.push_back({pair_key(before, a), -1});
          write(a, 0);
          before = a;
          made_before = 0;
          ++i;
        }
        written[t] = out - starts[t];
      });
      for (const auto& change : changes)
        for (const auto& [pair, d] : change) {
          if (d > 0) counts.add(pair);
          else counts.subtract(pair);
        }
      // Close up: each part's symbols follow the last part's (a part skipped the symbol a pair over
      // its cut took), and the pairs over the cuts are counted anew.
      std::uint64_t to = 0;
      for (std::size_t t = 0; t < parts; ++t) {
        assert(written[t] > 0);
        if (to != starts[t])
          std::copy(seq.x.begin() + std::ptrdiff_t(starts[t]), seq.x.begin() + std::ptrdiff_t(starts[t] + written[t]),
                    seq.x.begin() + std::ptrdiff_t(to));
        starts[t] = to;
        to += written[t];
      }
      starts[parts] = to;
      seq.x.resize(to);
      for (std::size_t t = 0; t + 1 < parts; ++t) {
        counts.subtract(pair_key(last[t], opening[t]));
        counts.add(pair_key(seq.x[starts[t + 1] - 1], seq.x[starts[t + 1]]));
      }
    } else {
      // A pair over the cut after part t: where its first symbol is, and which.
      std::vector<std::pair<std::uint64_t, int>> across(parts, {0, -1});
      each_part([&](std::size_t t) {
        const std::uint64_t end = starts[t + 1];
        std::uint64_t i = starts[t], made = 0;
        if (taken[t]) i = seq.after(i, seq.at(i));
        while (i < end) {
          const int a = seq.at(i);
          const std::uint64_t j = seq.after(i, a);
          if (j < total && head[std::size_t(a)] >= 0) {
            const int b = j < end ? seq.at(j) : opening[t];
            if (const int k = pair_of(a, b); k >= 0) {
              if (j < end) {
                s.put(i, int(count) + k);
                ++made;
              } else {
                across[t] = {i, k};
              }
              i = seq.after(j, b);
              // Twins of a leaf over its run: 16 values at a time, as the pairs one by one would.
              if (a == b && a < leaves) {
                const std::uint64_t twins = s.put_twin_words(i, end, a, int(count) + k);
                made += twins;
                i += 2 * twins;
              }
              continue;
            }
          }
          i = j;
        }
        written[t] = made;
      });
      std::uint64_t before = 0, made = 0;
      for (std::size_t t = 0; t < parts; ++t) {
        before += symbols[t];
        made += written[t];
      }
      for (std::size_t t = 0; t + 1 < parts; ++t) {
        assert((across[t].second >= 0) == bool(taken[t + 1]));
        if (across[t].second < 0) continue;
        ++made;
        s.put(across[t].first, int(count) + across[t].second);
        // The next part now opens after the pair's second symbol: at most kMaxExpansion - 1 values
        // past its cut, so a part never empties.
        starts[t + 1] += defs[std::size_t(opening[t])].expansion;
        assert(starts[t + 1] < starts[t + 2]);
      }
      remaining = before - made;
    }
    return true;
  };

  while (int(defs.size()) < kMaxSymbols && n > 1) {
    if (!is_packed && pack_ratio > 0 && remaining * std::uint64_t(pack_ratio) <= n) {
      // Every cut starts a symbol, so each maps to a symbol index.
      packed.reserve(remaining);
      std::size_t t = 0;
      for (std::uint64_t i = 0; i < n;) {
        assert(starts[t] >= i);
        while (t <= parts && starts[t] == i) starts[t++] = packed.size();
        const int sym = s.at(i);
        packed.push_back(std::uint16_t(sym));
        i += defs[std::size_t(sym)].expansion;
      }
      for (; t <= parts; ++t) starts[t] = packed.size();
      is_packed = true;
    }
    const bool more = is_packed ? round(PackedSymbols{packed}, std::true_type{})
                                : round(InPlaceSymbols<T>{s, defs}, std::false_type{});
    if (!more) break;
  }
  if (is_packed) {
    std::uint64_t i = 0;
    for (const std::uint16_t sym : packed) {
      s.put(i, sym);
      i += defs[sym].expansion;
    }
  }
}

}  // namespace

void build_pair_symbols(SymbolStream<std::uint8_t>& s, std::vector<SymbolDef>& defs, int min_frequency,
                        const ParallelFor& parallel, int pack_ratio) {
  build_pairs(s, defs, min_frequency, parallel, pack_ratio);
}

void build_pair_symbols(SymbolStream<std::uint16_t>& s, std::vector<SymbolDef>& defs, int min_frequency,
                        const ParallelFor& parallel, int pack_ratio) {
  build_pairs(s, defs, min_frequency, parallel, pack_ratio);
}

}  // namespace tbkit::formats::syzygy::pairs
