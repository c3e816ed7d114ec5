// The Syzygy probe's own move generation (probe/syzygy_board.h) against chess::generate_legal, and
// SyzygyTablebase's answers against a plain reference search over Position and full legal move
// generation, on the fixtures in data/tablebases/syzygy.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "chess/fen.h"
#include "chess/movegen.h"
#include "formats/syzygy_encoder.h"
#include "formats/syzygy_file.h"
#include "model/material.h"
#include "probe/syzygy_board.h"
#include "probe/syzygy_tablebase.h"
#include "tests/probe/random_position.h"

namespace {

using namespace tbkit;
using chess::Move;
using chess::PieceType;
using chess::Position;
using probe::detail::ProbeBoard;

std::vector<Move> filtered_legal(const Position& pos, bool pawn_moves) {
  std::vector<Move> out;
  for (const Move m : chess::legal_moves(pos))
    if (pos.is_capture(m) || (pawn_moves && pos.moved_piece(m).type() == PieceType::kPawn)) out.push_back(m);
  return out;
}

bool same_board(const ProbeBoard& a, const ProbeBoard& b) {
  return a.colour == b.colour && a.type == b.type && a.side == b.side && a.en_passant == b.en_passant && a.key == b.key;
}

const std::filesystem::path& fixtures() {
  static const std::filesystem::path kDir = std::filesystem::path(TBKIT_DATA_DIR) / "tablebases" / "syzygy";
  return kDir;
}

// Syzygy's probing rule written plainly: Position, full legal move generation, make/unmake.
class ReferenceProbe {
 public:
  Result<probe::Wdl50> wdl(Position& pos) {
    if (chess::popcount(pos.pieces()) == 2) return probe::Wdl50::kDraw;
    auto s = search(pos, false);
    if (!s) return s.error();
    return s->first;
  }

  Result<probe::Dtz50> dtz(Position& pos) {
    using probe::Wdl50;
    if (chess::popcount(pos.pieces()) == 2) return probe::Dtz50{};
    const auto moves = chess::legal_moves(pos);
    if (moves.empty()) return pos.in_check() ? probe::Dtz50{Wdl50::kLoss, -1} : probe::Dtz50{};
    auto s = search(pos, true);
    if (!s) return s.error();
    const int w = int(s->first);
    if (w == 0) return probe::Dtz50{};
    if (s->second) return probe::Dtz50{s->first, w == 2 ? 1 : w == 1 ? 101 : w == -1 ? -101 : -1};
    auto file = open(pos, ".rtbz");
    if (!file) return file.error();
    auto stored = (*file)->dtz(pos, w);
    if (!stored) return stored.error();
    if (stored->stored) return probe::Dtz50{s->first, formats::syzygy::signed_dtz(w, stored->plies)};
    std::optional<int> best;
    for (const Move m : moves) {
      const bool zeroing = pos.is_capture(m) || pos.moved_piece(m).type() == PieceType::kPawn;
      pos.do_move(m);
      const bool mate = pos.in_check() && !chess::has_legal_move(pos);
      int child = -1;
      if (!mate) {
        if (zeroing) {
          auto c = wdl(pos);
          if (!c) {
            pos.undo_move(m);
            return c.error();
          }
          const int cw = int(*c);
          child = cw == 2 ? 1 : cw == 1 ? 101 : cw == -1 ? -101 : cw == -2 ? -1 : 0;
        } else {
          auto c = dtz(pos);
          if (!c) {
            pos.undo_move(m);
            return c.error();
          }
          child = c->dtz;
        }
      }
      pos.undo_move(m);
      int v = -child;
      if (!mate && !zeroing && v != 0) v += v > 0 ? 1 : -1;
      if ((v > 0) == (w > 0) && v != 0 && (!best || v < *best)) best = v;
    }
    return probe::Dtz50{s->first, best ? *best : -1};
  }

 private:
  // The file of the position's material (either colour orientation) with the extension, named in
  // errors as SyzygyTablebase names them.
  Result<const formats::syzygy::SyzygyFile*> open(const Position& pos, const std::string& ext) {
    auto m = formats::syzygy::TableMaterial::from_position(pos);
    if (!m) return m.error();
    for (const auto& material : {*m, m->swapped()}) {
      if (!std::filesystem::exists(fixtures() / (material.name() + ".rtbw"))) continue;
      const std::string name = material.name() + ext;
      if (auto it = files_.find(name); it != files_.end()) return &it->second;
      if (!std::filesystem::exists(fixtures() / name))
        return make_error(ErrorCode::kUnavailable, "no Syzygy DTZ file for " + material.name());
      auto f = formats::syzygy::SyzygyFile::open(fixtures() / name);
      if (!f) return f.error();
      return &files_.emplace(name, std::move(*f)).first->second;
    }
    return make_error(ErrorCode::kUnavailable, "no Syzygy table for " + m->name());
  }

