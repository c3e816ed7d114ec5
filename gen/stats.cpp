#include "gen/stats.h"

#include <cassert>
#include <vector>

#include "gen/parallel.h"

namespace tbkit::gen {

namespace {

// Slots a task counts: the counts are sums, and each longest value keeps the first slot in index
// order (parts are merged in chunk order), so the result does not depend on the thread count.
constexpr std::uint64_t kStatsChunk = std::uint64_t{1} << 16;

// Calls count(part, side, i, board) for every slot i of `side` whose value is `used(side, i)`,
// chunk by chunk in parallel, each chunk into its own Part; returns the parts, side 0's chunks
// first, each side's in index order.
template <class Part, class Used, class Count>
std::vector<Part> count_parts(const IndexScheme& scheme, tbb::task_arena& arena, Used&& used, Count&& count) {
  const std::uint64_t n = scheme.size();
  std::vector<Part> parts(2 * ((n + kStatsChunk - 1) / kStatsChunk));
  parallel_side_chunks(arena, n, kStatsChunk, [&](int side, std::uint64_t first, std::uint64_t last, std::uint64_t c) {
    SlotBoards boards(scheme, chess::Color(side));
    for (std::uint64_t i = first; i < last; ++i) {
      if (!used(side, i)) continue;
      const Board* b = boards.at(i);
      assert(b);
      count(parts[c], side, i, *b);
    }
  });
  return parts;
}

std::string fen_of(const IndexScheme& scheme, int side, std::uint64_t i) {
  Board b;
  [[maybe_unused]] const bool ok = scheme.decode(i, chess::Color(side), b);
  assert(ok);
  return board_to_fen(b);
}

}  // namespace

TableStats compute_stats(const SolvedTable& table, tbb::task_arena& arena) {
  struct Part {
    SideStats stats;
    std::uint64_t stored = 0;
    std::uint64_t longest_index = 0;
  };
  const IndexScheme& scheme = table.scheme;
  const auto parts = count_parts<Part>(
      scheme, arena, [&](int side, std::uint64_t i) { return !table.values[side][i].is_illegal(); },
      [&](Part& p, int side, std::uint64_t i, const Board& b) {
        const DtmValue v = table.values[side][i];
        const auto n = std::uint64_t(scheme.orbit_size(b));
        ++p.stored;
        p.stats.legal += n;
        if (v.is_win()) {
          p.stats.win += n;
          if (v.plies() > p.stats.longest_win_plies) {
            p.stats.longest_win_plies = v.plies();
            p.longest_index = i;
          }
        } else if (v.is_loss()) {
          p.stats.loss += n;
          p.stats.longest_loss_plies = std::max(p.stats.longest_loss_plies, v.plies());
        } else {
          p.stats.draw += n;
        }
      });
  TableStats stats;
  stats.slots = 2 * scheme.size();
  const std::size_t per_side = parts.size() / 2;
  for (int s = 0; s < 2; ++s) {
    SideStats& out = stats.side[s];
    std::uint64_t longest_index = 0;
    for (std::size_t c = std::size_t(s) * per_side; c < std::size_t(s + 1) * per_side; ++c) {
      const Part& p = parts[c];
      stats.stored += p.stored;
      out.legal += p.stats.legal;
      out.win += p.stats.win;
      out.draw += p.stats.draw;
      out.loss += p.stats.loss;
      out.longest_loss_plies = std::max(out.longest_loss_plies, p.stats.longest_loss_plies);
      if (p.stats.longest_win_plies > out.longest_win_plies) {
        out.longest_win_plies = p.stats.longest_win_plies;
        longest_index = p.longest_index;
      }
    }
    if (out.longest_win_plies > 0) out.longest_win_fen = fen_of(scheme, s, longest_index);
  }
  return stats;
}

TableStats compute_stats(const SolvedTable& table) {
  tbb::task_arena one(1);
  return compute_stats(table, one);
}

std::array<SideStats50, 2> compute_stats50(const DtzTable& table, tbb::task_arena& arena) {
  struct Part {
    SideStats50 stats;
    std::uint64_t longest_index = 0;
  };
  const IndexScheme& scheme = table.scheme;
  const auto parts = count_parts<Part>(
      scheme, arena, [&](int side, std::uint64_t i) { return table.values[side][i] != kDtzIllegal; },
      [&](Part& p, int side, std::uint64_t i, const Board& b) {
        const Dtz d = table.values[side][i];
        const auto n = std::uint64_t(scheme.orbit_size(b));
        switch (wdl50(d)) {
          case 2: p.stats.win += n; break;
          case 1: p.stats.cursed_win += n; break;
          case 0: p.stats.draw += n; break;
          case -1: p.stats.blessed_loss += n; break;
          default: p.stats.loss += n; break;
        }
        if (d > p.stats.longest_dtz) {
          p.stats.longest_dtz = d;
          p.longest_index = i;
        }
      });
  std::array<SideStats50, 2> stats;
  const std::size_t per_side = parts.size() / 2;
  for (int s = 0; s < 2; ++s) {
    SideStats50& out = stats[std::size_t(s)];
    std::uint64_t longest_index = 0;
    for (std::size_t c = std::size_t(s) * per_side; c < std::size_t(s + 1) * per_side; ++c) {
      const Part& p = parts[c];
      out.win += p.stats.win;
      out.cursed_win += p.stats.cursed_win;
      out.draw += p.stats.draw;
      out.blessed_loss += p.stats.blessed_loss;
      out.loss += p.stats.loss;
      if (p.stats.longest_dtz > out.longest_dtz) {
        out.longest_dtz = p.stats.longest_dtz;
        longest_index = p.longest_index;
      }
    }
    if (out.longest_dtz > 0) out.longest_dtz_fen = fen_of(scheme, s, longest_index);
  }
  return stats;
}

std::array<SideStats50, 2> compute_stats50(const DtzTable& table) {
  tbb::task_arena one(1);
  return compute_stats50(table, one);
}

}  // namespace tbkit::gen
