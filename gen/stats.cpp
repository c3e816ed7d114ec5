#include "gen/stats.h"

namespace tbkit::gen {

TableStats compute_stats(const SolvedTable& table) {
  TableStats stats;
  const IndexScheme& scheme = table.scheme;
  stats.slots = 2 * scheme.size();
  for (int s = 0; s < 2; ++s) {
    SideStats& out = stats.side[s];
    std::uint64_t longest_index = 0;
    Board b;
    for (std::uint64_t i = 0; i < scheme.size(); ++i) {
      const DtmValue v = table.values[s][i];
      if (v.is_illegal()) continue;
      [[maybe_unused]] const bool ok = scheme.decode(i, chess::Color(s), b);
      assert(ok);
      const auto n = std::uint64_t(scheme.orbit_size(b));
      ++stats.stored;
      out.legal += n;
      if (v.is_win()) {
        out.win += n;
        if (v.plies() > out.longest_win_plies) {
          out.longest_win_plies = v.plies();
          longest_index = i;
        }
      } else if (v.is_loss()) {
        out.loss += n;
        out.longest_loss_plies = std::max(out.longest_loss_plies, v.plies());
      } else {
        out.draw += n;
      }
    }
    if (out.longest_win_plies > 0) {
      [[maybe_unused]] const bool ok = scheme.decode(longest_index, chess::Color(s), b);
      out.longest_win_fen = board_to_fen(b);
    }
  }
  return stats;
}

std::array<SideStats50, 2> compute_stats50(const DtzTable& table) {
  std::array<SideStats50, 2> stats;
  const IndexScheme& scheme = table.scheme;
  for (int s = 0; s < 2; ++s) {
    SideStats50& out = stats[s];
    std::uint64_t longest_index = 0;
    Board b;
    for (std::uint64_t i = 0; i < scheme.size(); ++i) {
      const Dtz d = table.values[s][i];
      if (d == kDtzIllegal) continue;
      [[maybe_unused]] const bool ok = scheme.decode(i, chess::Color(s), b);
      assert(ok);
      const auto n = std::uint64_t(scheme.orbit_size(b));
      switch (wdl50(d)) {
        case 2: out.win += n; break;
        case 1: out.cursed_win += n; break;
        case 0: out.draw += n; break;
        case -1: out.blessed_loss += n; break;
        default: out.loss += n; break;
      }
      if (d > out.longest_dtz) {
        out.longest_dtz = d;
        longest_index = i;
      }
    }
    if (out.longest_dtz > 0) {
      [[maybe_unused]] const bool ok = scheme.decode(longest_index, chess::Color(s), b);
      out.longest_dtz_fen = board_to_fen(b);
    }
  }
  return stats;
}

}  // namespace tbkit::gen
