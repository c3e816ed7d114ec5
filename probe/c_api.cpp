// The C interface (probe/tbkit_probe.h) over Tablebase.
#include <cstring>
#include <new>
#include <optional>
#include <string>

#include "probe/syzygy_board.h"
#include "probe/syzygy_tablebase.h"
#include "probe/tablebase.h"
#include "probe/tbkit_probe.h"

struct tbkit_tablebase {
  tbkit::probe::Tablebase tb;
  tbkit::probe::SyzygyTablebase syzygy;
};

namespace {

using tbkit::ErrorCode;
using namespace tbkit::chess;

int code_of(const tbkit::Error& e) {
  switch (e.code) {
    case ErrorCode::kUnavailable: return TBKIT_ERR_UNAVAILABLE;
    case ErrorCode::kIo: return TBKIT_ERR_IO;
    case ErrorCode::kCorrupt:
    case ErrorCode::kVersion: return TBKIT_ERR_CORRUPT;
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kIllegal: return TBKIT_ERR_INVALID;
  }
  return TBKIT_ERR_INVALID;
}

int wdl_of(tbkit::formats::DtmValue v) { return v.is_win() ? TBKIT_WIN : v.is_loss() ? TBKIT_LOSS : TBKIT_DRAW; }

// The validated position, or nullopt (TBKIT_ERR_INVALID). Built once: a default Position would be
// the start position, validated and given room for its states, only to be overwritten.
std::optional<Position> to_position(const tbkit_board& b) {
  if ((b.white & b.black) != 0 || (b.side_to_move != 0 && b.side_to_move != 1) || b.ep_square < -1 || b.ep_square > 63)
    return std::nullopt;
  const Bitboard types[6] = {b.pawns, b.knights, b.bishops, b.rooks, b.queens, b.kings};
  Bitboard seen = 0;
  for (Bitboard t : types) {
    if ((seen & t) != 0) return std::nullopt;
    seen |= t;
  }
  if (seen != (b.white | b.black)) return std::nullopt;
  PositionSetup s;
  s.board.fill(Piece::none());
  for (int t = 0; t < 6; ++t)
    for (Bitboard bb = types[t]; bb;) {
      const Square sq = pop_lsb(bb);
      s.board[sq.index()] = Piece((b.white & sq.bb()) ? Color::kWhite : Color::kBlack, PieceType(t));
    }
  s.side = Color(b.side_to_move);
  s.en_passant = b.ep_square < 0 ? Square::none() : Square(b.ep_square);
  auto pos = Position::from_setup(s);
  if (!pos) return std::nullopt;
  return std::optional<Position>(std::move(*pos));
}

}  // namespace

