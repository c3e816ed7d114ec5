// Piece-order candidates of the Syzygy writer: every candidate is a valid index scheme, the search
// returns the cheapest, and the sample ranges cover what they promise.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "formats/syzygy_index.h"
#include "formats/syzygy_order_search.h"

namespace {

namespace sz = tbkit::formats::syzygy;

sz::TableMaterial order_material(const std::string& name) {
  auto m = sz::TableMaterial::from_name(name);
  REQUIRE(m.ok());
  return *m;
}

// Every valid candidate order of a material with at most four kinds.
std::vector<sz::PieceOrder> all_candidates(const sz::TableMaterial& m, int kinds) {
  std::vector<int> digits(static_cast<std::size_t>(kinds));
  std::iota(digits.begin(), digits.end(), 0);
  std::vector<sz::PieceOrder> out;
  do {
    if (auto o = sz::order_of_digits(m, digits)) out.push_back(*o);
  } while (std::next_permutation(digits.begin(), digits.end()));
  return out;
}

}  // namespace

TEST_CASE("Syzygy order candidates are valid schemes and include Syzygy's own", "[syzygy][order]") {
  struct Case {
    const char* name;
    int kinds;
    std::size_t count;
  };
  for (const Case& c : {Case{"KQvKR", 4, 24}, Case{"KBBvK", 3, 4}, Case{"KPvKP", 4, 24}, Case{"KRPvK", 4, 24}}) {
    INFO(c.name);
    const sz::TableMaterial m = order_material(c.name);
    const auto candidates = all_candidates(m, c.kinds);
    CHECK(candidates.size() == c.count);
    for (const sz::PieceOrder& o : candidates)
      for (int file = 0; file < (m.has_pawns() ? 4 : 1); ++file) {
        auto sub = sz::SubtableIndex::create(m, std::span(o.pieces).first(std::size_t(m.piece_count())), o.order0,
                                             o.order1, file);
        CHECK(sub.ok());
      }
  }
  // KQvKR.rtbw's side 0 order: white K, black R, white Q, black K, leading group second.
  const sz::TableMaterial kqkr = order_material("KQvKR");
  using tbkit::chess::Color;
  using tbkit::chess::Piece;
  using tbkit::chess::PieceType;
  sz::PieceOrder official;
  official.pieces = {Piece(Color::kWhite, PieceType::kKing), Piece(Color::kBlack, PieceType::kRook),
                     Piece(Color::kWhite, PieceType::kQueen), Piece(Color::kBlack, PieceType::kKing)};
  official.order0 = 1;
  const auto candidates = all_candidates(kqkr, 4);
  CHECK(std::find(candidates.begin(), candidates.end(), official) != candidates.end());
}

TEST_CASE("Syzygy order search returns the cheapest candidate, the default on ties", "[syzygy][order]") {
  const sz::TableMaterial m = order_material("KRvKP");
  // Cost: low for one non-default order only (pawn most significant, then white K, white R, black K).
  std::vector<sz::PieceOrder> seen;
  const sz::OrderCosts costs = [&](std::span<const sz::SubtableIndex> subs) {
    std::vector<std::uint64_t> out;
    for (const sz::SubtableIndex& s : subs) {
      seen.push_back(sz::order_of(s));
      out.push_back(s.order0() == 3 && s.piece(1).type() == tbkit::chess::PieceType::kRook &&
                            s.piece(2).color() == tbkit::chess::Color::kWhite
                        ? 1
                        : 100);
    }
    return out;
  };
  auto best = sz::search_piece_order(m, 2, costs);
  REQUIRE(best.ok());
  CHECK(best->order0() == 3);
  CHECK(best->piece(1).type() == tbkit::chess::PieceType::kRook);
  CHECK(best->piece(2).color() == tbkit::chess::Color::kWhite);
  CHECK(best->file() == 2);
  CHECK(seen.size() == 24);  // every candidate once, the default among them
  CHECK(seen.front() == sz::default_order(m));

  const sz::OrderCosts flat = [](std::span<const sz::SubtableIndex> subs) {
    return std::vector<std::uint64_t>(subs.size(), 7);
  };
  auto tie = sz::search_piece_order(m, 0, flat);
  REQUIRE(tie.ok());
  CHECK(sz::order_of(*tie) == sz::default_order(m));
}

TEST_CASE("Syzygy order search over five kinds is greedy and valid", "[syzygy][order]") {
  const sz::TableMaterial m = order_material("KQRvKN");
  int calls = 0;
  std::size_t judged = 0;
  const sz::OrderCosts costs = [&](std::span<const sz::SubtableIndex> subs) {
    ++calls;
    judged += subs.size();
    std::vector<std::uint64_t> out;
    for (const sz::SubtableIndex& s : subs) out.push_back(s.size() + std::uint64_t(s.order0()));
    return out;
  };
  auto best = sz::search_piece_order(m, 0, costs);
  REQUIRE(best.ok());
  CHECK(calls > 1);
  CHECK(judged < 120);  // fewer than all 5! arrangements
  CHECK(best->piece_count() == 5);
}

