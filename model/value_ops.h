// Arithmetic on DTM values: backing a child's value up one ply, and ordering values.
#pragma once

#include "formats/dtm_value.h"

namespace tbkit::model {

using formats::DtmValue;

// The value for the side that moved into a position with value `child` (for its side to move).
[[nodiscard]] constexpr DtmValue back_up(DtmValue child) {
  if (child.is_win()) return DtmValue::loss_in_plies(child.plies() + 1);
  if (child.is_loss()) return DtmValue::win_in_plies(child.plies() + 1);
  return DtmValue::draw();
}

// Higher is better for the side to move: fast wins, then slow wins, draws, slow losses, fast losses.
[[nodiscard]] constexpr int preference(DtmValue v) { return formats::preference_of(v); }

[[nodiscard]] constexpr DtmValue better_of(DtmValue a, DtmValue b) { return preference(a) >= preference(b) ? a : b; }

}  // namespace tbkit::model
