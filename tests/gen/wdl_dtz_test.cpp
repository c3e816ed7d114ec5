#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "chess/fen.h"
#include "formats/syzygy_file.h"
#include "formats/syzygy_order_search.h"
#include "gen/consistency.h"
#include "gen/parallel.h"
#include "gen/solver.h"
#include "gen/stats.h"
#include "gen/syzygy_output.h"
#include "gen/unmove_index.h"
#include "gen/wdl_dtz.h"
#include "tests/model/material_util.h"

using namespace tbkit::gen;
using namespace tbkit::chess;
using tbkit::model::testing::mat;

namespace {

// DTM and DTZ50 tables of `wanted` and everything they convert into.
struct Sets {
  TableSet dtm;
  DtzSet dtz;
};

void solve_dtz_into(Sets& sets, const std::vector<Material>& wanted, tbb::task_arena& arena) {
  for (const Material& m : dependency_closure(wanted)) {
    if (sets.dtz.contains(m)) continue;
    if (!sets.dtm.contains(m)) {
      auto t = solve_table(m, sets.dtm, arena);
      REQUIRE(t.ok());
      sets.dtm.add(std::move(*t));
    }
    auto z = solve_dtz(*sets.dtm.find(m), sets.dtz, arena);
    REQUIRE(z.ok());
    sets.dtz.add(std::move(*z));
  }
}

// The 3-4 piece tables the tests below use, solved once (2 threads) and shared by the test cases.
const Sets& four_piece_sets() {
  static const Sets sets = [] {
    tbb::task_arena arena(2);
    Sets s;
    solve_dtz_into(s, {mat("KQvKR"), mat("KBNvK"), mat("KRvKN"), mat("KPPvK"), mat("KRvKP"), mat("KPvKP")}, arena);
    return s;
  }();
  return sets;
}

bool is_zeroing_move(const Board& b, const MoveInfo& mi) {
  return mi.kind != MoveKind::kQuiet || (b.by_type[index_of(PieceType::kPawn)] & mi.from.bb());
}

bool is_checkmate(const Board& b) { return in_check(b) && !has_legal_move(b); }

// The WDL50 of a child reached by a double push that leaves an en-passant right on `ep`.
int wdl_with_en_passant(const DtzSet& set, const Board& child, Square ep) {
  const int without = wdl50(set.probe(child));
  std::optional<int> best;
  for_each_en_passant(child, ep, [&](const Board& gc) {
    const int v = -wdl50(set.probe(gc));
    best = best ? std::max(*best, v) : v;
  });
  if (!best) return without;
  if (without == 0 && !in_check(child) && !has_legal_move(child)) return *best;
  return std::max(without, *best);
}

// The DTZ50 that `b` must have given its successors' values in `set` (Syzygy's definition, one ply
// deep): a zeroing move into a loss counts 1, into a blessed loss 101; another move into a loss
// the child's distance plus one (a mate: 1); the winner takes the smallest, the loser (all of whose
// moves lose) the largest; checkmate -1, stalemate 0.
int dtz_from_successors(const DtzSet& set, const Board& b) {
  std::optional<int> win, loss;
  bool draw = false;
  for_each_legal_move(b, [&](const Board& child, const MoveInfo& mi) {
    int for_mover = 0, distance = 0;  // the mover's WDL50 sign and the distance of this move
    if (is_zeroing_move(b, mi)) {
      const int w = mi.kind == MoveKind::kDoublePush ? wdl_with_en_passant(set, child, mi.ep_square)
                                                     : wdl50(set.probe(child));
      for_mover = -w;
      distance = std::abs(w) == 2 ? 1 : 101;
    } else {
      const int d = set.probe(child);
      for_mover = d > 0 ? -1 : d < 0 ? 1 : 0;
      distance = is_checkmate(child) ? 1 : std::abs(d) + 1;
    }
    if (for_mover > 0) win = std::min(win.value_or(distance), distance);
    else if (for_mover < 0) loss = std::max(loss.value_or(distance), distance);
    else draw = true;
  });
  if (win) return *win;
  if (draw) return 0;
  if (loss) return -*loss;
  return in_check(b) ? -1 : 0;
}

struct OnePlyReport {
  std::uint64_t checked = 0;
  std::uint64_t failed = 0;
  std::uint64_t wins = 0, losses = 0;
  std::string first_failure;
};

// Checks every legal slot of `m` (both sides) against dtz_from_successors and the DTM sign.
OnePlyReport check_one_ply(const Sets& sets, const Material& m) {
  const DtzTable& z = *sets.dtz.find(m);
  const SolvedTable& dtm = *sets.dtm.find(m);
  OnePlyReport r;
  for (int s = 0; s < 2; ++s) {
    for (std::uint64_t i = 0; i < z.scheme.size(); ++i) {
      Board b;
      const bool used = z.scheme.decode(i, Color(s), b) && is_legal(b);
      const Dtz stored = z.values[s][i];
      if (!used) {
        ++r.checked;
        if (stored != kDtzIllegal && r.failed++ == 0) r.first_failure = "slot " + std::to_string(i) + " not illegal";
        continue;
      }
      ++r.checked;
      const DtmValue v = dtm.values[s][i];
      const int expected = dtz_from_successors(sets.dtz, b);
      const bool sign_ok = (stored > 0) == v.is_win() && (stored < 0) == v.is_loss();
      r.wins += stored > 0;
      r.losses += stored < 0;
      if (stored == expected && sign_ok) continue;
      if (r.failed++ == 0)
        r.first_failure = board_to_fen(b) + ": stored " + std::to_string(stored) + ", successors give " +
                          std::to_string(expected) + ", DTM " + describe(v);
    }
  }
  return r;
}

Dtz probe_fen(const DtzSet& set, const char* fen) {
  auto pos = parse_fen(fen);
  REQUIRE(pos.ok());
  return set.probe(board_from_position(*pos));
}

namespace sz = tbkit::formats::syzygy;

struct SyzygyComparison {
  std::uint64_t positions = 0;       // legal positions compared (both sides to move), WDL at each
  std::uint64_t wdl_mismatches = 0;  // ours against the file's value resolved by captures (every reader's rule)
  std::uint64_t wdl_stored_equal = 0;  // of those, where the stored value itself equals ours
  std::uint64_t dtz_stored = 0;      // DTZ compared with the stored entry (the stored side, best move not zeroing)
  std::uint64_t dtz_exact = 0;       // of those, equal
  std::uint64_t dtz_one_less = 0;    // of those, the file one ply less (stored in moves)
  std::uint64_t dtz_zeroing = 0;     // best move zeroes (a don't-care in the file): ours must be 1 or 101
  std::uint64_t dtz_mismatches = 0;
  std::string first_failure;