TEST_CASE("Syzygy order sample ranges", "[syzygy][order]") {
  const auto whole = sz::sample_ranges(1000, 5, 4096, 64);
  REQUIRE(whole.size() == 1);
  CHECK(whole[0] == std::pair<std::uint64_t, std::uint64_t>{0, 1000});
  const std::uint64_t size = 10'000'000;
  const auto ranges = sz::sample_ranges(size, 5, 4096, 64);
  REQUIRE(ranges.size() == 64);
  std::uint64_t total = 0, previous_end = 0;
  for (const auto& [first, last] : ranges) {
    CHECK(first >= previous_end);
    CHECK(last <= size);
    CHECK(last > first);
    total += last - first;
    previous_end = last;
  }
  CHECK(ranges.front().first == 0);
  CHECK(ranges.back().first > size / 2);
  CHECK(total <= size / 32);
  CHECK(total > size / 32 - 64);
}

TEST_CASE("Syzygy index: encode_normal and encode_distinct agree with encode_or_none across orders",
          "[syzygy][order]") {
  // The writer maps a placement of one candidate order into another from the walk's square numbers:
  // by encode_normal when both begin with the same leading group (and, split in two, by
  // prefix_value and rest_value), else by encode_distinct. Every ordered pair of candidates, over
  // walks through the subtable.
  std::uint64_t pairs = 0, same_lead = 0, checked = 0, failed = 0, split_checked = 0;
  // KRRvK and KBBvK: groups of two men after the prefix.
  const std::pair<const char*, int> materials[] = {{"KRPvK", 4}, {"KPvKP", 4}, {"KQvKR", 4}, {"KBNvK", 4},
                                                   {"KRvKN", 4}, {"KRRvK", 3}, {"KBBvK", 3}};
  for (const auto& [name, kinds] : materials) {
    const sz::TableMaterial m = order_material(name);
    const auto candidates = all_candidates(m, kinds);
    const int lead = m.has_pawns() ? m.lead_pawn_count() + m.other_pawn_count() : m.has_unique_pieces() ? 3 : 2;
    for (const sz::PieceOrder& a : candidates)
      for (const sz::PieceOrder& b : candidates) {
        if (a == b) continue;
        const bool normal = std::equal(a.pieces.begin(), a.pieces.begin() + lead, b.pieces.begin());
        const int file = m.has_pawns() ? int(pairs % 4) : 0;
        const auto n = std::size_t(m.piece_count());
        auto from = sz::SubtableIndex::create(m, std::span(a.pieces).first(n), a.order0, a.order1, file);
        auto to = sz::SubtableIndex::create(m, std::span(b.pieces).first(n), b.order0, b.order1, file);
        REQUIRE(from.ok());
        REQUIRE(to.ok());
        ++pairs;
        same_lead += normal;
        // b's piece k stands where a's first unused piece of the same kind does.
        std::array<int, sz::kMaxPieces> source{};
        std::array<bool, sz::kMaxPieces> used{};
        for (std::size_t k = 0; k < n; ++k)
          for (std::size_t j = 0; j < n; ++j)
            if (!used[j] && a.pieces[j] == b.pieces[k]) {
              used[j] = true;
              source[k] = int(j);
              break;
            }
        sz::SubtableWalk walk(*from, from->size() / 5);
        // The split form (prefix part plus the rest's part), the rest's part kept while the walk
        // says no man after the prefix moved, as the writer's maps keep it.
        const bool pawn_group = m.has_pawns() && m.other_pawn_count() > 0;
        std::uint64_t rest = 0;
        for (int step = 0; step < 3000; ++step, walk.next()) {
          sz::SquareList squares{};
          std::array<int, sz::kMaxPieces> numbers{};
          for (std::size_t k = 0; k < n; ++k) {
            squares[k] = walk.squares()[std::size_t(source[k])];
            numbers[k] = walk.square_numbers()[std::size_t(source[k])];
          }
          const std::uint64_t want = to->encode_or_none(std::span(squares).first(n));
          const auto placed = std::span<const int>(numbers).first(n);
          const std::uint64_t got = normal ? to->encode_normal(placed, walk.digit(0)) : to->encode_distinct(placed);
          if (want != got && ++failed <= 5)
            UNSCOPED_INFO(name << ": index " << walk.index() << " maps to " << got << ", encode_or_none " << want);
          if (normal) {
            if (walk.rest_changed() < int(n)) {
              std::array<int, sz::kMaxPieces> positions{};
              for (std::size_t k = std::size_t(lead); k < n; ++k)
                positions[k - std::size_t(lead)] = walk.rest_positions()[std::size_t(source[k])];
              rest = to->rest_value(std::span<const int>(positions).first(n - std::size_t(lead)));
            }
            const std::uint64_t split = to->prefix_value(walk.digit(0), pawn_group ? walk.digit(1) : 0) + rest;
            if (want != split && ++failed <= 5)
              UNSCOPED_INFO(name << ": index " << walk.index() << " splits to " << split << ", encode_or_none " << want);
            ++split_checked;
          }
          ++checked;
        }
      }
  }
  CHECK(failed == 0);
  CHECK(same_lead >= 20);
  CHECK(pairs - same_lead >= 20);
  CHECK(checked == pairs * 3000);
  CHECK(split_checked == same_lead * 3000);
}
