#include "gen/consistency.h"

#include <atomic>
#include <optional>

#include "gen/model.h"
#include "gen/one_ply50.h"
#include "gen/one_side.h"
#include "gen/parallel.h"
#include "model/index_scheme.h"
#include "model/value_ops.h"

namespace tbkit::gen {

namespace {

// The chunks' reports as one, in chunk order: the first failure is the lowest chunk's.
ConsistencyReport merged(const std::vector<ConsistencyReport>& parts) {
  ConsistencyReport report;
  for (const auto& part : parts) {
    report.checked += part.checked;
    if (part.failed && !report.failed) report.first_failure = part.first_failure;
    report.failed += part.failed;
  }
  return report;
}

}  // namespace

DtmValue value_from_successors(const TableSet& tables, const Board& b, const SolvedTable* own) {
  std::optional<DtmValue> best;
  for_each_legal_move(b, [&](const Board& child, const MoveInfo& mi) {
    DtmValue reply = own && mi.kind != MoveKind::kConversion ? own->value(child) : tables.probe(child);
    if (mi.kind == MoveKind::kDoublePush)
      reply = with_en_passant(child, mi.ep_square, reply, [&](const Board& gc) { return tables.probe(gc); });
    const DtmValue v = back_up(reply);
    best = best ? better_of(*best, v) : v;
  });
  if (best) return *best;
  return in_check(b) ? DtmValue::loss_in_plies(0) : DtmValue::draw();
}

std::string describe(DtmValue v) {
  if (v.is_illegal()) return "illegal";
  if (v.is_draw()) return "draw";
  return std::string(v.is_win() ? "win" : "loss") + " in " + std::to_string(v.plies()) + " plies";
}

ConsistencyReport check_consistency(const SolvedTable& table, const TableSet& tables, tbb::task_arena& arena,
                                    const SlotProgressFn& progress) {
  const std::uint64_t per_side = (table.scheme.size() + kSlotChunk - 1) / kSlotChunk;
  std::vector<ConsistencyReport> parts(2 * per_side);
  std::atomic<std::uint64_t> done{0};
  parallel_side_chunks(arena, table.scheme.size(), kSlotChunk, [&](int s, std::uint64_t first, std::uint64_t last,
                                                                std::uint64_t c) {
    ConsistencyReport& part = parts[c];
    // Consecutive slots mostly differ by one step of the last man: no full decode for those.
    SlotBoards boards(table.scheme, chess::Color(s));
    for (std::uint64_t i = first; i < last; ++i) {
      const DtmValue stored = table.values[s][i];
      const Board* b = boards.at(i);
      const bool slot_legal = b && is_legal(*b);
      if (stored.is_illegal() && !slot_legal) continue;
      ++part.checked;
      const DtmValue expected = slot_legal ? value_from_successors(tables, *b, &table) : DtmValue::illegal();
      if (expected == stored) continue;
      if (part.failed++ == 0)
        part.first_failure = (slot_legal ? board_to_fen(*b) : "index " + std::to_string(i)) + ": stored " +
                             describe(stored) + ", successors give " + describe(expected);
    }
    if (progress) progress(done.fetch_add(last - first, std::memory_order_relaxed) + (last - first), 2 * table.scheme.size());
  });
  return merged(parts);
}

int dtz_from_successors(const DtzTable& table, const DtzSet& subtables, const Board& b) {
  // d of the best win (smallest) and of the longest loss (largest); a draw or a win kills the loss.
  int best_win = 0, longest_loss = 0;
  bool every_move_loses = true;
  bool any_move = false;
  for_each_legal_move(b, [&](const Board& child, const MoveInfo& mi) {
    any_move = true;
    int d = 0;  // this move's distance, for the mover: > 0 wins, < 0 loses
    if (!in_check(child) || has_legal_move(child)) {
      if (is_zeroing(b, mi)) {
        const int w = -child_wdl50(table, subtables, child, mi);
        d = w == 2 ? 1 : w == 1 ? 101 : w == -1 ? -101 : w == -2 ? -1 : 0;
      } else {
        const int c = table.dtz(child);
        d = c == 0 ? 0 : c > 0 ? -(c + 1) : -c + 1;
      }
    } else {
      d = 1;  // checkmate
    }
    if (d > 0 && (best_win == 0 || d < best_win)) best_win = d;
    if (d >= 0) every_move_loses = false;
    else longest_loss = std::min(longest_loss, d);
  });
  if (!any_move) return in_check(b) ? -1 : 0;
  if (best_win > 0) return best_win;
  return every_move_loses ? longest_loss : 0;
}

ConsistencyReport check_dtz_consistency(const DtzTable& table, const SolvedTable& dtm, const DtzSet& subtables,
                                        tbb::task_arena& arena) {
  const std::uint64_t per_side = (table.scheme.size() + kSlotChunk - 1) / kSlotChunk;
  std::vector<ConsistencyReport> parts(2 * per_side);
  parallel_side_chunks(arena, table.scheme.size(), kSlotChunk, [&](int s, std::uint64_t first, std::uint64_t last,
                                                                std::uint64_t c) {
    ConsistencyReport& part = parts[c];
    SlotBoards boards(table.scheme, chess::Color(s));
    for (std::uint64_t i = first; i < last; ++i) {
      const Dtz stored = table.values[s][i];
      const Board* b = boards.at(i);
      if (stored == kDtzIllegal || !b || !is_legal(*b)) continue;
      ++part.checked;
      const DtmValue v = dtm.values[s][i];
      const int w = wdl50(stored);
      const bool verdict_ok = v.is_win() ? w > 0 : v.is_loss() ? w < 0 : w == 0;
      const int expected = dtz_from_successors(table, subtables, *b);
      if (verdict_ok && expected == stored) continue;
      if (part.failed++ == 0)
        part.first_failure = board_to_fen(*b) + ": stored DTZ50 " + std::to_string(stored) + ", successors give " +
                             std::to_string(expected) + ", DTM " + describe(v);
    }
  });
  return merged(parts);
}

}  // namespace tbkit::gen
