#include "gen/one_side.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace tbkit::gen {

using namespace chess;
using formats::SlotFreedom;

namespace {

constexpr std::uint64_t kChunk = 1 << 14;  // index slots per parallel task

// Runs f(first, last) over [0, n) in fixed chunks, in parallel.
template <class F>
void for_chunks(tbb::task_arena& arena, std::uint64_t n, F&& f) {
  const std::uint64_t chunks = (n + kChunk - 1) / kChunk;
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, chunks, 1), [&](const tbb::blocked_range<std::uint64_t>& r) {
      for (std::uint64_t c = r.begin(); c != r.end(); ++c) f(c * kChunk, std::min(n, (c + 1) * kChunk));
    });
  });
}

SlotFreedom freedom_of(const TableSet& subtables, const Board& b, DtmValue exact) {
  const Conversions conv = conversions_of(subtables, b);
  // Mate and stalemate: the reader sees them on the board; storing a value no better than the
  // true one keeps "stored <= exact" on every legal slot, which lets readers bound a position's
  // value by its stored value alone (probe/tablebase.cpp prunes its one-ply search with it).
  if (!conv.any_move) return SlotFreedom::kNoBetter;
  return conv.best && *conv.best == exact ? SlotFreedom::kNoBetter : SlotFreedom::kExact;
}

void fill_freedom(const SolvedTable& table, Color side, const TableSet& subtables, std::uint64_t first,
                  std::uint64_t last, SlotFreedom* out) {
  Board b;
  for (std::uint64_t i = first; i < last; ++i) {
    const DtmValue v = table.values[index_of(side)][i];
    if (v.is_illegal() || !table.scheme.decode(i, side, b)) {
      out[i - first] = SlotFreedom::kAny;
      continue;
    }
    out[i - first] = freedom_of(subtables, b, v);
  }
}

}  // namespace

Conversions conversions_of(const TableSet& subtables, const Board& b) {
  Conversions out;
  for_each_legal_move(b, [&](const Board& child, const MoveInfo& mi) {
    out.any_move = true;
    if (mi.kind != MoveKind::kConversion) return;
    const DtmValue v = back_up(subtables.probe(child));
    out.best = out.best ? better_of(*out.best, v) : v;
  });
  return out;
}

std::vector<SlotFreedom> slot_freedom(const SolvedTable& table, Color side, const TableSet& subtables,
                                      tbb::task_arena& arena) {
  std::vector<SlotFreedom> out(table.scheme.size());
  for_chunks(arena, out.size(), [&](std::uint64_t first, std::uint64_t last) {
    fill_freedom(table, side, subtables, first, last, out.data() + first);
  });
  return out;
}

StoredSide choose_stored_side(const SolvedTable& table, const TableSet& subtables, tbb::task_arena& arena) {
  if (table.material().is_symmetric()) return {Color::kWhite, slot_freedom(table, Color::kWhite, subtables, arena)};
  std::vector<SlotFreedom> freedom[2];
  for (int side = 0; side < 2; ++side) freedom[side] = slot_freedom(table, Color(side), subtables, arena);
  // Judge each side by its capture-resolved symbols coded with zstd level 1 (1 MiB blocks): ~50x
  // faster than LZMA2, and it picks the side LZMA2 codes smaller (docs/formats/table.md).
  formats::TableWriteOptions probe_options;
  probe_options.codec = formats::BlockCodec::kZstd;
  probe_options.compression_level = 1;
  formats::TableInfo info;
  info.material = table.material().name();
  info.positions_per_side = table.scheme.size();
  std::uint64_t size[2] = {0, 0};
  arena.execute([&] {
    tbb::parallel_for(0, 2, [&](int side) {
      auto bytes = formats::encode_table(info, formats::OneSide{Color(side), table.values[side], freedom[side]}, probe_options);
      size[side] = bytes ? bytes->size() : ~std::uint64_t{0};
    });
  });
  const int pick = size[1] < size[0] ? 1 : 0;
  return {Color(pick), std::move(freedom[pick])};
}

void expand_table(SolvedTable& table, Color stored, bool capture_resolved, const TableSet& subtables,
                  tbb::task_arena& arena) {
  const IndexScheme& scheme = table.scheme;
  std::vector<DtmValue>& mine = table.values[index_of(stored)];
  std::vector<DtmValue>& other = table.values[index_of(~stored)];
  const std::uint64_t n = scheme.size();
  other.assign(n, DtmValue::illegal());
  // Pass 1: the stored side's exact values (mate and stalemate from the board; capture-resolved
  // values raised to their best conversion).
  for_chunks(arena, n, [&](std::uint64_t first, std::uint64_t last) {
    Board b;
    for (std::uint64_t i = first; i < last; ++i) {
      if (mine[i].is_illegal()) continue;
      [[maybe_unused]] const bool ok = scheme.decode(i, stored, b);
      assert(ok);
      const Conversions conv = conversions_of(subtables, b);
      if (!conv.any_move) mine[i] = in_check(b) ? DtmValue::loss_in_plies(0) : DtmValue::draw();
      else if (capture_resolved && conv.best) mine[i] = better_of(mine[i], *conv.best);
    }
  });
  // Pass 2: the other side, from the stored side's exact values.
  const bool symmetric = table.material().is_symmetric();
  auto probe = [&](const Board& b) { return subtables.probe(b); };  // en-passant captures leave the table
  for_chunks(arena, n, [&](std::uint64_t first, std::uint64_t last) {
    Board b;
    for (std::uint64_t i = first; i < last; ++i) {
      if (!scheme.decode(i, ~stored, b) || !is_legal(b)) continue;
      if (symmetric) {
        other[i] = mine[scheme.encode(color_flipped(b))];
        continue;
      }
      std::optional<DtmValue> best;
      for_each_legal_move(b, [&](const Board& child, const MoveInfo& mi) {
        DtmValue reply = mi.kind == MoveKind::kConversion ? subtables.probe(child) : table.value(child);
        if (mi.kind == MoveKind::kDoublePush) reply = with_en_passant(child, mi.ep_square, reply, probe);
        const DtmValue v = back_up(reply);
        best = best ? better_of(*best, v) : v;
      });
      other[i] = best ? *best : in_check(b) ? DtmValue::loss_in_plies(0) : DtmValue::draw();
    }
  });
}

}  // namespace tbkit::gen