extern "C" {

int tbkit_open(const char* paths, size_t cache_bytes, tbkit_tablebase** out, char* error, size_t error_size) {
  auto fail = [&](int code, const std::string& message) {
    if (error != nullptr && error_size > 0) {
      const std::size_t n = std::min(message.size(), error_size - 1);
      std::memcpy(error, message.data(), n);
      error[n] = '\0';
    }
    return code;
  };
  if (out == nullptr) return fail(TBKIT_ERR_INVALID, "tbkit_open: out is NULL");
  *out = nullptr;
  if (paths == nullptr) return fail(TBKIT_ERR_INVALID, "tbkit_open: paths is NULL");
  try {
    std::vector<std::filesystem::path> dirs;
    std::string current;
    for (const char* p = paths;; ++p) {
      if (*p == ':' || *p == ';' || *p == '\0') {
        if (!current.empty()) dirs.emplace_back(current);
        current.clear();
        if (*p == '\0') break;
      } else {
        current += *p;
      }
    }
    tbkit::probe::TablebaseOptions options;
    if (cache_bytes != TBKIT_CACHE_AUTO) options.cache_bytes = cache_bytes;
    auto tb = tbkit::probe::Tablebase::open(dirs, options);
    if (!tb) return fail(code_of(tb.error()), tb.error().message);
    auto syzygy = tbkit::probe::SyzygyTablebase::open(dirs);
    if (!syzygy) return fail(code_of(syzygy.error()), syzygy.error().message);
    *out = new tbkit_tablebase{std::move(*tb), std::move(*syzygy)};
    return TBKIT_OK;
  } catch (const std::bad_alloc&) {
    return fail(TBKIT_ERR_NOMEM, "tbkit_open: out of memory");
  }
}

void tbkit_close(tbkit_tablebase* tb) { delete tb; }

int tbkit_max_men(const tbkit_tablebase* tb) { return tb == nullptr ? 0 : tb->tb.max_men(); }

int tbkit_max_men_syzygy(const tbkit_tablebase* tb) { return tb == nullptr ? 0 : tb->syzygy.max_men(); }

int tbkit_probe_dtm(const tbkit_tablebase* tb, const tbkit_board* board, int* wdl, int* plies) {
  if (tb == nullptr || board == nullptr || wdl == nullptr || plies == nullptr) return TBKIT_ERR_INVALID;
  try {
    const auto pos = to_position(*board);
    if (!pos) return TBKIT_ERR_INVALID;
    auto v = tb->tb.probe(*pos);
    if (!v) return code_of(v.error());
    *wdl = wdl_of(*v);
    *plies = v->plies();
    return TBKIT_OK;
  } catch (const std::bad_alloc&) {
    return TBKIT_ERR_NOMEM;
  }
}

int tbkit_probe_wdl(const tbkit_tablebase* tb, const tbkit_board* board, int* wdl) {
  int plies = 0;
  return wdl == nullptr ? TBKIT_ERR_INVALID : tbkit_probe_dtm(tb, board, wdl, &plies);
}

int tbkit_probe_wdl50(const tbkit_tablebase* tb, const tbkit_board* board, int* wdl50) {
  if (tb == nullptr || board == nullptr || wdl50 == nullptr) return TBKIT_ERR_INVALID;
  // Straight to the probe's own board: a Position costs more to build than the probe itself.
  const tbkit_board& b = *board;
  if ((b.side_to_move != 0 && b.side_to_move != 1) || b.ep_square < -1 || b.ep_square > 63) return TBKIT_ERR_INVALID;
  const auto probe_board = tbkit::probe::detail::ProbeBoard::from_bitboards(
      b.white, b.black, {b.pawns, b.knights, b.bishops, b.rooks, b.queens, b.kings}, Color(b.side_to_move),
      b.ep_square < 0 ? Square::none() : Square(b.ep_square));
  if (!probe_board) return TBKIT_ERR_INVALID;
  try {
    auto v = tb->syzygy.probe_wdl(*probe_board);  // only an error's message allocates
    if (!v) return code_of(v.error());
    *wdl50 = int(*v);
    return TBKIT_OK;
  } catch (const std::bad_alloc&) {
    return TBKIT_ERR_NOMEM;
  }
}

int tbkit_probe_dtz50(const tbkit_tablebase* tb, const tbkit_board* board, int* wdl50, int* dtz50) {
  if (tb == nullptr || board == nullptr || wdl50 == nullptr || dtz50 == nullptr) return TBKIT_ERR_INVALID;
  try {
    const auto pos = to_position(*board);
    if (!pos) return TBKIT_ERR_INVALID;
    auto v = tb->syzygy.probe_dtz(*pos);
    if (!v) return code_of(v.error());
    *wdl50 = int(v->wdl);
    *dtz50 = v->dtz;
    return TBKIT_OK;
  } catch (const std::bad_alloc&) {
    return TBKIT_ERR_NOMEM;
  }
}

int tbkit_rank_moves(const tbkit_tablebase* tb, const tbkit_board* board, tbkit_ranked_move* moves, size_t capacity,
                     size_t* count) {
  if (tb == nullptr || board == nullptr || count == nullptr || (moves == nullptr && capacity > 0)) return TBKIT_ERR_INVALID;
  try {
    const auto pos = to_position(*board);
    if (!pos) return TBKIT_ERR_INVALID;
    auto ranked = tb->tb.rank_moves(*pos);
    if (!ranked) return code_of(ranked.error());
    *count = ranked->size();
    for (std::size_t i = 0; i < ranked->size() && i < capacity; ++i) {
      const auto& r = (*ranked)[i];
      moves[i].from = r.move.from().index();
      moves[i].to = r.move.to().index();
      moves[i].promotion = r.move.is_promotion() ? "nbrq"[int(r.move.promotion()) - 1] : 0;
      moves[i].wdl = wdl_of(r.value);
      moves[i].plies = r.value.plies();
    }
    return TBKIT_OK;
  } catch (const std::bad_alloc&) {
    return TBKIT_ERR_NOMEM;
  }
}

const char* tbkit_strerror(int code) {
  switch (code) {
    case TBKIT_OK: return "ok";
    case TBKIT_ERR_UNAVAILABLE: return "no table for this material";
    case TBKIT_ERR_INVALID: return "invalid argument or impossible position";
    case TBKIT_ERR_IO: return "a table file or directory cannot be read";
    case TBKIT_ERR_CORRUPT: return "a table file is damaged or of an unsupported version";
    case TBKIT_ERR_NOMEM: return "out of memory";
    default: return "unknown error code";
  }
}

}  // extern "C"
