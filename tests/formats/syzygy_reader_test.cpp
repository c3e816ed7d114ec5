// The Syzygy reader against the official fixtures in data/tablebases/syzygy and our own DTM tables.
#include <catch2/catch.hpp>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "formats/syzygy_file.h"
#include "formats/syzygy_index.h"
#include "gen/solver.h"
#include "gen/table_set.h"
#include "model/board.h"
#include "model/material.h"

namespace {

namespace sz = tbkit::formats::syzygy;
using tbkit::chess::Color;
using tbkit::chess::Move;
using tbkit::chess::Piece;
using tbkit::chess::PieceType;
using tbkit::chess::Position;
using tbkit::chess::Square;

const std::filesystem::path& syzygy_dir() {
  static const std::filesystem::path kDir = std::filesystem::path(TBKIT_DATA_DIR) / "tablebases" / "syzygy";
  return kDir;
}

const std::vector<std::string>& wdl_fixtures() {
  static const std::vector<std::string> kNames = {"KQvK", "KRvK", "KPvK", "KNvK", "KBvK", "KPPvK",
                                                  "KPvKP", "KQvKR", "KBNvK", "KRvKP"};
  return kNames;
}
const std::vector<std::string>& dtz_fixtures() {
  static const std::vector<std::string> kNames = {"KQvK", "KRvK", "KPvK", "KNvK", "KBvK", "KPPvK", "KPvKP"};
  return kNames;
}

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// The official fixtures, opened once, looked up by a position's material in either colour orientation.
class SyzygySet {
 public:
  SyzygySet() {
    for (const auto& name : wdl_fixtures()) add(wdl_, name + ".rtbw");
    for (const auto& name : dtz_fixtures()) add(dtz_, name + ".rtbz");
  }
  [[nodiscard]] const sz::SyzygyFile* wdl_file(const Position& pos) const { return find(wdl_, pos); }
  [[nodiscard]] const sz::SyzygyFile* dtz_file(const Position& pos) const { return find(dtz_, pos); }