  // The better of the stored value and the captures' (and pawn moves' with `zeroing`); whether a
  // zeroing move achieves it.
  Result<std::pair<probe::Wdl50, bool>> search(Position& pos, bool zeroing) {
    const auto moves = chess::legal_moves(pos);
    int best = -3;
    std::size_t searched = 0;
    for (const Move m : moves) {
      if (!pos.is_capture(m) && !(zeroing && pos.moved_piece(m).type() == PieceType::kPawn)) continue;
      ++searched;
      pos.do_move(m);
      auto child = wdl(pos);
      pos.undo_move(m);
      if (!child) return child.error();
      best = std::max(best, -int(*child));
      if (best == 2) return std::pair{probe::Wdl50::kWin, true};
    }
    const bool all = searched > 0 && searched == moves.size();
    int value = best;
    if (!all) {
      auto file = open(pos, ".rtbw");
      if (!file) return file.error();
      auto stored = (*file)->wdl(pos);
      if (!stored) return stored.error();
      value = *stored;
    }
    if (best >= value) return std::pair{probe::Wdl50(best), best > 0 || all};
    return std::pair{probe::Wdl50(value), false};
  }

  std::map<std::string, formats::syzygy::SyzygyFile> files_;
};

std::vector<Position> random_positions(const std::vector<std::string>& names, int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Position> out;
  for (int i = 0; i < count; ++i) {
    auto m = model::Material::parse(names[rng() % names.size()]);
    REQUIRE(m);
    out.push_back(testing::random_position((rng() & 1) ? m->flipped() : *m, rng, (rng() & 1) != 0));
  }
  return out;
}

}  // namespace

TEST_CASE("the probe's zeroing moves are the legal captures and pawn moves, in generation order", "[probe][syzygy]") {
  const auto positions = random_positions({"KPvKP", "KQvKR", "KRPvKP", "KQPvKPP", "KBNvKN", "KPPvKPP", "KNPvKRP"}, 20000, 45);
  int en_passant = 0, in_check = 0, promotions = 0, no_other = 0;
  for (const Position& pos : positions) {
    const ProbeBoard b = ProbeBoard::of(pos);
    for (const bool pawn_moves : {false, true}) {
      probe::detail::ZeroingMoves got;
      probe::detail::generate_zeroing(b, pawn_moves, got);
      const auto want = filtered_legal(pos, pawn_moves);
      REQUIRE(std::vector<Move>(got.begin(), got.end()) == want);
      // "Another legal move" is one outside that list.
      const bool other = chess::legal_moves(pos).size() > want.size();
      REQUIRE(probe::detail::has_other_legal_move(b, pawn_moves) == other);
      no_other += !other;
      for (const Move m : want) {
        Position after = pos;
        after.do_move(m);
        REQUIRE(same_board(b.after(m), ProbeBoard::of(after)));
        en_passant += m.is_en_passant();
        promotions += m.is_promotion();
      }
    }
    in_check += pos.in_check();
  }
  // The cases that need care did occur.
  CHECK(en_passant > 50);
  CHECK(in_check > 500);
  CHECK(promotions > 500);
  CHECK(no_other > 10);
}

