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

}  // namespace tbkit::gen
