#include "tests/support/gaviota_oracle.h"

#include <gtb-probe.h>

#include <atomic>
#include <cassert>
#include <mutex>
#include <string>
#include <system_error>

namespace tbkit::testing {
namespace {

// libgaviotatb is a process-wide singleton; this flag lets only one oracle own it.
std::atomic<bool> g_library_in_use{false};

unsigned piece_code(chess::PieceType t) {
  switch (t) {
    case chess::PieceType::kPawn: return tb_PAWN;
    case chess::PieceType::kKnight: return tb_KNIGHT;
    case chess::PieceType::kBishop: return tb_BISHOP;
    case chess::PieceType::kRook: return tb_ROOK;
    case chess::PieceType::kQueen: return tb_QUEEN;
    case chess::PieceType::kKing: return tb_KING;
    case chess::PieceType::kNone: break;
  }
  return tb_NOPIECE;
}

}  // namespace

struct GaviotaOracle::Paths {
  std::vector<std::string> dirs;
  std::vector<const char*> c_array;  // NULL-terminated, points into dirs
  std::mutex probe_lock;              // one probe() at a time: libgaviotatb races otherwise (header)
};

formats::DtmValue OracleValue::dtm() const {
  switch (wdl) {
    case OracleWdl::kWin: return formats::DtmValue::win_in_plies(plies);
    case OracleWdl::kLoss: return formats::DtmValue::loss_in_plies(plies);
    case OracleWdl::kDraw: break;
  }
  return formats::DtmValue::draw();
}

Result<GaviotaOracle> GaviotaOracle::open(const std::vector<std::filesystem::path>& dirs, std::size_t cache_bytes) {
  int scheme = -1;
  auto paths = std::make_unique<Paths>();
  for (const auto& dir : dirs) {
    std::error_code ec;
    std::filesystem::directory_iterator it(dir, ec);
    if (ec) return make_error(ErrorCode::kIo, dir.string() + ": cannot read directory: " + ec.message());
    for (const auto& entry : it) {
      const std::string ext = entry.path().extension().string();  // ".cp1" .. ".cp4"
      if (ext.size() != 4 || ext.compare(0, 3, ".cp") != 0 || ext[3] < '1' || ext[3] > '4') continue;
      const int s = ext[3] - '0';
      if (scheme != -1 && s != scheme)
        return make_error(ErrorCode::kUnavailable, dir.string() + ": Gaviota files of mixed compression schemes");
      scheme = s;
    }
    paths->dirs.push_back(dir.string());
  }
  if (scheme == -1) return make_error(ErrorCode::kUnavailable, "no Gaviota tablebase files (*.gtb.cp1..4) found");
  for (const auto& d : paths->dirs) paths->c_array.push_back(d.c_str());
  paths->c_array.push_back(nullptr);

  if (g_library_in_use.exchange(true))
    return make_error(ErrorCode::kUnavailable, "another GaviotaOracle is open (libgaviotatb has global state)");
  static_assert(tb_CP1 == 1 && tb_CP4 == 4);
  tb_init(0, scheme, paths->c_array.data());
  tbcache_init(cache_bytes, 0);
  if (!tb_is_initialized() || tb_availability() == 0) {
    tbcache_done();
    tb_done();
    g_library_in_use = false;
    return make_error(ErrorCode::kUnavailable, "libgaviotatb found no usable tables in " + paths->dirs.front());
  }
  return GaviotaOracle(std::move(paths));
}

GaviotaOracle::GaviotaOracle(std::unique_ptr<Paths> paths) : paths_(std::move(paths)) {}
GaviotaOracle::GaviotaOracle(GaviotaOracle&& other) noexcept = default;
GaviotaOracle& GaviotaOracle::operator=(GaviotaOracle&& other) noexcept {
  if (this != &other) {
    close();
    paths_ = std::move(other.paths_);
  }
  return *this;
}

GaviotaOracle::~GaviotaOracle() { close(); }

void GaviotaOracle::close() {
  if (!paths_) return;
  tbcache_done();
  tb_done();
  paths_.reset();
  g_library_in_use = false;
}

Result<OracleValue> GaviotaOracle::probe(const chess::Position& pos) const {
  assert(paths_ != nullptr);
  const std::lock_guard lock(paths_->probe_lock);
  return probe_unsynchronized(pos);
}

Result<OracleValue> GaviotaOracle::probe_unsynchronized(const chess::Position& pos) const {
  if (pos.castling_rights() != 0) return make_error(ErrorCode::kIllegal, "Gaviota tables hold no castling rights");
  if (chess::popcount(pos.pieces()) > 5) return make_error(ErrorCode::kUnavailable, "more than 5 men");
  // Piece lists end with tb_NOSQUARE / tb_NOPIECE; the king goes first.
  unsigned squares[2][17];
  unsigned char pieces[2][17];
  for (int c = 0; c < 2; ++c) {
    const auto color = chess::Color(c);
    int n = 0;
    squares[c][n] = unsigned(pos.king_square(color).index());
    pieces[c][n++] = tb_KING;
    for (chess::Bitboard b = pos.pieces(color) & ~pos.pieces(chess::PieceType::kKing); b;) {
      const chess::Square s = chess::pop_lsb(b);
      squares[c][n] = unsigned(s.index());
      pieces[c][n++] = static_cast<unsigned char>(piece_code(pos.piece_on(s).type()));
    }
    squares[c][n] = tb_NOSQUARE;
    pieces[c][n] = tb_NOPIECE;
  }
  const unsigned stm = pos.side_to_move() == chess::Color::kWhite ? tb_WHITE_TO_MOVE : tb_BLACK_TO_MOVE;
  const unsigned ep = pos.en_passant().is_none() ? unsigned(tb_NOSQUARE) : unsigned(pos.en_passant().index());
  unsigned info = tb_UNKNOWN;
  unsigned plies = 0;
  if (!tb_probe_hard(stm, ep, tb_NOCASTLE, squares[0], squares[1], pieces[0], pieces[1], &info, &plies))
    return make_error(ErrorCode::kUnavailable, "Gaviota has no table for this position");
  if (info == tb_DRAW) return OracleValue{OracleWdl::kDraw, 0};
  if (info == tb_WMATE || info == tb_BMATE) {
    const bool mover_wins = (info == tb_WMATE) == (stm == tb_WHITE_TO_MOVE);
    return OracleValue{mover_wins ? OracleWdl::kWin : OracleWdl::kLoss, int(plies)};
  }
  if (info == tb_FORBID) return make_error(ErrorCode::kIllegal, "Gaviota calls the position forbidden");
  return make_error(ErrorCode::kUnavailable, "Gaviota returned an unknown result " + std::to_string(info));
}

}  // namespace tbkit::testing