 private:
  static void add(std::map<std::string, std::unique_ptr<sz::SyzygyFile>>& files, const std::string& file) {
    auto f = sz::SyzygyFile::open(syzygy_dir() / file);
    REQUIRE(f.ok());
    const std::string name = f->material().name();
    files[name] = std::make_unique<sz::SyzygyFile>(std::move(*f));
  }
  static const sz::SyzygyFile* find(const std::map<std::string, std::unique_ptr<sz::SyzygyFile>>& files,
                                    const Position& pos) {
    auto m = sz::TableMaterial::from_position(pos);
    REQUIRE(m.ok());
    for (const auto& name : {m->name(), m->swapped().name()}) {
      auto it = files.find(name);
      if (it != files.end()) return it->second.get();
    }
    return nullptr;
  }
  std::map<std::string, std::unique_ptr<sz::SyzygyFile>> wdl_;
  std::map<std::string, std::unique_ptr<sz::SyzygyFile>> dtz_;
};

bool is_zeroing(const Position& pos, Move m) {
  return pos.is_capture(m) || pos.moved_piece(m).type() == PieceType::kPawn;
}

struct Resolved {
  int wdl = 0;
  bool zeroing_best = false;  // a capture (or with pawn_moves, a pawn move) decides the value
};

// Syzygy's probe of a position's WDL: the stored value, improved by captures (and, when pawn_moves,
// by pawn moves too, as a DTZ probe does to know whether the best move zeroes the counter).
Resolved resolve_wdl(const SyzygySet& set, Position& pos, bool pawn_moves) {
  if (tbkit::chess::popcount(pos.pieces()) == 2) return {};
  int best = -3;
  std::size_t tried = 0;
  const auto moves = tbkit::chess::legal_moves(pos);
  for (Move m : moves) {
    if (!pos.is_capture(m) && !(pawn_moves && pos.moved_piece(m).type() == PieceType::kPawn)) continue;
    ++tried;
    pos.do_move(m);
    const int v = -resolve_wdl(set, pos, false).wdl;
    pos.undo_move(m);
    if (v > best) {
      best = v;
      if (v == 2) return {2, true};
    }
  }
  int value = best;
  if (!(tried > 0 && tried == moves.size())) {
    const sz::SyzygyFile* file = set.wdl_file(pos);
    REQUIRE(file != nullptr);
    auto stored = file->wdl(pos);
    REQUIRE(stored.ok());
    value = *stored;
  }
  if (best >= value) return {best, best > 0 || (tried > 0 && tried == moves.size())};
  return {value, false};
}

int dtz_before_zeroing(int wdl) {
  static constexpr int kValues[5] = {-1, -101, 0, 101, 1};
  return kValues[wdl + 2];
}

// Syzygy's DTZ probe (signed plies, possibly one too many), one ply of search where the file holds
// the other side to move.
int probe_dtz(const SyzygySet& set, Position& pos) {
  const Resolved r = resolve_wdl(set, pos, true);
  if (r.wdl == 0) return 0;
  if (r.zeroing_best) return dtz_before_zeroing(r.wdl);
  const sz::SyzygyFile* file = set.dtz_file(pos);
  REQUIRE(file != nullptr);
  auto entry = file->dtz(pos, r.wdl);
  REQUIRE(entry.ok());
  if (entry->stored) return sz::signed_dtz(r.wdl, entry->plies);
  int best = 0xFFFF;
  for (Move m : tbkit::chess::legal_moves(pos)) {
    const bool zeroing = is_zeroing(pos, m);
    pos.do_move(m);
    int d = zeroing ? -dtz_before_zeroing(resolve_wdl(set, pos, false).wdl) : -probe_dtz(set, pos);
    if (d == 1 && pos.in_check() && !tbkit::chess::has_legal_move(pos)) best = 1;
    pos.undo_move(m);
    if (!zeroing) d += (d > 0) - (d < 0);
    if (d < best && ((d > 0) == (r.wdl > 0)) && d != 0) best = d;
  }
  return best == 0xFFFF ? -1 : best;
}

int sign(int v) { return (v > 0) - (v < 0); }

// Some pawn stands on its 6th rank or beyond.
bool pawn_near_promotion(const Position& pos) {
  for (Color c : {Color::kWhite, Color::kBlack}) {
    tbkit::chess::Bitboard b = pos.pieces(c, PieceType::kPawn);
    while (b)
      if (tbkit::chess::pop_lsb(b).relative_rank(c) >= 5) return true;
  }
  return false;
}

// The position of a decoded placement (table orientation), or nothing when it is illegal.
std::optional<Position> position_of(const sz::SubtableIndex& sub, const sz::SquareList& squares, int side) {
  tbkit::chess::PositionSetup setup;
  for (int i = 0; i < sub.piece_count(); ++i) setup.board[std::size_t(squares[std::size_t(i)].index())] = sub.piece(i);
  setup.side = Color(side);
  auto pos = Position::from_setup(setup);
  if (!pos.ok()) return std::nullopt;
  return std::move(*pos);
}

// A placement as 12 piece bitboards, to compare placements regardless of the piece order.
using Signature = std::array<tbkit::chess::Bitboard, 12>;
Signature signature_of(const sz::SubtableIndex& sub, const sz::SquareList& squares) {
  Signature s{};
  for (int i = 0; i < sub.piece_count(); ++i) s[std::size_t(sub.piece(i).code())] |= squares[std::size_t(i)].bb();
  return s;
}

Square transform(Square s, int t) {
  if (t & 1) s = s.flipped_file();
  if (t & 2) s = s.flipped_rank();
  if (t & 4) s = s.flipped_diagonal();
  return s;
}

// The images of a placement under the board symmetries Syzygy folds (8 without pawns, the file mirror
// with): how many are distinct, and whether `index` (in `file`) is the least (file, index) among them.
struct Orbit {
  int size = 0;
  bool first = false;
};
Orbit orbit_of(const sz::SyzygyFile& f, int side, int file, std::uint64_t index, const sz::SquareList& squares) {
  const sz::SubtableIndex& sub = f.index().at(side, file);
  const int transforms = f.material().has_pawns() ? 2 : 8;
  std::vector<Signature> seen;
  std::pair<int, std::uint64_t> least{file, index};
  for (int t = 0; t < transforms; ++t) {
    sz::SquareList image = squares;
    for (int i = 0; i < sub.piece_count(); ++i) image[std::size_t(i)] = transform(squares[std::size_t(i)], t);
    const Signature sig = signature_of(sub, image);
    if (std::find(seen.begin(), seen.end(), sig) != seen.end()) continue;
    seen.push_back(sig);
    sz::OrientedPosition op;
    op.side = side;
    for (int i = 0; i < sub.piece_count(); ++i) op.add(sub.piece(i), image[std::size_t(i)]);
    const int image_file = sz::lead_file(f.material(), op);
    const sz::SubtableIndex& image_sub = f.index().at(side, image_file);
    const std::uint64_t image_index = image_sub.index_for(op);
    REQUIRE(image_index != sz::SubtableIndex::kNoIndex);
    least = std::min(least, std::pair<int, std::uint64_t>{image_file, image_index});
  }
  return {int(seen.size()), least == std::pair<int, std::uint64_t>{file, index}};
}

// Legal positions of a material, both sides to move, counted over every placement on the board.
std::uint64_t count_legal_positions(const sz::TableMaterial& m) {
  std::vector<Piece> pieces;
  for (Color c : {Color::kWhite, Color::kBlack})
    for (int t = 0; t < tbkit::chess::kPieceTypeCount; ++t)
      for (int k = 0; k < m.count(c, PieceType(t)); ++k) pieces.emplace_back(c, PieceType(t));
  std::uint64_t legal = 0;
  tbkit::model::Board b;
  // Identical pieces take ascending squares so each placement is met once.
  const auto place = [&](auto&& self, std::size_t i, int min_square) -> void {
    if (i == pieces.size()) {
      for (Color side : {Color::kWhite, Color::kBlack}) {
        b.side = side;
        legal += tbkit::model::is_legal(b) ? 1 : 0;
      }
      return;
    }
    const Piece p = pieces[i];
    const bool same = i > 0 && pieces[i - 1] == p;
    const int lo = std::max(p.type() == PieceType::kPawn ? 8 : 0, same ? min_square : 0);
    const int hi = p.type() == PieceType::kPawn ? 56 : 64;
    for (int s = lo; s < hi; ++s) {
      if (b.occupied() & Square(s).bb()) continue;
      b.put(p.color(), p.type(), Square(s));
      self(self, i + 1, s + 1);
      b.remove(p.color(), p.type(), Square(s));
    }
  };
  place(place, 0, 0);
  return legal;
}

void solve_dtm(tbkit::gen::TableSet& set, const std::string& name) {
  tbb::task_arena arena(2);
  const auto wanted = tbkit::model::Material::parse(name).value().normalized();
  for (const auto& m : tbkit::model::dependency_closure({wanted})) {
    if (set.contains(m)) continue;
    auto t = tbkit::gen::solve_table(m, set, arena);
    REQUIRE(t.ok());
    set.add(std::move(*t));
  }
}

// Every index of every subtable of the WDL file `name`: the probe of the decoded position gives the
// stored value back, the capture-resolved value has the sign of our DTM, and the decoded placements,
// weighted by their symmetry orbits, cover every legal position of the material exactly once.
void check_wdl_against_dtm(const SyzygySet& set, const tbkit::gen::TableSet& dtm, const std::string& name) {
  auto file = sz::SyzygyFile::open(syzygy_dir() / (name + ".rtbw"));
  REQUIRE(file.ok());
  const sz::TableIndex& index = file->index();
  const bool symmetric = file->material().is_symmetric();
  std::uint64_t compared = 0;
  std::uint64_t covered = 0;
  std::uint64_t mismatches = 0;
  std::uint64_t bad_round_trips = 0;
  std::uint64_t bad_probes = 0;
  // Plain counters inside the loop (millions of positions), checked once at the end.
  for (int f = 0; f < index.files; ++f)
    for (int side = 0; side < (symmetric ? 1 : 2); ++side) {
      const sz::SubtableIndex& sub = index.at(side, f);
      for (std::uint64_t i = 0; i < sub.size(); ++i) {
        const auto squares = sub.decode(i);
        if (!squares) {
          ++bad_round_trips;
          continue;
        }
        auto pos = position_of(sub, *squares, side);
        if (!pos) continue;
        const auto again = sub.encode(std::span(*squares).first(std::size_t(sub.piece_count())));
        if (again != std::optional<std::uint64_t>(i)) ++bad_round_trips;
        auto stored = file->stored_value(side, f, i);
        auto probed = file->wdl(*pos);
        if (!stored.ok() || !probed.ok() || *probed != *stored - 2) ++bad_probes;
        const int resolved = resolve_wdl(set, *pos, false).wdl;
        const auto v = dtm.probe(tbkit::model::board_from_position(*pos));
        const int expected = v.is_win() ? 1 : v.is_loss() ? -1 : 0;
        if (sign(resolved) != expected && ++mismatches <= 5)
          UNSCOPED_INFO(name << ": " << tbkit::chess::to_fen(*pos) << " syzygy " << resolved << " dtm " << expected);
        ++compared;
        const Orbit orbit = orbit_of(*file, side, f, i, *squares);
        if (orbit.first) covered += std::uint64_t(orbit.size) * (symmetric ? 2 : 1);
      }
    }
  const std::uint64_t legal = count_legal_positions(file->material());
  WARN(name << ": " << compared << " indices of legal positions compared with our DTM; they cover " << covered
            << " positions (symmetric images counted), " << legal << " legal positions on the board");
  CHECK(mismatches == 0);
  CHECK(bad_round_trips == 0);
  CHECK(bad_probes == 0);
  CHECK(covered == legal);
  CHECK(compared > 0);
}

}  // namespace

