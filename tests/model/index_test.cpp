#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <random>

#include "model/index_scheme.h"
#include "tests/model/material_util.h"

using namespace tbkit::model;
using namespace tbkit::chess;
using tbkit::model::testing::mat;
using tbkit::model::testing::random_board;

namespace {

// Every slot either decodes to a board that encodes back to it, or is unused.
// (Failures are counted and checked once: millions of REQUIREs are slow under sanitizers.)
std::uint64_t check_round_trip(const IndexScheme& scheme) {
  std::uint64_t used = 0, bad = 0;
  Board b;
  for (std::uint64_t i = 0; i < scheme.size(); ++i) {
    if (!scheme.decode(i, Color::kWhite, b)) continue;
    bad += scheme.encode(b) != i || !(b.material() == scheme.material());
    ++used;
  }
  CHECK(bad == 0);
  CHECK(used > scheme.size() / 2);
  return used;
}

Board symmetric_image(const Board& b, int t) {
  Board out;
  out.side = b.side;
  for (int c = 0; c < 2; ++c)
    for (int p = 0; p < 6; ++p)
      for (Bitboard bb = b.pieces(Color(c), PieceType(p)); bb;) out.put(Color(c), PieceType(p), apply_symmetry(t, pop_lsb(bb)));
  return out;
}

// Adds to `bad` the failures of one placement b: an index out of range, a symmetric image indexed
// elsewhere, a slot that does not decode (side to move b.side), or a decoded board outside b's
// orbit. Returns the index when its slot decodes, into `canonical`.
std::optional<std::uint64_t> check_orbit(const IndexScheme& scheme, const Board& b, Board& canonical, std::uint64_t& bad) {
  const int symmetries = scheme.material().has_pawns() ? 2 : 8;
  const std::uint64_t i = scheme.encode(b);
  if (i >= scheme.size()) {
    ++bad;
    return std::nullopt;
  }
  for (int t = 0; t < symmetries; ++t) bad += scheme.encode(symmetric_image(b, t)) != i;
  if (!scheme.decode(i, b.side, canonical)) {
    ++bad;
    return std::nullopt;
  }
  bool same_orbit = false;
  for (int t = 0; t < symmetries; ++t) same_orbit |= symmetric_image(b, t) == canonical;
  bad += !same_orbit;
  return i;
}

}  // namespace

TEST_CASE("King pair counts", "[gen][index]") {
  CHECK(IndexScheme(mat("KQvK")).king_pairs() == 462);
  CHECK(IndexScheme(mat("KPvK")).king_pairs() == 1806);
  CHECK(IndexScheme(mat("KQvK")).size() == 462 * 62);
  CHECK(IndexScheme(mat("KBBvK")).size() == 462 * 62 * 61 / 2);
  CHECK(IndexScheme(mat("KPvKP")).size() == 1806 * 48 * 47);
}

TEST_CASE("Index is a bijection over all placements (3 men)", "[gen][index]") {
  for (const char* name : {"KQvK", "KPvK"}) {
    INFO(name);
    const IndexScheme scheme(mat(name));
    const std::uint64_t used = check_round_trip(scheme);
    // Every placement of the men (kings apart, pawns off the back ranks) and each of its
    // symmetric images maps to one slot, and the slots' orbits add up to all placements.
    const PieceType extra = scheme.material().has_pawns() ? PieceType::kPawn : PieceType::kQueen;
    std::uint64_t placements = 0, orbit_total = 0, bad = 0;
    std::vector<std::uint8_t> seen(scheme.size(), 0);
    for (int wk = 0; wk < 64; ++wk)
      for (int bk = 0; bk < 64; ++bk) {
        if (wk == bk || (king_attacks(Square(wk)) & Square(bk).bb())) continue;
        for (int x = 0; x < 64; ++x) {
          if (x == wk || x == bk) continue;
          if (extra == PieceType::kPawn && (Square(x).rank() == 0 || Square(x).rank() == 7)) continue;
          Board b;
          b.put(Color::kWhite, PieceType::kKing, Square(wk));
          b.put(Color::kBlack, PieceType::kKing, Square(bk));
          b.put(Color::kWhite, extra, Square(x));
          ++placements;
          Board canonical;
          const auto i = check_orbit(scheme, b, canonical, bad);
          if (i && !seen[*i]) {
            seen[*i] = 1;
            orbit_total += std::uint64_t(scheme.orbit_size(canonical));
          }
        }
      }
    CHECK(bad == 0);
    CHECK(placements == orbit_total);
    CHECK(std::uint64_t(std::count(seen.begin(), seen.end(), 1)) == used);
  }
}