  void add(const SyzygyComparison& o) {
    positions += o.positions;
    wdl_mismatches += o.wdl_mismatches;
    wdl_stored_equal += o.wdl_stored_equal;
    dtz_stored += o.dtz_stored;
    dtz_exact += o.dtz_exact;
    dtz_one_less += o.dtz_one_less;
    dtz_zeroing += o.dtz_zeroing;
    if (first_failure.empty()) first_failure = o.first_failure;
    dtz_mismatches += o.dtz_mismatches;
  }
};

// Compares every legal slot of `m` (no en-passant right: our slots have none) with Syzygy's files,
// resolving don't-cares by the rule every reader keeps, Fathom's (and older engines') as well as
// Stockfish's: the WDL is the better of the stored value and the best capture's, even where every
// move captures (Stockfish then reads no table, Fathom does); the DTZ entry counts wherever the best
// zeroing move (capture or pawn move) does not already give a win, a loss whose moves all zero
// included (Fathom reads the DTZ file there, Stockfish does not).
SyzygyComparison compare_with_syzygy(const DtzSet& set, const Material& m, const sz::SyzygyFile& wdl_file,
                                     const sz::SyzygyFile* dtz_file, tbb::task_arena& arena) {
  const DtzTable& table = *set.find(m);
  constexpr std::uint64_t kChunk = 1 << 12;
  const std::uint64_t per_side = (table.scheme.size() + kChunk - 1) / kChunk;
  std::vector<SyzygyComparison> parts(2 * per_side);
  parallel_side_chunks(arena, table.scheme.size(), kChunk, [&](int s, std::uint64_t first, std::uint64_t last, std::uint64_t c) {
    SyzygyComparison& r = parts[c];
    auto fail = [&](const Board& b, const std::string& what) {
      if (r.first_failure.empty()) r.first_failure = board_to_fen(b) + ": " + what;
    };
    SlotBoards boards(table.scheme, Color(s));
    for (std::uint64_t i = first; i < last; ++i) {
      const Board* b = boards.at(i);
      if (!b || !is_legal(*b)) continue;
      auto pos = board_to_position(*b);
      if (!pos.ok()) {
        fail(*b, "no position");
        ++r.wdl_mismatches;
        continue;
      }
      ++r.positions;
      const int ours = table.values[s][i];
      const int our_wdl = wdl50(ours);
      int best_capture = -2, best_zeroing = -2;
      const int men = popcount(b->occupied());
      for_each_legal_move(*b, [&](const Board& child, const MoveInfo& mi) {
        if (!is_zeroing_move(*b, mi)) return;
        const int v = -(mi.kind == MoveKind::kDoublePush ? wdl_with_en_passant(set, child, mi.ep_square)
                                                         : wdl50(set.probe(child)));
        best_zeroing = std::max(best_zeroing, v);
        if (popcount(child.occupied()) < men) best_capture = std::max(best_capture, v);
      });
      auto stored = wdl_file.wdl(*pos);
      if (!stored.ok()) {
        fail(*b, stored.error().message);
        ++r.wdl_mismatches;
        continue;
      }
      r.wdl_stored_equal += *stored == our_wdl;
      const int resolved = std::max(best_capture, *stored);
      if (resolved != our_wdl) {
        if (r.wdl_mismatches++ == 0)
          fail(*b, "WDL ours " + std::to_string(our_wdl) + ", Syzygy " + std::to_string(resolved));
        continue;
      }
      if (!dtz_file || our_wdl == 0) continue;
      if (best_zeroing >= our_wdl && best_zeroing > 0) {
        // Stockfish answers dtz_before_zeroing: 1 or 101 for the winner, -1 or -101 for the loser.
        ++r.dtz_zeroing;
        const int expected = our_wdl == 2 ? 1 : our_wdl == 1 ? 101 : our_wdl == -1 ? -101 : -1;
        if (ours != expected && r.dtz_mismatches++ == 0)
          fail(*b, "zeroing best move: ours " + std::to_string(ours) + ", expected " + std::to_string(expected));
        continue;
      }
      auto entry = dtz_file->dtz(*pos, our_wdl);
      if (!entry.ok()) {
        fail(*b, entry.error().message);
        ++r.dtz_mismatches;
        continue;
      }
      if (!entry->stored) continue;
      ++r.dtz_stored;
      const int theirs = sz::signed_dtz(our_wdl, entry->plies);
      if (theirs == ours) {
        ++r.dtz_exact;
      } else if (theirs == ours - (ours > 0 ? 1 : -1) && std::abs(ours) % 2 == 0) {
        // Stored in moves (the class has no ply flag): an even distance d reads back as d - 1, the
        // "off by one" of Stockfish's probe_dtz.
        ++r.dtz_one_less;
      } else if (r.dtz_mismatches++ == 0) {
        fail(*b, "DTZ ours " + std::to_string(ours) + ", Syzygy " + std::to_string(theirs));
      }
    }
  });
  SyzygyComparison total;
  for (const auto& p : parts) total.add(p);
  return total;
}

}  // namespace

