#include "player/book.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace tbkit::player {

Result<OpeningBook> OpeningBook::open(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorCode::kIo, path.string() + ": cannot open book: " + std::strerror(errno));
  std::byte head[8]{};
  in.read(reinterpret_cast<char*>(head), sizeof head);
  OpeningBook book;
  if (in.gcount() == sizeof head && formats::has_book_magic(head)) {
    auto f = formats::BookFile::open(path);
    if (!f) return f.error();
    book.tbb_ = std::make_shared<const formats::BookFile>(std::move(*f));
  } else {
    auto b = formats::read_polyglot_book(path);
    if (!b) return b.error();
    book.polyglot_ = std::make_shared<const formats::PolyglotBook>(std::move(*b));
  }
  return book;
}

std::vector<BookCandidate> OpeningBook::candidates(const chess::Position& pos, std::uint32_t min_games) const {
  std::vector<BookCandidate> out;
  const bool black = pos.side_to_move() == chess::Color::kBlack;
  if (tbb_) {
    for (const auto& r : tbb_->lookup(pos.key())) {
      if (r.black_to_move() != black || r.games < std::max<std::uint32_t>(1, min_games)) continue;
      auto m = formats::from_polyglot_move(pos, r.move);
      if (!m) continue;
      const double decided = double(r.mover_wins()) + 0.5 * r.draws;
      const std::uint32_t known = r.white_wins + r.draws + r.black_wins;
      out.push_back({*m, r.games, known ? decided / known : 0.5});
    }
  } else if (polyglot_) {
    const auto entries = polyglot_->lookup(pos.key());
    std::uint64_t total = 0;
    for (const auto& e : entries) total += e.weight;
    for (const auto& e : entries) {
      if (e.weight == 0 || e.weight < min_games) continue;
      auto m = formats::from_polyglot_move(pos, e.move);
      if (!m) continue;
      out.push_back({*m, e.weight, total ? double(e.weight) / double(total) : 0.0});
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const BookCandidate& a, const BookCandidate& b) { return a.games > b.games; });
  return out;
}

std::optional<chess::Move> OpeningBook::choose(const chess::Position& pos, const BookPolicy& policy,
                                               std::mt19937_64& rng) const {
  const auto cands = candidates(pos, policy.min_games);
  if (cands.empty()) return std::nullopt;
  if (policy.selection == BookSelection::kBest) {
    // Best score; ties go to the more played move (candidates are sorted by games).
    const auto best = std::max_element(cands.begin(), cands.end(),
                                       [](const BookCandidate& a, const BookCandidate& b) { return a.score < b.score; });
    return best->move;
  }
  std::uint64_t total = 0;
  for (const auto& c : cands) total += c.games;
  std::uniform_int_distribution<std::uint64_t> dist(0, total - 1);
  std::uint64_t pick = dist(rng);
  for (const auto& c : cands) {
    if (pick < c.games) return c.move;
    pick -= c.games;
  }
  return cands.front().move;
}

}  // namespace tbkit::player