TEST_CASE("Every Syzygy fixture opens, with its material, layout and checksum", "[formats][syzygy]") {
  int opened = 0;
  for (const auto& name : wdl_fixtures()) {
    auto f = sz::SyzygyFile::open(syzygy_dir() / (name + ".rtbw"));
    INFO(name);
    REQUIRE(f.ok());
    CHECK(f->kind() == sz::TableKind::kWdl);
    CHECK(f->material().name() == name);
    CHECK(f->index().files == (f->material().has_pawns() ? 4 : 1));
    CHECK(f->index().sides == (f->material().is_symmetric() ? 1 : 2));
    CHECK(f->has_checksum());
    const auto sum = f->verify_checksum();
    CHECK(sum.ok());
    ++opened;
  }
  for (const auto& name : dtz_fixtures()) {
    auto f = sz::SyzygyFile::open(syzygy_dir() / (name + ".rtbz"));
    INFO(name);
    REQUIRE(f.ok());
    CHECK(f->kind() == sz::TableKind::kDtz);
    CHECK(f->index().sides == 1);
    CHECK(f->has_checksum());
    const auto sum = f->verify_checksum();
    CHECK(sum.ok());
    ++opened;
  }
  CHECK(opened == 17);
}

TEST_CASE("Syzygy index tables: sizes of the standard subtables", "[formats][syzygy]") {
  const auto m = sz::TableMaterial::from_name("KQvKR").value();
  CHECK(m.has_unique_pieces());
  const auto order = sz::default_piece_order(m);
  auto sub = sz::SubtableIndex::create(m, std::span(order).first(4), 0, 0xF, 0);
  REQUIRE(sub.ok());
  CHECK(sub->size() == 31332ULL * 61);
  CHECK(sub->group_count() == 2);

  const auto kk = sz::TableMaterial::from_name("KRRvK").value();
  CHECK_FALSE(kk.has_unique_pieces());
  const auto kk_order = sz::default_piece_order(kk);
  auto kk_sub = sz::SubtableIndex::create(kk, std::span(kk_order).first(4), 0, 0xF, 0);
  REQUIRE(kk_sub.ok());
  CHECK(kk_sub->size() == 462ULL * (62 * 61 / 2));

  const auto pp = sz::TableMaterial::from_name("KPPvKP").value();
  CHECK(pp.lead_color() == Color::kBlack);  // the side with fewer pawns leads
  const auto pp_order = sz::default_piece_order(pp);
  CHECK(pp_order[0] == Piece(Color::kBlack, PieceType::kPawn));
  CHECK(pp_order[1] == Piece(Color::kWhite, PieceType::kPawn));
  auto pp_sub = sz::SubtableIndex::create(pp, std::span(pp_order).first(5), 0, 1, 0);
  REQUIRE(pp_sub.ok());
  // File a: leading pawn on a2..a7 or h2..h7 counted once per square: 6 values; other pawns C(47, 2).
  CHECK(pp_sub->size() == 6ULL * (47 * 46 / 2) * 61 * 60);

  // Inconsistent arguments are errors, not asserts.
  CHECK_FALSE(sz::SubtableIndex::create(m, std::span(order).first(3), 0, 0xF, 0).ok());
  CHECK_FALSE(sz::SubtableIndex::create(m, std::span(order).first(4), 5, 0xF, 0).ok());
  CHECK_FALSE(sz::SubtableIndex::create(pp, std::span(pp_order).first(5), 0, 0, 0).ok());
  CHECK_FALSE(sz::TableMaterial::from_name("KQvKQvK").ok());
  CHECK_FALSE(sz::TableMaterial::from_name("QvK").ok());
}