TEST_CASE("wdl50 classifies distances at the 50-move boundary", "[gen][dtz]") {
  CHECK(wdl50(0) == 0);
  CHECK(wdl50(1) == 2);
  CHECK(wdl50(100) == 2);
  CHECK(wdl50(101) == 1);
  CHECK(wdl50(-1) == -2);
  CHECK(wdl50(-100) == -2);
  CHECK(wdl50(-101) == -1);
}

TEST_CASE("DTZ50 of every position agrees one ply deep with its successors", "[gen][dtz]") {
  const Sets& sets = four_piece_sets();
  // (KBNvK, KQvKR, KPPvK and KRvKP too by scripts/verify-syzygy, against the official files.)
  const std::vector<Material> tables = {mat("KQvK"), mat("KRvK"), mat("KPvK"), mat("KRvKN"), mat("KPvKP")};
  for (const Material& m : tables) {
    INFO(m.name());
    const OnePlyReport r = check_one_ply(sets, m);
    INFO(r.first_failure);
    CHECK(r.failed == 0);
    CHECK(r.checked == 2 * sets.dtz.find(m)->scheme.size());
    CHECK(r.wins > 0);
    CHECK(r.losses > 0);
  }
}

TEST_CASE("DTZ50 of known positions", "[gen][dtz]") {
  const Sets& sets = four_piece_sets();
  // Checkmated: -1; mate in one: 1; a stalemate and bare kings: 0.
  CHECK(probe_fen(sets.dtz, "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1") == -1);
  CHECK(probe_fen(sets.dtz, "k7/8/1K6/8/8/8/8/2Q5 w - - 0 1") == 1);
  CHECK(probe_fen(sets.dtz, "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1") == 0);
  CHECK(probe_fen(sets.dtz, "k7/8/1K6/8/8/8/8/8 b - - 0 1") == 0);
  // A promotion zeroes: White to move promotes at once (1 ply); Black's every king move allows it (2).
  CHECK(probe_fen(sets.dtz, "7k/4P3/4K3/8/8/8/8/8 w - - 0 1") == 1);
  CHECK(probe_fen(sets.dtz, "7k/4P3/4K3/8/8/8/8/8 b - - 0 1") == -2);
  // The colour-flipped material is served by the same table.
  CHECK(probe_fen(sets.dtz, "8/8/8/8/8/4k3/4p3/7K b - - 0 1") == 1);
}

TEST_CASE("DTZ50 tables are identical with 1 and 2 threads", "[gen][dtz][threads]") {
  const Sets& sets = four_piece_sets();
  tbb::task_arena arena1(1), arena2(2);
  for (const char* name : {"KPvKP", "KRvKN"}) {
    INFO(name);
    const SolvedTable& dtm = *sets.dtm.find(mat(name));
    auto one = solve_dtz(dtm, sets.dtz, arena1);
    auto two = solve_dtz(dtm, sets.dtz, arena2);
    REQUIRE(one.ok());
    REQUIRE(two.ok());
    CHECK((*one)->values[0] == (*two)->values[0]);
    CHECK((*one)->values[1] == (*two)->values[1]);
    CHECK((*one)->values[0] == sets.dtz.find(mat(name))->values[0]);
    CHECK(!(*one)->values[0].empty());
  }
}

