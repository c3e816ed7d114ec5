#include "pgn/book_compat.h"

#include <algorithm>
#include <bit>

#include "pgn/parallel.h"

namespace tbkit::pgn {
namespace {

constexpr std::uint16_t kCountMax = 16384;

// The store's 2-bit result field holds the result for the mover (make-book's view: the Result
// tag's result for the side that moves first, negated every ply), in GameResult's encoding.
GameResult encode(int mover_result) {
  return mover_result > 0 ? GameResult::kWhiteWins : mover_result < 0 ? GameResult::kBlackWins : GameResult::kDraw;
}
int decode(const PlyRecord& p) {
  const unsigned r = (p.info >> PlyStore::kResultShift) & 3;
  return r == 1 ? 1 : r == 3 ? -1 : 0;
}

// One bucket's replay: make-book's counters for each (key, move), in order of first appearance,
// found through an open-addressing table of indices.
class Replay {
 public:
  struct Entry {
    std::uint64_t key;
    std::uint16_t move;
    std::uint16_t n;
    std::uint16_t sum;
    bool white;
  };

  void reset(std::size_t records) {
    entries_.clear();
    const std::size_t want = std::bit_ceil(std::max<std::size_t>(std::min<std::size_t>(records, 4096) * 2, 64));
    resize(want);
  }

  void add(const PlyRecord& p) {
    const std::uint64_t key = std::uint64_t(p.key_high) << 32 | p.key_low;
    std::size_t s = slot(key, p.move);
    std::uint32_t index;
    for (;; s = (s + 1) & mask_) {
      index = slots_[s];
      if (index == kNone) {
        index = std::uint32_t(entries_.size());
        entries_.push_back(Entry{key, p.move, 0, 0, !(p.info & PlyStore::kBlackBit)});
        slots_[s] = index;
        if (entries_.size() * 2 >= slots_.size()) resize(slots_.size() * 2);
        break;
      }
      if (entries_[index].key == key && entries_[index].move == p.move) break;
    }
    Entry& e = entries_[index];
    ++e.n;
    e.sum = std::uint16_t(e.sum + decode(p) + 1);
    if (e.n >= kCountMax) {
      // Rare (once per ~8,000 plies of one position): a scan of the bucket is cheap enough.
      for (Entry& x : entries_)
        if (x.key == key) {
          x.n = std::uint16_t((x.n + 1) / 2);
          x.sum = std::uint16_t((x.sum + 1) / 2);
        }
    }
  }

  // Appends the kept entries in make-book's order: key, weight descending, first appearance.
  void take(const CompatOptions& o, std::vector<formats::PolyglotEntry>& out) const {
    const double min_score = o.min_score / 100.0;
    const std::size_t first = out.size();
    for (const Entry& e : entries_) {
      if (int(e.n) < o.min_game || e.sum == 0) continue;
      const double score = (double(e.sum) / double(e.n)) / 2.0;
      if (score < min_score) continue;
      if ((o.only_white && !e.white) || (o.only_black && e.white)) continue;
      if (e.key == 0) continue;
      out.push_back(formats::PolyglotEntry{e.key, e.move, o.uniform ? std::uint16_t(1) : e.sum, 0});
    }
    std::stable_sort(out.begin() + std::ptrdiff_t(first), out.end(), [](const formats::PolyglotEntry& a, const formats::PolyglotEntry& b) {
      return a.key != b.key ? a.key < b.key : a.weight > b.weight;
    });
  }

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFF;
  [[nodiscard]] std::size_t slot(std::uint64_t key, std::uint16_t move) const {
    return std::size_t(((key ^ move) * 0x9e3779b97f4a7c15ULL) >> shift_);
  }
  void resize(std::size_t size) {
    slots_.assign(size, kNone);
    mask_ = size - 1;
    shift_ = 64 - std::countr_zero(size);
    for (std::uint32_t i = 0; i < entries_.size(); ++i) {
      std::size_t s = slot(entries_[i].key, entries_[i].move);
      while (slots_[s] != kNone) s = (s + 1) & mask_;
      slots_[s] = i;
    }
  }

  std::vector<Entry> entries_;
  std::vector<std::uint32_t> slots_;
  std::size_t mask_ = 0;
  int shift_ = 64;
};

}  // namespace

// The native build's store shape.
PolyglotCompatBook::PolyglotCompatBook() : store_(PlyStore::kUnboundedBucketBits, PlyStore::kUnboundedSlabBytes) {}

void PolyglotCompatBook::add_game(const BookGame& game, std::uint32_t max_ply) {
  int result = game.tag_result;  // for the side that moves first: +1 win, -1 loss, 0 otherwise
  const std::size_t plies = std::min<std::size_t>(game.plies.size(), max_ply);
  for (std::size_t i = 0; i < plies; ++i) {
    const BookPly& p = game.plies[i];
    store_.add(p.key, p.move, !p.white_to_move, 0, encode(result));
    result = -result;
  }
}

std::vector<formats::PolyglotEntry> PolyglotCompatBook::entries(const CompatOptions& o, tbb::task_arena* arena) const {
  const std::size_t buckets = std::size_t{1} << store_.bucket_bits();
  std::vector<std::vector<formats::PolyglotEntry>> parts(buckets);
  auto run = [&](std::size_t first, std::size_t last) {
    Replay replay;
    for (std::size_t b = first; b != last; ++b) {
      const std::size_t n = store_.bucket_size(b);
      if (n == 0) continue;
      replay.reset(n);
      store_.for_each_chunk(b, [&](std::span<const PlyRecord> chunk) {
        for (const PlyRecord& p : chunk) replay.add(p);
      });
      replay.take(o, parts[b]);
    }
  };
  if (arena)
    parallel_ranges(*arena, buckets, 16, run);
  else
    run(0, buckets);
  std::size_t total = 0;
  for (const auto& p : parts) total += p.size();
  std::vector<formats::PolyglotEntry> out;
  out.reserve(total);
  for (auto& p : parts) {
    out.insert(out.end(), p.begin(), p.end());
    std::vector<formats::PolyglotEntry>().swap(p);
  }
  return out;
}

}  // namespace tbkit::pgn