TEST_CASE("SyzygyTablebase answers as the plain reference search does", "[probe][syzygy]") {
  auto tb = probe::SyzygyTablebase::open({fixtures()});
  REQUIRE(tb);
  ReferenceProbe reference;
  // WDL over every fixture with a WDL file; DTZ over those with both files and KRvKP (no DTZ file).
  // KQvKB has no file, and promotions reach tables the fixtures lack: the same error is expected.
  const auto wdl_positions =
      random_positions({"KQvK", "KRvK", "KPvK", "KPPvK", "KPvKP", "KQvKR", "KBNvK", "KRvKP", "KQvKB"}, 20000, 7);
  int values = 0, errors = 0, decisive = 0;
  for (Position pos : wdl_positions) {
    auto got = tb->probe_wdl(pos);
    auto want = reference.wdl(pos);
    REQUIRE(bool(got) == bool(want));
    if (!want) {
      REQUIRE(got.error().message == want.error().message);
      ++errors;
      continue;
    }
    REQUIRE(*got == *want);
    ++values;
    decisive += *want != probe::Wdl50::kDraw;
  }
  CHECK(values > 10000);
  CHECK(decisive > 3000);
  CHECK(errors > 10);
  const auto dtz_positions = random_positions({"KQvK", "KRvK", "KPvK", "KPPvK", "KPvKP", "KRvKP"}, 5000, 8);
  values = errors = 0;
  for (Position pos : dtz_positions) {
    auto got = tb->probe_dtz(pos);
    auto want = reference.dtz(pos);
    REQUIRE(bool(got) == bool(want));
    if (!want) {
      REQUIRE(got.error().message == want.error().message);
      ++errors;
      continue;
    }
    REQUIRE(got->wdl == want->wdl);
    REQUIRE(got->dtz == want->dtz);
    values += want->dtz != 0;
  }
  CHECK(values > 2000);
  CHECK(errors > 10);
}

TEST_CASE("probe_dtz_stored answers where the file stores the side to move, as probe_dtz does", "[probe][syzygy]") {
  auto tb = probe::SyzygyTablebase::open({fixtures()});
  REQUIRE(tb);
  // Each fixture's DTZ file stores one side to move; the other side's answers are left out.
  const auto positions = random_positions({"KQvK", "KPvK", "KPvKP"}, 4000, 9);
  int answered = 0, left_out = 0, decisive = 0;
  for (const Position& pos : positions) {
    auto full = tb->probe_dtz(pos);
    auto stored = tb->probe_dtz_stored(pos);
    REQUIRE(bool(full) == bool(stored));
    if (!full) continue;
    if (!*stored) {
      ++left_out;
      // Only a decided position that no zeroing move wins at once needs the file's other side.
      CHECK(full->wdl != probe::Wdl50::kDraw);
      continue;
    }
    REQUIRE((*stored)->wdl == full->wdl);
    REQUIRE((*stored)->dtz == full->dtz);
    ++answered;
    decisive += full->dtz != 0;
  }
  CHECK(answered > 1000);
  CHECK(left_out > 500);
  CHECK(decisive > 500);
  // Black to move in KQvK: the file stores White's side, so the answer needs the one-ply search.
  auto black = chess::parse_fen("8/8/8/3k4/8/8/8/Q3K3 b - - 0 1");
  REQUIRE(black);
  auto left = tb->probe_dtz_stored(*black);
  REQUIRE(left);
  CHECK(!*left);
  auto white = chess::parse_fen("8/8/8/3k4/8/8/8/Q3K3 w - - 0 1");
  REQUIRE(white);
  auto kept = tb->probe_dtz_stored(*white);
  REQUIRE(kept);
  REQUIRE(*kept);
  CHECK((*kept)->wdl == probe::Wdl50::kWin);
}