TEST_CASE("A table held for later ones keeps each slot's WDL50 in a third of a byte", "[gen][dtz]") {
  tbb::task_arena arena(2);
  SECTION("every value, at every position of a byte and in a last byte not full") {
    // KQvK's 21,168 slots a side (a multiple of 3) less 1 and 2: a last byte of 2 and 1 slots.
    DtzTable made(mat("KQvK"));
    const std::uint64_t n = made.scheme.size();
    REQUIRE(n % 3 == 0);
    const Dtz cycle[] = {5, -100, 0, 101, -101, kDtzIllegal, 100, -1, 1200};
    for (int s = 0; s < 2; ++s) {
      made.values[s] = tbkit::formats::ZeroedArray<Dtz>(n);
      for (std::uint64_t i = 0; i < n; ++i) made.values[s][i] = cycle[(i + std::uint64_t(s)) % std::size(cycle)];
    }
    const auto packed = WdlTable::of(made, arena);
    for (int s = 0; s < 2; ++s) {
      INFO("side " << s);
      CHECK(packed->packed[s].size() == n / 3);
      std::uint64_t wrong = 0;
      for (std::uint64_t i = 0; i < n; ++i) {
        const Dtz d = made.values[s][i];
        wrong += packed->wdl(s, i) != (d == kDtzIllegal ? 0 : wdl50(d));
      }
      CHECK(wrong == 0);
    }
    // A last byte holding fewer than three slots: the same table cut short.
    for (const std::uint64_t cut : {n - 1, n - 2}) {
      DtzTable shorter(mat("KQvK"));
      for (int s = 0; s < 2; ++s) {
        shorter.values[s] = tbkit::formats::ZeroedArray<Dtz>(n);
        std::copy(made.values[s].data(), made.values[s].data() + n, shorter.values[s].data());
      }
      // of() reads scheme.size() slots; compare the slots of the first `cut` through a scheme-sized
      // table whose tail is illegal.
      for (int s = 0; s < 2; ++s)
        for (std::uint64_t i = cut; i < n; ++i) shorter.values[s][i] = kDtzIllegal;
      const auto p = WdlTable::of(shorter, arena);
      for (std::uint64_t i = cut - 3; i < n; ++i) {
        const Dtz d = shorter.values[0][i];
        CHECK(p->wdl(0, i) == (d == kDtzIllegal ? 0 : wdl50(d)));
      }
    }
  }
  SECTION("the solved tables, probed in both colour orientations") {
    const Sets& sets = four_piece_sets();
    for (const char* name : {"KRvKP", "KPvKP", "KBNvK", "KQvKR"}) {
      INFO(name);
      const DtzTable& whole = *sets.dtz.find(mat(name));
      DtzSet held;
      held.add(WdlTable::of(whole, arena));
      REQUIRE(held.contains(mat(name)));
      REQUIRE(held.find(mat(name)) == nullptr);  // not held whole
      std::uint64_t compared = 0, wrong = 0, decisive = 0;
      for (int s = 0; s < 2; ++s) {
        SlotBoards boards(whole.scheme, Color(s));
        for (std::uint64_t i = 0; i < whole.scheme.size(); i += 5) {
          const Board* b = boards.at(i);
          if (!b || !is_legal(*b)) continue;
          const int expected = wdl50(whole.values[s][i]);
          ++compared;
          decisive += expected != 0;
          wrong += held.wdl(*b) != expected;
          wrong += held.wdl(color_flipped(*b)) != expected;
          wrong += sets.dtz.wdl(*b) != expected;
        }
      }
      CHECK(wrong == 0);
      CHECK(compared > whole.scheme.size() / 10);
      CHECK(decisive > 0);
    }
  }
}

