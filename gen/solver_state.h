// The retrograde solver's per-position state: 16 bits per index slot and side to move.
#pragma once

#include <cstdint>

namespace tbkit::gen::solver_state {

// Per-position solver state, 16 bits, the solver's only memory per slot and side (docs/tables.md,
// "Algorithm"):
//   0x8000 | c        unresolved, may still lose: c (0..255) is how many of its moves within the table
//                     (weighted, see init_position) are not yet known to lose
//   0x8100 | c        the same, but a capture, promotion or en-passant stalemate loses, so the position
//                     loses no faster than that conversion; its value is computed again, from the
//                     tables converted into, when c reaches 0 (Solver::count_down)
//   1..0x3FFF         resolved, ply = state - 1 (odd: win, even: loss); wins may still shorten
//                     until their ply is reached
//   0x4001..0x7FFF    the same, and the value is that of a capture or promotion (the writer of
//                     capture-resolved files may store anything no better there: gen/one_side.h)
//   kNoLoss           unresolved, cannot lose: stalemate, or a capture or promotion draws
//   kNoLossOther      unresolved, cannot lose: only a double push into an en-passant stalemate draws
//   kIllegal          unused slot
// The conversion mark costs nothing in the loops: a quiet move that improves a value stores the
// plain state, so a state still marked at the end is a value equal to the best conversion.
inline constexpr std::uint16_t kOpen = 0x8000;
inline constexpr std::uint16_t kFloorBit = 0x0100;
inline constexpr std::uint16_t kCountMask = 0x00FF;
inline constexpr std::uint16_t kConvBit = 0x4000;
// (Just above the unresolved states' codes, so that a 12-bit cell keeps their low 11 bits as they are:
// gen/state_store.h.)
inline constexpr std::uint16_t kNoLossOther = 0x87FD;
inline constexpr std::uint16_t kNoLoss = 0x87FE;
inline constexpr std::uint16_t kIllegal = 0x87FF;
inline constexpr int kMaxPly = kConvBit - 2;  // resolved(kMaxPly) | kConvBit < kOpen (asserted)

constexpr bool is_resolved(std::uint16_t s) { return s >= 1 && s < kOpen; }
constexpr bool can_lose(std::uint16_t s) { return (s & ~(kFloorBit | kCountMask)) == kOpen; }
constexpr std::uint16_t resolved(int ply) { return std::uint16_t(ply + 1); }
// The ply of a resolved state, marked or not.
constexpr int ply_of(std::uint16_t s) { return (s & ~kConvBit) - 1; }

}  // namespace tbkit::gen::solver_state