TEST_CASE("Syzygy index: decode and encode are inverse on every index of built schemes", "[formats][syzygy]") {
  for (const char* name : {"KRvK", "KRRvK", "KQvKR", "KPvKP", "KPPvK", "KRvKN"}) {
    const auto m = sz::TableMaterial::from_name(name).value();
    const auto order = sz::default_piece_order(m);
    const bool pp = m.has_pawns() && m.other_pawn_count() > 0;
    std::uint64_t checked = 0;
    std::uint64_t failed = 0;
    for (int f = 0; f < (m.has_pawns() ? 4 : 1); ++f) {
      auto sub = sz::SubtableIndex::create(m, std::span(order).first(std::size_t(m.piece_count())), pp ? 1 : 0,
                                           pp ? 0 : 0xF, f);
      REQUIRE(sub.ok());
      const std::uint64_t step = sub->size() > 2000000 ? 7 : 1;
      for (std::uint64_t i = 0; i < sub->size(); i += step) {
        const auto squares = sub->decode(i);
        const auto back = squares ? sub->encode(std::span(*squares).first(std::size_t(m.piece_count())))
                                  : std::nullopt;
        if (back != std::optional<std::uint64_t>(i) && ++failed <= 5)
          UNSCOPED_INFO(name << " file " << f << ": index " << i << " does not come back");
        ++checked;
      }
      CHECK_FALSE(sub->decode(sub->size()).has_value());
    }
    INFO(name);
    CHECK(failed == 0);
    CHECK(checked > 1000);
  }
}