TEST_CASE("A table whose DTM decides every position within 99 plies gives its WDL50 from the DTM alone",
          "[gen][dtz]") {
  tbb::task_arena arena(2);
  const Sets& sets = four_piece_sets();
  SECTION("the same packed WDL50 as the solved DTZ50's, slot for slot") {
    // Every 3- and 4-man table is decided within 79 plies (KRvKN's longest mate).
    for (const char* name : {"KQvKR", "KBNvK", "KRvKN", "KPPvK", "KRvKP", "KPvKP"}) {
      INFO(name);
      const auto from_dtm = WdlTable::of_short_dtm(*sets.dtm.find(mat(name)), arena);
      REQUIRE(from_dtm != nullptr);
      const auto solved = WdlTable::of(*sets.dtz.find(mat(name)), arena);
      std::uint64_t decisive = 0;
      for (int s = 0; s < 2; ++s) {
        REQUIRE(from_dtm->packed[s].size() == solved->packed[s].size());
        CHECK(std::equal(from_dtm->packed[s].data(), from_dtm->packed[s].data() + from_dtm->packed[s].size(),
                         solved->packed[s].data()));
        for (std::uint64_t i = 0; i < solved->scheme.size(); ++i) decisive += solved->wdl(s, i) != 0;
      }
      CHECK(decisive > 0);
    }
  }
  SECTION("refused past 99 plies: a win in 101 or a loss in 100 could meet the 50-move rule") {
    const SolvedTable& kqk = *sets.dtm.find(mat("KQvK"));
    const std::uint64_t n = kqk.scheme.size();
    // A copy of KQvK with one decided slot of Black to move changed to `v`.
    std::uint64_t slot = 0;
    while (!kqk.values[1][slot].is_loss()) ++slot;
    auto with = [&](DtmValue v) {
      SolvedTable t(mat("KQvK"));
      for (int s = 0; s < 2; ++s) {
        t.values[s] = ValueArray(n);
        std::copy(kqk.values[s].data(), kqk.values[s].data() + n, t.values[s].data());
      }
      t.values[1][slot] = v;
      return WdlTable::of_short_dtm(t, arena);
    };
    CHECK(with(DtmValue::win_in_plies(101)) == nullptr);
    CHECK(with(DtmValue::loss_in_plies(100)) == nullptr);
    const auto win = with(DtmValue::win_in_plies(99));
    const auto loss = with(DtmValue::loss_in_plies(98));
    REQUIRE(win != nullptr);
    REQUIRE(loss != nullptr);
    CHECK(win->wdl(1, slot) == 2);
    CHECK(loss->wdl(1, slot) == -2);
  }
}

TEST_CASE("WDL50 statistics counted in parallel chunks are those of one walk in index order", "[gen][dtz]") {
  const Sets& sets = four_piece_sets();
  for (const char* name : {"KBNvK", "KRvKP"}) {
    INFO(name);
    const DtzTable& table = *sets.dtz.find(mat(name));
    const IndexScheme& scheme = table.scheme;
    REQUIRE(scheme.size() > 8 * (std::uint64_t{1} << 16));  // many chunks a side
    std::array<SideStats50, 2> want;
    std::uint64_t undecoded = 0;
    for (int s = 0; s < 2; ++s) {
      SideStats50& out = want[std::size_t(s)];
      std::uint64_t longest = 0;
      Board b;
      for (std::uint64_t i = 0; i < scheme.size(); ++i) {
        const Dtz d = table.values[s][i];
        if (d == kDtzIllegal) continue;
        undecoded += !scheme.decode(i, Color(s), b);
        const auto n = std::uint64_t(scheme.orbit_size(b));
        const int w = wdl50(d);
        (w == 2 ? out.win : w == 1 ? out.cursed_win : w == 0 ? out.draw : w == -1 ? out.blessed_loss : out.loss) += n;
        if (d > out.longest_dtz) {
          out.longest_dtz = d;
          longest = i;
        }
      }
      if (out.longest_dtz > 0) {
        REQUIRE(scheme.decode(longest, Color(s), b));
        out.longest_dtz_fen = board_to_fen(b);
      }
    }
    REQUIRE(undecoded == 0);
    CHECK(want[0].longest_dtz > 0);
    for (int threads : {1, 2}) {
      INFO(threads << " threads");
      tbb::task_arena arena(threads);
      const auto got = compute_stats50(table, arena);
      for (std::size_t s = 0; s < 2; ++s) {
        INFO("side " << s);
        CHECK(got[s].win == want[s].win);
        CHECK(got[s].cursed_win == want[s].cursed_win);
        CHECK(got[s].draw == want[s].draw);
        CHECK(got[s].blessed_loss == want[s].blessed_loss);
        CHECK(got[s].loss == want[s].loss);
        CHECK(got[s].longest_dtz == want[s].longest_dtz);
        CHECK(got[s].longest_dtz_fen == want[s].longest_dtz_fen);
      }
    }
  }
}

