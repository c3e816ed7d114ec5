#include "gen/consistency.h"

#include <atomic>
#include <optional>

#include "gen/model.h"
#include "gen/one_side.h"
#include "gen/parallel.h"
#include "model/index_scheme.h"
#include "model/value_ops.h"

namespace tbkit::gen {

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
  constexpr std::uint64_t kChunk = 1 << 14;
  const std::uint64_t per_side = (table.scheme.size() + kChunk - 1) / kChunk;
  std::vector<ConsistencyReport> parts(2 * per_side);
  std::atomic<std::uint64_t> done{0};
  parallel_side_chunks(arena, table.scheme.size(), kChunk, [&](int s, std::uint64_t first, std::uint64_t last,
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
  ConsistencyReport report;
  for (const auto& part : parts) {
    report.checked += part.checked;
    if (part.failed && !report.failed) report.first_failure = part.first_failure;
    report.failed += part.failed;
  }
  return report;
}

}  // namespace tbkit::gen