TEST_CASE("Syzygy index: a walk over consecutive indices gives decode's placements", "[formats][syzygy]") {
  // Every order byte the leading group (and the other colour's pawns) can take, so that each group
  // in turn is the fastest-changing digit; walks start at the first index and inside the subtable.
  // Leading groups of one to three pawns (the walk looks small ones up in a table), other colour's
  // pawns alone and in pairs, three unique pieces, and the two kings.
  for (const char* name : {"KRvK", "KRRvK", "KQvKR", "KPvKP", "KPPvK", "KRNvKR", "KRRvKR", "KRPvKR", "KPPvKP",
                           "KPvKPP", "KPPPvK", "KBNvK"}) {
    const auto m = sz::TableMaterial::from_name(name).value();
    const auto order = sz::default_piece_order(m);
    const bool pp = m.has_pawns() && m.other_pawn_count() > 0;
    const auto pieces = std::span(order).first(std::size_t(m.piece_count()));
    const int groups = sz::SubtableIndex::create(m, pieces, pp ? 1 : 0, pp ? 0 : 0xF, 0).value().group_count();
    std::uint64_t checked = 0, failed = 0;
    for (int order0 = 0; order0 < groups; ++order0)
      for (int order1 = pp ? 0 : 0xF; order1 <= (pp ? groups - 1 : 0xF); ++order1) {
        if (order1 == order0) continue;
        const int file = m.has_pawns() ? order0 % 4 : 0;
        auto sub = sz::SubtableIndex::create(m, pieces, order0, order1, file);
        REQUIRE(sub.ok());
        for (const std::uint64_t start : {std::uint64_t{0}, sub->size() / 3 + 17}) {
          sz::SubtableWalk walk(*sub, start);
          const std::uint64_t last = std::min(sub->size(), start + 200000);
          for (std::uint64_t i = start;; ) {
            const auto want = sub->decode(i);
            const auto numbers = walk.square_numbers();
            const bool same = want && walk.index() == i &&
                              std::equal(want->begin(), want->begin() + m.piece_count(), walk.squares().begin()) &&
                              std::equal(numbers.begin(), numbers.end(), want->begin(),
                                         [](int n, auto s) { return n == s.index(); });
            if (!same && ++failed <= 5)
              UNSCOPED_INFO(name << " order " << order0 << "/" << order1 << ": index " << i << " placed otherwise");
            ++checked;
            if (++i == last) break;
            walk.next();
          }
        }
      }
    INFO(name);
    CHECK(failed == 0);
    CHECK(checked >= 20000);
  }
}

TEST_CASE("Syzygy index header: written and parsed back", "[formats][syzygy]") {
  for (const char* name : {"KQvKR", "KPvKP", "KRRvK", "KPPvKP"}) {
    const auto m = sz::TableMaterial::from_name(name).value();
    for (bool dtz : {false, true}) {
      const int sides = (!dtz && !m.is_symmetric()) ? 2 : 1;
      const int files = m.has_pawns() ? 4 : 1;
      const bool pp = m.has_pawns() && m.other_pawn_count() > 0;
      std::vector<sz::PieceList> orders(std::size_t(sides * files), sz::default_piece_order(m));
      std::vector<std::array<int, 2>> nibbles(std::size_t(sides * files), {pp ? 2 : 1, pp ? 0 : 0xF});
      if (m.piece_count() == 3) nibbles.assign(nibbles.size(), {0, 0xF});
      auto index = sz::make_table_index(m, sides, orders, nibbles);
      INFO(name << (dtz ? " dtz" : " wdl"));
      REQUIRE(index.ok());
      const auto bytes = sz::write_index_header(*index, 4, dtz);
      CHECK((4 + bytes.size()) % 2 == 0);
      auto parsed = sz::parse_index_header(bytes, 4, m, dtz, "test");
      REQUIRE(parsed.ok());
      CHECK(parsed->end == bytes.size());
      REQUIRE(parsed->index.subtables.size() == index->subtables.size());
      for (std::size_t k = 0; k < index->subtables.size(); ++k) {
        CHECK(parsed->index.subtables[k].size() == index->subtables[k].size());
        CHECK(parsed->index.subtables[k].order0() == index->subtables[k].order0());
      }
      // The same bytes do not parse as another material.
      const auto other = sz::TableMaterial::from_name("KNNvK").value();
      CHECK_FALSE(sz::parse_index_header(bytes, 4, other, dtz, "test").ok());
    }
  }
}