TEST_CASE("Quiet children numbered from the index digits are the encoded ones", "[gen][dtz]") {
  // Every slot of a 3-man table, every 7th of 4-man ones and a sample of 5-man ones: the pawnless
  // diagonal case, two like men moving and moved around (a group of two after another), pawns (no
  // rank mirror), and kings moving into a non-canonical pair.
  for (const auto& [name, step] : {std::pair{"KQvK", 1}, std::pair{"KQvKR", 7}, std::pair{"KBBvK", 7},
                                   std::pair{"KRvKP", 7}, std::pair{"KPPvK", 7}, std::pair{"KBBNvK", 4999},
                                   std::pair{"KRvKBB", 4999}, std::pair{"KNNvKP", 4999}}) {
    INFO(name);
    const tbkit::model::IndexScheme scheme(mat(name));
    std::uint64_t children = 0, boards = 0;
    for (int side = 0; side < 2; ++side) {
      for (std::uint64_t i = 0; i < scheme.size(); i += std::uint64_t(step)) {
        Board b;
        if (!scheme.decode(i, Color(side), b) || !is_legal(b)) continue;
        std::vector<std::uint64_t> expected, got;
        for_each_legal_move(b, [&](const Board& child, const MoveInfo& mi) {
          if (!is_zeroing_move(b, mi)) expected.push_back(scheme.encode(child));
        });
        for_each_quiet_child(scheme, b, i, [&](std::uint64_t c) { got.push_back(c); });
        std::sort(expected.begin(), expected.end());
        std::sort(got.begin(), got.end());
        if (got != expected) FAIL_CHECK(board_to_fen(b) << ": " << got.size() << " children, " << expected.size() << " expected");
        children += got.size();
        ++boards;
      }
    }
    CHECK(boards > 1000);
    CHECK(children > 2 * boards);
  }
}

TEST_CASE("DTZ50 pulls the last open wins from their children", "[gen][dtz]") {
  // The pass switches a side's open wins to pulling once they are fewer than half the losses that
  // would push to them: the official fixtures' comparison (below) covers these tables' values.
  const Sets& sets = four_piece_sets();
  tbb::task_arena arena(2);
  for (const char* name : {"KQvKR", "KPvKP", "KBNvK"}) {
    INFO(name);
    int pulls = 0;
    std::uint64_t pulled = 0;
    auto z = solve_dtz(*sets.dtm.find(mat(name)), sets.dtz, arena, [&](const DtzProgress& p) {
      if (p.phase != "pull") return;
      ++pulls;
      pulled += p.done;
    });
    REQUIRE(z.ok());
    CHECK(pulls > 0);
    CHECK(pulled > 0);
    CHECK((*z)->values[0] == sets.dtz.find(mat(name))->values[0]);
    CHECK((*z)->values[1] == sets.dtz.find(mat(name))->values[1]);
  }
}

TEST_CASE("solve_dtz names a missing subtable", "[gen][dtz]") {
  // 3-man tables: this case also runs under the sanitizers, where a 4-man solve takes 20 s.
  tbb::task_arena arena(1);
  TableSet dtm;
  auto t = solve_table(mat("KQvK"), dtm, arena);
  REQUIRE(t.ok());
  dtm.add(std::move(*t));
  auto kpk = solve_table(mat("KPvK"), dtm, arena);
  CHECK(!kpk.ok());  // needs the DTM of KRvK, KBvK and KNvK first
  for (const char* name : {"KRvK", "KBvK", "KNvK"}) {
    auto r = solve_table(mat(name), dtm, arena);
    REQUIRE(r.ok());
    dtm.add(std::move(*r));
  }
  auto full = solve_table(mat("KPvK"), dtm, arena);
  REQUIRE(full.ok());
  DtzSet empty;
  auto z = solve_dtz(**full, empty, arena);
  REQUIRE(!z.ok());
  CHECK(z.error().code == tbkit::ErrorCode::kUnavailable);
  // The table, and the first of the four it promotes into that it found missing.
  CHECK(z.error().message == "KPvK: needs the DTZ table KBvK first");
}

namespace {

// Solves the fixtures' materials and compares each with its official files in `dir`; returns the
// positions compared.
std::uint64_t check_against_syzygy(const std::filesystem::path& dir, const std::vector<Material>& tables) {
  tbb::task_arena arena(2);
  Sets sets = four_piece_sets();
  solve_dtz_into(sets, tables, arena);
  std::uint64_t compared = 0;
  for (const Material& m : tables) {
    INFO(m.name());
    auto wdl_file = sz::SyzygyFile::open(dir / (m.name() + ".rtbw"));
    REQUIRE(wdl_file.ok());
    std::optional<sz::SyzygyFile> dtz_file;
    if (std::filesystem::exists(dir / (m.name() + ".rtbz"))) {
      auto z = sz::SyzygyFile::open(dir / (m.name() + ".rtbz"));
      REQUIRE(z.ok());
      dtz_file = std::move(*z);
    }
    const auto start = std::chrono::steady_clock::now();
    const SyzygyComparison r = compare_with_syzygy(sets.dtz, m, *wdl_file, dtz_file ? &*dtz_file : nullptr, arena);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(r.first_failure);
    CAPTURE(r.positions, r.wdl_stored_equal, r.dtz_stored, r.dtz_exact, r.dtz_one_less, r.dtz_zeroing, seconds);
    CHECK(r.wdl_mismatches == 0);
    CHECK(r.dtz_mismatches == 0);
    CHECK(r.positions > 0);
    // Tables with a win somewhere store some DTZ (KNvK and KBvK are all draws).
    if (dtz_file && r.wdl_stored_equal > 0 && m.pawns() + m.count(Color::kWhite, PieceType::kQueen) +
                                                      m.count(Color::kWhite, PieceType::kRook) > 0)
      CHECK(r.dtz_stored > 0);
    compared += r.positions;
  }
  return compared;
}

}  // namespace

