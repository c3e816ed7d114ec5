// DtmValue: one position's distance-to-mate value as stored in table files, 16 bits.
#pragma once

#include <cassert>
#include <cstdint>

namespace tbkit::formats {

// Encoding (the table file stores these raw values, see docs/formats/table.md):
//   0x0000           draw
//   0x0001..0x7FFF   side to move wins, mates in n = raw moves (plies = 2n-1)
//   0x8000..0xFFFE   side to move loses, plies = 2*(raw-0x8000) (0x8000 = checkmated now)
//   0xFFFF           illegal position or unused index slot ("don't care")
// Readers may return any value for an illegal slot: a correct caller never asks for one.
class DtmValue {
 public:
  static constexpr int kMaxWinPlies = 2 * 0x7FFF - 1;
  static constexpr int kMaxLossPlies = 2 * (0xFFFE - 0x8000);

  constexpr DtmValue() = default;
  [[nodiscard]] static constexpr DtmValue from_raw(std::uint16_t raw) { return DtmValue(raw); }
  [[nodiscard]] static constexpr DtmValue draw() { return DtmValue(0x0000); }
  [[nodiscard]] static constexpr DtmValue illegal() { return DtmValue(0xFFFF); }
  // plies: odd, 1..kMaxWinPlies (the side to move mates in (plies+1)/2 moves).
  [[nodiscard]] static constexpr DtmValue win_in_plies(int plies) {
    assert(plies >= 1 && plies <= kMaxWinPlies && plies % 2 == 1);
    return DtmValue(std::uint16_t((plies + 1) / 2));
  }
  // plies: even, 0..kMaxLossPlies (0 = the side to move is checkmated).
  [[nodiscard]] static constexpr DtmValue loss_in_plies(int plies) {
    assert(plies >= 0 && plies <= kMaxLossPlies && plies % 2 == 0);
    return DtmValue(std::uint16_t(0x8000 + plies / 2));
  }

  [[nodiscard]] constexpr bool is_draw() const { return raw_ == 0x0000; }
  [[nodiscard]] constexpr bool is_win() const { return raw_ >= 0x0001 && raw_ <= 0x7FFF; }
  [[nodiscard]] constexpr bool is_loss() const { return raw_ >= 0x8000 && raw_ <= 0xFFFE; }
  [[nodiscard]] constexpr bool is_illegal() const { return raw_ == 0xFFFF; }
  // Plies to mate for wins and losses as above; 0 for draws and illegal values.
  [[nodiscard]] constexpr int plies() const {
    if (is_win()) return 2 * int(raw_) - 1;
    if (is_loss()) return 2 * (int(raw_) - 0x8000);
    return 0;
  }
  // Moves to mate (wins: n; losses: plies/2); 0 for draws and illegal values.
  [[nodiscard]] constexpr int moves() const {
    if (is_win()) return int(raw_);
    if (is_loss()) return int(raw_) - 0x8000;
    return 0;
  }
  [[nodiscard]] constexpr std::uint16_t raw() const { return raw_; }
  friend constexpr bool operator==(DtmValue, DtmValue) = default;

 private:
  constexpr explicit DtmValue(std::uint16_t raw) : raw_(raw) {}
  std::uint16_t raw_ = 0xFFFF;
};

// Ordering of values for the side to move, higher is better: fast wins, slow wins, draws, slow
// losses, fast losses (the illegal marker ranks as a draw: callers never compare it).
[[nodiscard]] constexpr int preference_of(DtmValue v) {
  if (v.is_win()) return 1000000 - v.plies();
  if (v.is_loss()) return -1000000 + v.plies();
  return 0;
}

}  // namespace tbkit::formats