TEST_CASE("Syzygy WDL of known positions", "[formats][syzygy]") {
  SyzygySet set;
  const auto wdl_of = [&](const char* fen) {
    auto pos = tbkit::chess::parse_fen(fen);
    REQUIRE(pos.ok());
    const sz::SyzygyFile* f = set.wdl_file(*pos);
    REQUIRE(f != nullptr);
    auto v = f->wdl(*pos);
    REQUIRE(v.ok());
    return *v;
  };
  CHECK(wdl_of("8/8/8/8/8/8/1Q6/K6k w - - 0 1") == 2);
  CHECK(wdl_of("8/8/8/8/8/8/1Q6/K6k b - - 0 1") == -2);
  CHECK(wdl_of("k7/6q1/8/8/8/8/8/7K b - - 0 1") == 2);    // colours swapped
  CHECK(wdl_of("8/8/8/8/8/8/1q6/k6K w - - 0 1") == -2);   // ... and mirrored
  CHECK(wdl_of("8/8/8/8/8/8/1N6/K6k w - - 0 1") == 0);
  CHECK(wdl_of("k7/8/1K6/P7/8/8/8/8 w - - 0 1") == 0);     // rook pawn, defending king in the corner
  CHECK(wdl_of("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1") == 2);  // king on the sixth in front of its pawn
  CHECK(wdl_of("4k3/8/4K3/4P3/8/8/8/8 b - - 0 1") == -2);
  CHECK(wdl_of("8/8/8/8/8/4k3/4p3/4K3 w - - 0 1") == 0);   // KvKP: colours swapped; White is stalemated
  CHECK(wdl_of("8/8/8/8/8/8/k3p3/6K1 b - - 0 1") == 2);    // ... Black promotes
  // A position of other material is an error value.
  auto pos = tbkit::chess::parse_fen("8/8/8/8/8/8/1R6/K6k w - - 0 1");
  REQUIRE(pos.ok());
  auto q = sz::SyzygyFile::open(syzygy_dir() / "KQvK.rtbw");
  REQUIRE(q.ok());
  CHECK_FALSE(q->wdl(*pos).ok());
  auto z = sz::SyzygyFile::open(syzygy_dir() / "KQvK.rtbz");
  REQUIRE(z.ok());
  CHECK_FALSE(z->wdl(*pos).ok());
  CHECK_FALSE(q->stored_value(0, 0, q->index().at(0, 0).size()).ok());
}