TEST_CASE("WDL50 and DTZ50 agree with the official Syzygy fixtures", "[gen][dtz][syzygy]") {
  const std::filesystem::path dir = TBKIT_DATA_DIR "/tablebases/syzygy";
  const std::vector<Material> tables = {mat("KQvK"),  mat("KRvK"),  mat("KPvK"),  mat("KNvK"),  mat("KBvK"),
                                        mat("KPPvK"), mat("KPvKP"), mat("KQvKR"), mat("KBNvK"), mat("KRvKP")};
  CHECK(check_against_syzygy(dir, tables) > 1000000);
}

namespace {

std::string file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// M's two files as written into dir/one and dir/two (by 1 and 2 threads): not empty and the same;
// dir/one's open, pass their checksums and agree with our DTZ50 in every position. Gives the number
// of subtables not in the default piece order.
int check_written_twice(const std::filesystem::path& dir, const Sets& sets, const Material& m, tbb::task_arena& arena) {
  for (const char* ext : {".rtbw", ".rtbz"}) {
    const std::string bytes = file_bytes(dir / "one" / (m.name() + ext));
    CHECK(!bytes.empty());
    CHECK(bytes == file_bytes(dir / "two" / (m.name() + ext)));
  }
  auto wdl_file = sz::SyzygyFile::open(dir / "one" / (m.name() + ".rtbw"));
  auto dtz_file = sz::SyzygyFile::open(dir / "one" / (m.name() + ".rtbz"));
  REQUIRE(wdl_file.ok());
  REQUIRE(dtz_file.ok());
  CHECK(wdl_file->verify_checksum());
  CHECK(dtz_file->verify_checksum());
  int non_default = 0;
  const sz::PieceOrder fallback = sz::default_order(wdl_file->index().material);
  for (const sz::SyzygyFile* f : {&*wdl_file, &*dtz_file})
    for (const sz::SubtableIndex& sub : f->index().subtables) non_default += !(sz::order_of(sub) == fallback);
  const SyzygyComparison r = compare_with_syzygy(sets.dtz, m, *wdl_file, &*dtz_file, arena);
  INFO(r.first_failure);
  CHECK(r.positions > 0);
  CHECK(r.wdl_mismatches == 0);
  CHECK(r.dtz_mismatches == 0);
  CHECK(r.dtz_stored > 0);
  return non_default;
}

}  // namespace

TEST_CASE("The Syzygy step reports reading, the pass and writing of each table", "[gen][dtz]") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tbkit_syzygy_progress_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  GenOptions opts;
  opts.dir = dir;
  const std::vector<Material> wanted = {mat("KPvK")};  // with KQvK, KRvK, KBvK, KNvK
  tbb::task_arena arena(2);
  REQUIRE(generate_tables(wanted, opts, arena, {}, {}).ok());
  // Each table's steps, in order; "solve" once per run of its pass's phases.
  auto run = [&] {
    std::vector<std::string> steps;
    int levels = 0;
    const tbkit::Status st = generate_syzygy_tables(wanted, opts, arena, {}, {}, [&](const SyzygyProgress& p) {
      std::string step = p.material.name() + " " + std::string(p.phase) + (p.dependency ? " (dependency)" : "");
      if (p.phase == "solve") levels = std::max(levels, p.dtz.levels);
      if (steps.empty() || steps.back() != step) steps.push_back(step);
    });
    REQUIRE(st.ok());
    return std::pair{steps, levels};
  };
  const auto [first, levels] = run();
  CHECK(first == std::vector<std::string>{"KBvK read", "KBvK solve", "KBvK write", "KNvK read", "KNvK solve",
                                          "KNvK write", "KQvK read", "KQvK solve", "KQvK write", "KRvK read",
                                          "KRvK solve", "KRvK write", "KPvK read", "KPvK solve", "KPvK write"});
  CHECK(levels > 1);  // the pawn table's levels
  // Files present are not written again, but the pawn table's pass needs the WDL50 of the tables
  // it promotes into: each is read as a dependency, first (last to first) to find it decided within
  // 99 plies, then (in order) to take its WDL50 from its DTM, with no pass of its own.
  std::filesystem::remove(dir / "KPvK.rtbw");
  const auto [second, unused] = run();
  CHECK(second == std::vector<std::string>{"KRvK read (dependency)", "KQvK read (dependency)",
                                           "KNvK read (dependency)", "KBvK read (dependency)",
                                           "KNvK read (dependency)", "KQvK read (dependency)",
                                           "KRvK read (dependency)", "KPvK read", "KPvK solve", "KPvK write"});
  std::filesystem::remove_all(dir);
}