TEST_CASE("Index round trip and symmetry (4 men)", "[gen][index]") {
  std::mt19937_64 rng(12345);
  for (const char* name : {"KBBvK", "KQvKR", "KPvKP", "KRPvK", "KPPvK"}) {
    INFO(name);
    const IndexScheme scheme(mat(name));
    check_round_trip(scheme);
    std::uint64_t bad = 0;
    for (int n = 0; n < 20000; ++n) {
      Board canonical;
      (void)check_orbit(scheme, random_board(scheme.material(), rng), canonical, bad);
    }
    CHECK(bad == 0);
  }
}

namespace {

struct SteppingCount {
  std::uint64_t bad = 0;      // boards differing from decode's, or a used/unused slot mistaken
  std::uint64_t used = 0;     // slots decode reports used
  std::uint64_t stepped = 0;  // used slots reached by advance() instead of a decode
};

// Walks slots [first, last) as the solver's initialisation does (advance() from the previous
// board, decode() when it declines) and checks every board against decode().
void check_stepping(const IndexScheme& scheme, std::uint64_t first, std::uint64_t last, SteppingCount& count) {
  Board b, d;
  bool placed = false;
  for (std::uint64_t i = first; i < last; ++i) {
    const bool stepped = placed && scheme.advance(i, b);
    if (!stepped) placed = scheme.decode(i, Color::kBlack, b);
    const bool used = scheme.decode(i, Color::kBlack, d);
    count.bad += placed != used || (used && !(b == d));
    count.used += used;
    count.stepped += stepped;
  }
}

// Asks SlotBoards for slots [first, last), half of them the next slot, the others after random
// gaps, as the ply scans and the writer's passes do.
std::uint64_t check_slot_boards(const IndexScheme& scheme, std::uint64_t first, std::uint64_t last, std::mt19937_64& rng) {
  std::uint64_t bad = 0;
  SlotBoards boards(scheme, Color::kWhite);
  Board d;
  for (std::uint64_t i = first; i < last; i += (rng() & 1) ? 1 : 2 + rng() % 40) {
    const Board* b = boards.at(i);
    const bool used = scheme.decode(i, Color::kWhite, d);
    bad += (b != nullptr) != used || (b && !(*b == d));
  }
  return bad;
}

}  // namespace

// The solver walks each side's slots in order and steps the last group's men to their next
// combination instead of decoding every slot; the ply scans place the last group by its number.
// Both must give decode()'s board, for single men, pairs, triples and pawns, across span ends
// and unused slots (a pawn on a king, the diagonal case).
TEST_CASE("Stepping to the next slot and placing the last group give decode's board", "[gen][index]") {
  std::mt19937_64 rng(2026);
  SECTION("whole tables") {
    for (const char* name : {"KQvK", "KPvK", "KBBvK", "KPPvK", "KRvKR", "KQvKP"}) {
      INFO(name);
      const IndexScheme scheme(mat(name));
      SteppingCount count;
      check_stepping(scheme, 0, scheme.size(), count);
      CHECK(count.bad == 0);
      // Only a span's first slot, the slot after an unused one and the diagonal case decode.
      CHECK(count.stepped > count.used * 9 / 10);
      CHECK(check_slot_boards(scheme, 0, scheme.size(), rng) == 0);
    }
  }
  SECTION("windows of larger tables, across the last group's span ends") {
    for (const char* name : {"KPvKP", "KNNNvK", "KPPPvK", "KPPvKP", "KRRvKB"}) {
      INFO(name);
      const IndexScheme scheme(mat(name));
      const std::uint64_t span = scheme.last_span();
      SteppingCount count;
      std::uint64_t slot_bad = 0;
      for (int w = 0; w < 40; ++w) {
        // A window around the end of a random span, so the step across it is exercised.
        const std::uint64_t end = (1 + rng() % (scheme.size() / span - 1)) * span;
        const std::uint64_t first = end - std::min<std::uint64_t>(span, 3000), last = std::min(end + 3000, scheme.size());
        check_stepping(scheme, first, last, count);
        slot_bad += check_slot_boards(scheme, first, last, rng);
      }
      CHECK(count.bad == 0);
      CHECK(count.stepped > count.used * 9 / 10);
      CHECK(slot_bad == 0);
    }
  }
}

TEST_CASE("A board's material key is its material's key", "[gen][index]") {
  std::mt19937_64 rng(7);
  for (const char* name : {"KQvK", "KPvKP", "KBNvKN", "KRPvKR", "KPPPvK", "KQQvKQ"}) {
    INFO(name);
    const IndexScheme scheme(mat(name));
    for (int n = 0; n < 200; ++n) {
      const Board b = random_board(scheme.material(), rng);
      CHECK(b.material_key() == b.material().key());
      CHECK(b.material_key() == mat(name).key());
    }
  }
}