TEST_CASE("Truncated, corrupted and foreign Syzygy files are rejected, naming the file", "[formats][syzygy]") {
  const auto dir = std::filesystem::temp_directory_path() / ("tbkit_syzygy_reader_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  int rejected = 0;
  const auto expect_rejected = [&](const std::filesystem::path& path, tbkit::ErrorCode code) {
    auto f = sz::SyzygyFile::open(path);
    INFO(path.string());
    REQUIRE_FALSE(f.ok());
    CHECK(f.error().code == code);
    CHECK(f.error().message.find(path.string()) != std::string::npos);
    ++rejected;
  };
  for (const char* name : {"KQvKR.rtbw", "KPvKP.rtbz", "KPvKP.rtbw", "KRvK.rtbz"}) {
    const std::string bytes = read_bytes(syzygy_dir() / name);
    REQUIRE(bytes.size() > 200);
    const auto path = dir / name;
    // Lengths of 16 mod 64 pass the size check and must fail on the offsets inside.
    for (std::size_t keep : {std::size_t{0}, std::size_t{3}, std::size_t{5}, std::size_t{9}, std::size_t{16}, std::size_t{80},
                             bytes.size() / 2, ((bytes.size() / 2) & ~std::size_t{63}) + 16, bytes.size() - 64,
                             bytes.size() - 16, bytes.size() - 17, bytes.size() - 1}) {
      write_bytes(path, bytes.substr(0, keep));
      expect_rejected(path, tbkit::ErrorCode::kCorrupt);
    }
    // Bad magic, unknown table flags, a piece code of another material, a huge block count.
    for (std::size_t at : {std::size_t{0}, std::size_t{4}, std::size_t{7}}) {
      std::string bad = bytes;
      bad[at] = char(bad[at] ^ 0x08);
      write_bytes(path, bad);
      expect_rejected(path, tbkit::ErrorCode::kCorrupt);
    }
    std::string extra = bytes + std::string(64, '\0');
    write_bytes(path, extra);
    expect_rejected(path, tbkit::ErrorCode::kCorrupt);
  }
  // A DTZ file under a WDL name, a table under another table's name, a text file.
  write_bytes(dir / "KQvK.rtbw", read_bytes(syzygy_dir() / "KQvK.rtbz"));
  expect_rejected(dir / "KQvK.rtbw", tbkit::ErrorCode::kCorrupt);
  write_bytes(dir / "KRvK.rtbw", read_bytes(syzygy_dir() / "KQvK.rtbw"));
  expect_rejected(dir / "KRvK.rtbw", tbkit::ErrorCode::kCorrupt);
  write_bytes(dir / "KQvKR.rtbw", read_bytes(syzygy_dir() / "KRvKP.rtbw"));
  expect_rejected(dir / "KQvKR.rtbw", tbkit::ErrorCode::kCorrupt);
  write_bytes(dir / "KNvK.rtbw", read_bytes(syzygy_dir() / "README.md"));
  expect_rejected(dir / "KNvK.rtbw", tbkit::ErrorCode::kCorrupt);
  CHECK(rejected == 4 * 16 + 4);
  // Missing file and non-table names.
  CHECK(sz::SyzygyFile::open(dir / "KBBvK.rtbw").error().code == tbkit::ErrorCode::kIo);
  CHECK(sz::SyzygyFile::open(dir / "README.md").error().code == tbkit::ErrorCode::kInvalidArgument);
  std::filesystem::remove_all(dir);
}

TEST_CASE("A flipped byte in Syzygy's compressed data fails the checksum, naming the file", "[formats][syzygy]") {
  int failed = 0;
  for (const char* name : {"KQvKR.rtbw", "KPvKP.rtbz", "KBNvK.rtbw"}) {
    const std::string bytes = read_bytes(syzygy_dir() / name);
    auto good = sz::SyzygyFile::open(syzygy_dir() / name);
    REQUIRE(good.ok());
    const std::size_t data = good->layout(0, 0).data;
    REQUIRE(data > 0);
    for (std::size_t at : {data, data + 5, bytes.size() - 17, bytes.size() - 1}) {
      std::string bad = bytes;
      bad[at] = char(bad[at] ^ 0x01);
      auto f = sz::SyzygyFile::from_bytes(std::as_bytes(std::span(bad.data(), bad.size())), name, good->kind(),
                                          good->material());
      REQUIRE(f.ok());  // the layout is intact; only the checksum can tell
      const auto sum = f->verify_checksum();
      INFO(name << " byte " << at);
      REQUIRE_FALSE(sum.ok());
      CHECK(sum.error().code == tbkit::ErrorCode::kCorrupt);
      CHECK(sum.error().message.rfind(name, 0) == 0);
      ++failed;
    }
  }
  CHECK(failed == 12);
}

TEST_CASE("Syzygy lookups from two threads give the single-thread answers", "[formats][syzygy][threads]") {
  auto f = sz::SyzygyFile::open(syzygy_dir() / "KRvKP.rtbw");
  REQUIRE(f.ok());
  const sz::SyzygyFile& file = *f;
  std::vector<int> expected;
  for (int file_index = 0; file_index < 4; ++file_index)
    for (std::uint64_t i = 0; i < file.index().at(0, file_index).size(); i += 13) {
      auto v = file.stored_value(0, file_index, i);
      expected.push_back(v.ok() ? *v : -1);
    }
  std::array<std::vector<int>, 2> got;
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      for (int file_index = 0; file_index < 4; ++file_index)
        for (std::uint64_t i = 0; i < file.index().at(0, file_index).size(); i += 13) {
          auto v = file.stored_value(0, file_index, i);
          got[std::size_t(t)].push_back(v.ok() ? *v : -1);
        }
    });
  for (auto& t : threads) t.join();
  CHECK(expected.size() > 10000);
  CHECK(std::count(expected.begin(), expected.end(), -1) == 0);
  CHECK(got[0] == expected);
  CHECK(got[1] == expected);
}

TEST_CASE("Syzygy reader survives every single-byte corruption of a header", "[formats][syzygy]") {
  // Each byte before the compressed data is flipped in turn; the file is rejected, or opens and answers
  // every probe with a value or an error (never a crash: the sanitizer builds check the reads).
  for (const char* name : {"KRvKP.rtbw", "KPvKP.rtbz"}) {
    const std::string bytes = read_bytes(syzygy_dir() / name);
    auto good = sz::SyzygyFile::open(syzygy_dir() / name);
    REQUIRE(good.ok());
    const std::size_t header = good->layout(0, 0).data;
    REQUIRE(header > 64);
    int rejected = 0;
    int opened = 0;
    int tried = 0;
    // Every byte of the piece header and the compression records, then a sample of the sparse index
    // and block lengths.
    const std::size_t dense = std::min<std::size_t>(header, 512);
    for (std::size_t at = 0; at < header; at += at < dense ? 1 : 61) {
      ++tried;
      std::string bad = bytes;
      bad[at] = char(bad[at] ^ 0x5A);
      auto f = sz::SyzygyFile::from_bytes(std::as_bytes(std::span(bad.data(), bad.size())), name, good->kind(),
                                          good->material());
      if (!f.ok()) {
        CHECK(f.error().message.rfind(name, 0) == 0);
        ++rejected;
        continue;
      }
      ++opened;
      for (int file = 0; file < f->index().files; ++file)
        for (int side = 0; side < f->index().sides; ++side) {
          const std::uint64_t size = f->index().at(side, file).size();
          for (std::uint64_t i = 0; i < size; i += 4999) (void)f->stored_value(side, file, i);
        }
    }
    INFO(name << ": " << rejected << " rejected, " << opened << " opened");
    CHECK(rejected > tried / 4);
    CHECK(rejected + opened == tried);
  }
}