TEST_CASE("ProbeBoard::from_bitboards accepts the boards Position::from_setup accepts, as the same board", "[probe][syzygy]") {
  // Random placements, legal or not: no king, two kings, pawns on the back ranks, too many men, the
  // side not to move in check, en-passant squares right, wrong and possible without a taker.
  std::mt19937_64 rng(2026);
  int accepted = 0, rejected = 0, ep_kept = 0, ep_dropped = 0, ep_rejected = 0;
  for (int round = 0; round < 200000; ++round) {
    chess::PositionSetup s;
    s.board.fill(chess::Piece::none());
    const int men = 2 + int(rng() % (round % 50 == 0 ? 32 : 6));
    for (int k = 0; k < men; ++k) {
      const auto c = chess::Color(rng() & 1);
      const auto t = k < 2 && rng() % 20 != 0 ? PieceType::kKing : PieceType(rng() % 6);
      s.board[std::size_t(rng() % 64)] = chess::Piece(k < 2 ? chess::Color(k) : c, t);
    }
    s.side = chess::Color(rng() & 1);
    if (rng() % 3 == 0) {
      // An en-passant square on the right rank, most often behind a pawn of the side not to move.
      const int file = int(rng() % 8);
      const bool white = s.side == chess::Color::kWhite;
      s.en_passant = chess::Square(file, rng() % 8 == 0 ? int(rng() % 8) : white ? 5 : 2);
      if (rng() % 4 != 0) {
        const auto at = [&](int delta) { return std::size_t(((s.en_passant.index() + delta) % 64 + 64) % 64); };
        s.board[at(white ? -8 : 8)] = chess::Piece(~s.side, PieceType::kPawn);
        if (rng() & 1 && file > 0) s.board[at(white ? -9 : 7)] = chess::Piece(s.side, PieceType::kPawn);
      }
    }
    std::array<chess::Bitboard, chess::kPieceTypeCount> types{};
    chess::Bitboard white = 0, black = 0;
    for (int sq = 0; sq < 64; ++sq) {
      const chess::Piece p = s.board[std::size_t(sq)];
      if (p.is_none()) continue;
      types[std::size_t(chess::index_of(p.type()))] |= chess::Square(sq).bb();
      (p.color() == chess::Color::kWhite ? white : black) |= chess::Square(sq).bb();
    }
    const auto pos = Position::from_setup(s);
    const auto board = ProbeBoard::from_bitboards(white, black, types, s.side, s.en_passant);
    INFO("round " << round << (pos ? ": " + chess::to_fen(*pos) : std::string(": rejected by from_setup")));
    REQUIRE(pos.ok() == board.has_value());
    if (!pos) {
      ++rejected;
      ep_rejected += !s.en_passant.is_none();
      continue;
    }
    ++accepted;
    REQUIRE(same_board(*board, ProbeBoard::of(*pos)));
    if (!s.en_passant.is_none()) ++(board->en_passant.is_none() ? ep_dropped : ep_kept);
  }
  CHECK(accepted > 20000);
  CHECK(rejected > 20000);
  CHECK(ep_kept > 100);
  CHECK(ep_dropped > 100);
  CHECK(ep_rejected > 1000);
}

TEST_CASE("probe_wdl_check finds a stored value above the captures where every move captures", "[probe][syzygy]") {
  namespace sz = formats::syzygy;
  // Black to move: a7 and b8 are the rook's, so Kxb7 (to a drawn KvK) is the only move.
  auto only_capture = chess::parse_fen("k7/1R6/8/8/8/8/8/7K b - - 0 1");
  auto free_king = chess::parse_fen("k7/8/8/8/8/8/1R6/7K b - - 0 1");
  REQUIRE(only_capture.ok());
  REQUIRE(free_king.ok());

  // The official file keeps the rule: its answer there is the capture's, and nothing is above it.
  auto official = probe::SyzygyTablebase::open({fixtures()});
  REQUIRE(official.ok());
  auto good = official->probe_wdl_check(*only_capture);
  REQUIRE(good.ok());
  CHECK(good->wdl == probe::Wdl50::kDraw);
  CHECK_FALSE(good->stored_above_captures);

  // A KRvK file that stores a win for every position of both sides: probe_wdl still answers the
  // capture's draw (it reads no table there), and the check names the stored win above it.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tbkit_wdl_check_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto material = sz::TableMaterial::from_name("KRvK");
  REQUIRE(material.ok());
  auto index = sz::default_table_index(*material, sz::TableKind::kWdl);
  REQUIRE(index.ok());
  auto bytes = sz::encode_wdl_file(*index, [](int, int, std::uint64_t, std::span<std::uint8_t> out) {
    std::fill(out.begin(), out.end(), sz::kWdlWin);
  });
  REQUIRE(bytes.ok());
  {
    std::ofstream out(dir / "KRvK.rtbw", std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes->data()), std::streamsize(bytes->size()));
  }
  auto bad = probe::SyzygyTablebase::open({dir});
  REQUIRE(bad.ok());
  auto flagged = bad->probe_wdl_check(*only_capture);
  REQUIRE(flagged.ok());
  CHECK(flagged->wdl == probe::Wdl50::kDraw);
  CHECK(flagged->stored_above_captures);
  auto plain = bad->probe_wdl(*only_capture);
  REQUIRE(plain.ok());
  CHECK(*plain == probe::Wdl50::kDraw);
  // Where the king has other moves the stored value is the answer, and nothing is flagged.
  auto other = bad->probe_wdl_check(*free_king);
  REQUIRE(other.ok());
  CHECK(other->wdl == probe::Wdl50::kWin);
  CHECK_FALSE(other->stored_above_captures);
  std::filesystem::remove_all(dir);
}
