#include "pgn/book_compat.h"

#include <algorithm>

namespace tbkit::pgn {
namespace {

constexpr std::uint16_t kCountMax = 16384;

std::size_t hash_pair(std::uint64_t key, std::uint16_t move) { return std::size_t(key ^ (std::uint64_t(move) * 0x9e3779b97f4a7c15ULL)); }

}  // namespace

PolyglotCompatBook::PolyglotCompatBook() : slots_(1 << 12, kNone), key_head_(1 << 12, kNone), key_keys_(1 << 12, 0) {}

void PolyglotCompatBook::grow() {
  slots_.assign(slots_.size() * 2, kNone);
  const std::size_t mask = slots_.size() - 1;
  for (std::uint32_t i = 0; i < entries_.size(); ++i) {
    std::size_t s = hash_pair(entries_[i].key, entries_[i].move) & mask;
    while (slots_[s] != kNone) s = (s + 1) & mask;
    slots_[s] = i;
  }
  if (key_count_ * 2 >= key_head_.size()) {
    Vector<std::uint32_t> heads(key_head_.size() * 2, kNone);
    Vector<std::uint64_t> keys(key_head_.size() * 2, 0);
    const std::size_t kmask = heads.size() - 1;
    for (std::size_t i = 0; i < key_head_.size(); ++i) {
      if (key_head_[i] == kNone) continue;
      std::size_t s = key_keys_[i] & kmask;
      while (heads[s] != kNone) s = (s + 1) & kmask;
      heads[s] = key_head_[i];
      keys[s] = key_keys_[i];
    }
    key_head_.swap(heads);
    key_keys_.swap(keys);
  }
}

std::uint32_t PolyglotCompatBook::find_or_insert(std::uint64_t key, std::uint16_t move, bool white) {
  std::size_t mask = slots_.size() - 1;
  std::size_t s = hash_pair(key, move) & mask;
  for (; slots_[s] != kNone; s = (s + 1) & mask) {
    const Entry& e = entries_[slots_[s]];
    if (e.key == key && e.move == move) return slots_[s];
  }
  const auto index = std::uint32_t(entries_.size());
  // The position's list: new entries go to the front (halving order does not matter).
  const std::size_t kmask = key_head_.size() - 1;
  std::size_t k = key & kmask;
  while (key_head_[k] != kNone && key_keys_[k] != key) k = (k + 1) & kmask;
  std::uint32_t next = kNone;
  if (key_head_[k] == kNone) {
    key_keys_[k] = key;
    ++key_count_;
  } else {
    next = key_head_[k];
  }
  key_head_[k] = index;
  entries_.push_back(Entry{key, move, 0, 0, white, next});
  slots_[s] = index;
  if (entries_.size() * 2 >= slots_.size() || key_count_ * 2 >= key_head_.size()) grow();
  return index;
}

void PolyglotCompatBook::halve(std::uint32_t index) {
  const std::uint64_t key = entries_[index].key;
  const std::size_t kmask = key_head_.size() - 1;
  std::size_t k = key & kmask;
  while (key_keys_[k] != key || key_head_[k] == kNone) k = (k + 1) & kmask;
  for (std::uint32_t i = key_head_[k]; i != kNone; i = entries_[i].next_same_key) {
    entries_[i].n = std::uint16_t((entries_[i].n + 1) / 2);
    entries_[i].sum = std::uint16_t((entries_[i].sum + 1) / 2);
  }
}

void PolyglotCompatBook::add_game(const BookGame& game, std::uint32_t max_ply) {
  int result = game.tag_result;  // from the mover's view: +1 win, -1 loss, 0 otherwise
  std::uint32_t ply = 0;
  constexpr std::size_t kAhead = 4;  // prefetch the hash slot of the ply this far ahead
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = 0; i < std::min(kAhead, game.plies.size()); ++i)
    __builtin_prefetch(&slots_[hash_pair(game.plies[i].key, game.plies[i].move) & mask]);
  for (std::size_t i = 0; i < game.plies.size(); ++i) {
    const BookPly& p = game.plies[i];
    if (ply >= max_ply) break;
    if (i + kAhead < game.plies.size())
      __builtin_prefetch(&slots_[hash_pair(game.plies[i + kAhead].key, game.plies[i + kAhead].move) & (slots_.size() - 1)]);
    const std::uint32_t index = find_or_insert(p.key, p.move, p.white_to_move);
    Entry& e = entries_[index];
    ++e.n;
    e.sum = std::uint16_t(e.sum + result + 1);
    if (e.n >= kCountMax) halve(index);
    ++ply;
    result = -result;
  }
}

std::vector<formats::PolyglotEntry> PolyglotCompatBook::entries(const CompatOptions& o) const {
  const double min_score = o.min_score / 100.0;
  struct Kept {
    std::uint64_t key;
    std::uint16_t move;
    std::uint16_t weight;
  };
  std::vector<Kept> kept;
  for (const Entry& e : entries_) {
    if (int(e.n) < o.min_game || e.sum == 0) continue;
    const double score = (double(e.sum) / double(e.n)) / 2.0;
    if (score < min_score) continue;
    if ((o.only_white && !e.white) || (o.only_black && e.white)) continue;
    if (e.key == 0) continue;
    kept.push_back(Kept{e.key, e.move, o.uniform ? std::uint16_t(1) : e.sum});
  }
  std::stable_sort(kept.begin(), kept.end(), [](const Kept& a, const Kept& b) {
    return a.key != b.key ? a.key < b.key : a.weight > b.weight;
  });
  std::vector<formats::PolyglotEntry> out;
  out.reserve(kept.size());
  for (const Kept& k : kept) out.push_back(formats::PolyglotEntry{k.key, k.move, k.weight, 0});
  return out;
}

}  // namespace tbkit::pgn