TEST_CASE("Syzygy WDL of every legal position has the sign of our DTM", "[formats][syzygy][slow]") {
  SyzygySet set;
  tbkit::gen::TableSet dtm;
  for (const char* name : {"KPvK", "KPPvK", "KPvKP", "KRvKP", "KQvKR", "KBNvK"}) {
    SECTION(name) {
      solve_dtm(dtm, name);
      check_wdl_against_dtm(set, dtm, name);
    }
  }
}

TEST_CASE("Syzygy DTZ agrees with the WDL and with its successors one ply on", "[formats][syzygy][slow]") {
  SyzygySet set;
  for (const auto& name : dtz_fixtures()) {
    auto file = sz::SyzygyFile::open(syzygy_dir() / (name + ".rtbz"));
    REQUIRE(file.ok());
    std::uint64_t stored = 0;
    std::uint64_t errors = 0;         // lookups that failed or found the side not stored
    std::uint64_t out_of_range = 0;   // a DTZ inconsistent with its WDL class
    std::uint64_t related = 0;
    std::uint64_t off_by_one = 0;
    std::uint64_t unrelated = 0;      // more than one ply away from the best successor's
    std::uint64_t seen = 0;
    for (int f = 0; f < file->index().files; ++f) {
      const int side = file->dtz_stored_side(f);
      const sz::SubtableIndex& sub = file->index().at(0, f);
      for (std::uint64_t i = 0; i < sub.size(); ++i) {
        const auto squares = sub.decode(i);
        REQUIRE(squares.has_value());
        auto pos = position_of(sub, *squares, side);
        if (!pos) continue;
        // A pawn move to the 7th or 8th rank would need a 5-man table (KQPvK, KQvKP) the fixtures lack.
        if (name != "KPvK" && pawn_near_promotion(*pos)) continue;
        const Resolved r = resolve_wdl(set, *pos, true);
        if (r.wdl == 0 || r.zeroing_best) continue;
        auto entry = file->dtz(*pos, r.wdl);
        if (!entry.ok() || !entry->stored) {
          if (++errors <= 5) UNSCOPED_INFO(name << " " << tbkit::chess::to_fen(*pos) << ": no stored DTZ");
          continue;
        }
        ++stored;
        // Within the 50-move rule for wins and losses (101: rounding up of a distance stored in
        // moves), past it for cursed wins and blessed losses.
        const bool in_range = (r.wdl == 2 || r.wdl == -2) ? entry->plies >= 1 && entry->plies <= 101
                                                           : sz::signed_dtz(r.wdl, entry->plies) * r.wdl > 100;
        if (!in_range && ++out_of_range <= 5)
          UNSCOPED_INFO(name << " " << tbkit::chess::to_fen(*pos) << ": wdl " << r.wdl << " dtz " << entry->plies);
        // One ply on, on a sample: the best move's successor is one ply nearer zeroing (or the move
        // zeroes), up to Syzygy's rounding of distances stored in moves.
        if (++seen % 7 != 0) continue;
        int best = r.wdl > 0 ? 0xFFFF : 0;
        for (Move m : tbkit::chess::legal_moves(*pos)) {
          const bool zeroing = is_zeroing(*pos, m);
          pos->do_move(m);
          int d = 0;
          if (zeroing) {
            const int w = -resolve_wdl(set, *pos, false).wdl;
            d = sign(w) == sign(r.wdl) ? 1 : 0;
          } else {
            const int child = probe_dtz(set, *pos);
            d = sign(-child) == sign(r.wdl) ? std::abs(child) + 1 : 0;
            if (std::abs(child) > 100) d -= 100;  // cursed / blessed: compare the distances themselves
          }
          pos->undo_move(m);
          if (d == 0) continue;
          best = r.wdl > 0 ? std::min(best, d) : std::max(best, d);
        }
        ++related;
        if (best != entry->plies) ++off_by_one;
        if (std::abs(best - entry->plies) > 1 && ++unrelated <= 5)
          UNSCOPED_INFO(name << " " << tbkit::chess::to_fen(*pos) << ": dtz " << entry->plies << ", best move " << best);
      }
    }
    WARN(name << ".rtbz: " << stored << " stored DTZ checked against the WDL, " << related << " one ply on ("
              << off_by_one << " off by one)");
    CHECK(errors == 0);
    CHECK(out_of_range == 0);
    CHECK(unrelated == 0);
    if (name == "KNvK" || name == "KBvK") {
      CHECK(stored == 0);  // all draws
    } else {
      CHECK(stored > 100);
      CHECK(related > 10);
    }
  }
}
