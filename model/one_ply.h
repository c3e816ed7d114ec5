// One-ply rules that readers and writers of tables share: a value derived from the values of the
// moves one ply on. The probe library, the one-side expansion (gen/one_side.h) and verify use them.
#pragma once

#include <optional>

#include "model/board.h"
#include "model/value_ops.h"

namespace tbkit::model {

// The value of `child` (just reached by a double push that leaves an en-passant right on
// `ep_square`) given its value `without_ep` as if it had no right: the en-passant captures are
// extra moves, and a child stalemated but for the capture must take it. `probe(grandchild)` gives
// a capture's value. The one rule shared by the probe library, expand_table and verify.
template <class Probe>
[[nodiscard]] DtmValue with_en_passant(const Board& child, chess::Square ep_square, DtmValue without_ep, Probe&& probe) {
  std::optional<DtmValue> best;
  for_each_en_passant(child, ep_square, [&](const Board& gc) {
    const DtmValue v = back_up(probe(gc));
    best = best ? better_of(*best, v) : v;
  });
  if (!best) return without_ep;
  if (without_ep.is_draw() && !in_check(child) && !has_legal_move(child)) return *best;
  return better_of(without_ep, *best);
}

}  // namespace tbkit::model