TEST_CASE("Syzygy piece orders, searched in full and pruned on coarse samples: files read back, the same with 1 and "
          "2 threads, smaller than the default order's",
          "[gen][dtz][syzygy][threads]") {
  // `full` judges every candidate on the full sample (no pruning); `pruned`, with small samples,
  // prunes on a coarse one. The pruned files are the ones written with 1 and 2 threads and read back.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tbkit_syzygy_orders_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  for (const char* sub : {"one", "two", "full", "default"}) std::filesystem::create_directories(dir / sub);
  const Sets& sets = four_piece_sets();
  tbb::task_arena one(1), two(2);
  SyzygyWriteOptions pruned;
  pruned.sample_min = 1024;
  pruned.prune_keep = 2;
  SyzygyWriteOptions full;
  full.prune_keep = 0;
  full.sample_min = std::uint64_t{1} << 15;  // the default's 2^18 on every candidate: 16 s of this case's 35
  SyzygyWriteOptions plain;
  plain.choose_orders = false;
  int non_default = 0;
  std::uint64_t pruned_bytes = 0, full_bytes = 0, default_bytes = 0;
  for (const char* name : {"KQvKR", "KRvKP"}) {  // pawnless, and pawns (lead files)
    INFO(name);
    const Material m = mat(name);
    const DtzTable& table = *sets.dtz.find(m);
    auto a = write_syzygy_files(dir / "one", table, sets.dtz, one, pruned);
    auto b = write_syzygy_files(dir / "two", table, sets.dtz, two, pruned);
    auto c = write_syzygy_files(dir / "full", table, sets.dtz, two, full);
    auto d = write_syzygy_files(dir / "default", table, sets.dtz, two, plain);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    REQUIRE(c.ok());
    REQUIRE(d.ok());
    pruned_bytes += a->wdl_bytes + a->dtz_bytes;
    full_bytes += c->wdl_bytes + c->dtz_bytes;
    default_bytes += d->wdl_bytes + d->dtz_bytes;
    non_default += check_written_twice(dir, sets, m, two);
  }
  INFO("pruned " << pruned_bytes << ", full search " << full_bytes << ", default orders " << default_bytes);
  // The search keeps the default order only where it compresses best: here it never does everywhere.
  CHECK(non_default > 0);
  CHECK(full_bytes < default_bytes);
  CHECK(pruned_bytes < default_bytes);
  CHECK(pruned_bytes * 100 <= full_bytes * 102);
  std::filesystem::remove_all(dir);
}

// A full set's check, for a developer with the official 3-4 piece files (not a ctest: hidden, and
// the directory comes from TBKIT_SYZYGY_FULL).
TEST_CASE("WDL50 and DTZ50 agree with a full official 3-4 piece Syzygy set", "[.][gen][dtz][syzygy-full]") {
  const char* dir = std::getenv("TBKIT_SYZYGY_FULL");
  REQUIRE(dir != nullptr);
  CHECK(check_against_syzygy(dir, all_materials(4)) > 1000000);
}

// Times the DTM solve and the DTZ50 pass of each table of TBKIT_DTZ_BENCH (names separated by
// commas, default KQvKR,KBNvK,KRvKP,KPvKP) and their dependencies, one thread each (not a ctest).
TEST_CASE("DTZ50 pass time against the DTM solve", "[.][gen][dtz][dtz-bench]") {
  const char* env = std::getenv("TBKIT_DTZ_BENCH");
  std::string names = env ? env : "KQvKR,KBNvK,KRvKP,KPvKP";
  std::vector<Material> wanted;
  for (std::size_t at = 0; at <= names.size();) {
    const std::size_t comma = std::min(names.find(',', at), names.size());
    wanted.push_back(mat(names.substr(at, comma - at).c_str()));
    at = comma + 1;
  }
  tbb::task_arena arena(1);
  Sets sets;
  double dtm_total = 0, dtz_total = 0;
  for (const Material& m : dependency_closure(wanted)) {
    const auto t0 = std::chrono::steady_clock::now();
    auto t = solve_table(m, sets.dtm, arena);
    REQUIRE(t.ok());
    const auto t1 = std::chrono::steady_clock::now();
    auto z = solve_dtz(**t, sets.dtz, arena);
    REQUIRE(z.ok());
    const auto t2 = std::chrono::steady_clock::now();
    const double dtm = std::chrono::duration<double>(t1 - t0).count(), dtz = std::chrono::duration<double>(t2 - t1).count();
    dtm_total += dtm;
    dtz_total += dtz;
    WARN(m.name() << ": DTM " << dtm << " s, DTZ50 " << dtz << " s, ratio " << dtz / dtm);
    sets.dtm.add(std::move(*t));
    sets.dtz.add(std::move(*z));
  }
  WARN("all: DTM " << dtm_total << " s, DTZ50 " << dtz_total << " s, ratio " << dtz_total / dtm_total);
  CHECK(dtz_total > 0);
}
