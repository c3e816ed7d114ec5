// SyzygyTablebase: WDL50 and DTZ50 answers from Syzygy files (DIR/MATERIAL.rtbw and .rtbz), the
// official ones and those `tbkit gen --syzygy` writes alike. Files are found when the tablebase is
// opened, then each is mapped and validated once, on the first probe that needs it. Probes decode
// straight from the mapping: no cache and no lock once a file is open (docs/probe.md, "Syzygy").
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "chess/position.h"
#include "chess/result.h"
#include "chess/types.h"

namespace tbkit::probe {

namespace detail {
struct ProbeBoard;
}  // namespace detail

// WDL50 for the side to move: a win, a win that the 50-move rule turns into a draw (cursed), a
// draw, a loss the rule saves (blessed), a loss.
enum class Wdl50 : int { kLoss = -2, kBlessedLoss = -1, kDraw = 0, kCursedWin = 1, kWin = 2 };

[[nodiscard]] const char* to_string(Wdl50 w);  // "win", "cursed win", "draw", "blessed loss", "loss"

// Syzygy's signed DTZ50 for the side to move: plies to the next zeroing move (capture or pawn move)
// or mate in optimal 50-move play, positive when winning, negative when losing, 0 for draws; cursed
// wins and blessed losses add 100 to the magnitude. Where a file stores moves instead of plies an
// even distance reads one ply shorter than the truth (Syzygy's rounding, docs/wdl50.md); a caller
// counting against the 50-move clock keeps one ply spare. The verdict is never affected.
struct Dtz50 {
  Wdl50 wdl = Wdl50::kDraw;
  int dtz = 0;
};

// One legal move with the values of the position after it, for the side playing the move.
struct Dtz50Move {
  chess::Move move;
  Wdl50 wdl = Wdl50::kDraw;
  // The mover's DTZ counted from the root: a zeroing move that wins is 1 (101 if cursed), a
  // checkmate 1; otherwise one more ply than the child's (sign kept).
  int dtz = 0;
  bool zeroing = false;  // a capture or a pawn move
};

// Movable, not copyable. All const methods are thread-safe.
class SyzygyTablebase {
 public:
  // Scans each directory (not recursively) for MATERIAL.rtbw and MATERIAL.rtbz; when two hold the
  // same file the first wins. Errors: kIo (a directory missing or unreadable). Finding none is not
  // an error (max_men() == 0).
  [[nodiscard]] static Result<SyzygyTablebase> open(const std::vector<std::filesystem::path>& dirs);

  SyzygyTablebase(SyzygyTablebase&&) noexcept;
  SyzygyTablebase& operator=(SyzygyTablebase&&) noexcept;
  SyzygyTablebase(const SyzygyTablebase&) = delete;
  SyzygyTablebase& operator=(const SyzygyTablebase&) = delete;
  ~SyzygyTablebase();

  // Most men (kings included) of any WDL file found; 0 if none.
  [[nodiscard]] int max_men() const;
  // Names of the materials with a WDL file ("KQvKR"), sorted.
  [[nodiscard]] std::vector<std::string> materials() const;
  // Whether a DTZ file was found for the material of `pos`.
  [[nodiscard]] bool has_dtz(const chess::Position& pos) const;

  // WDL50 for the side to move, the en-passant right included: captures are searched (the files
  // may hold any value no better than a capture gives). Bare kings are a draw without a file.
  // Errors: kInvalidArgument (castling rights), kUnavailable (no WDL file for this material or one
  // a capture reaches, naming it), kCorrupt / kIo (a damaged or unreadable file, named; the same
  // error on every later probe of it).
  [[nodiscard]] Result<Wdl50> probe_wdl(const chess::Position& pos) const;
  // The same for a board already checked by detail::ProbeBoard::from_bitboards (the C API's path:
  // no Position is built, and no castling rights exist).
  [[nodiscard]] Result<Wdl50> probe_wdl(const detail::ProbeBoard& board) const;

  // For checking files: probe_wdl's answer, and whether a reader that reads the stored value even
  // where every legal move captures would answer otherwise. Stockfish reads no value there; Fathom,
  // and the engines built on it, take the better of the stored value and the captures', so a file
  // every reader reads alike stores a value no better than the captures' there (Syzygy's own files
  // do). `stored_above_captures` is that value's excess, at the position itself (the positions its
  // captures reach are their own tables' to check). Errors as probe_wdl, and also where every move
  // captures and the position's own file is missing or damaged (probe_wdl reads none there).
  struct WdlCheck {
    Wdl50 wdl = Wdl50::kDraw;
    bool stored_above_captures = false;
  };
  [[nodiscard]] Result<WdlCheck> probe_wdl_check(const chess::Position& pos) const;

  // WDL50 and DTZ50 for the side to move. Needs the DTZ file of this material (not of the tables
  // captures reach: their WDL suffices). When the file stores the other side to move, one ply is
  // searched. Errors as probe_wdl, and kUnavailable when the DTZ file is missing.
  [[nodiscard]] Result<Dtz50> probe_dtz(const chess::Position& pos) const;
  // probe_dtz without that one-ply search: nullopt when the DTZ file holds the other side to move.
  // What a file itself says, for comparing files (a draw, or a zeroing move best, needs no DTZ
  // value and is answered). Errors as probe_dtz.
  [[nodiscard]] Result<std::optional<Dtz50>> probe_dtz_stored(const chess::Position& pos) const;

  // Every legal move with its WDL50 and DTZ50, best first for the side to move: 50-move wins by
  // smallest DTZ, cursed wins, draws, blessed losses, losses by largest DTZ; ties keep move
  // generation order. Empty for checkmate and stalemate. Errors as probe_dtz, for any successor.
  [[nodiscard]] Result<std::vector<Dtz50Move>> rank_moves(const chess::Position& pos) const;

  struct Impl;

 private:
  explicit SyzygyTablebase(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Ordering of WDL50 and DTZ50 pairs for the side to move: higher is better.
[[nodiscard]] int preference(const Dtz50& v);

}  // namespace tbkit::probe
