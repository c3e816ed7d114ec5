#include "cli/syzygy_compare.h"

#include <algorithm>
#include <cassert>
#include <atomic>
#include <map>
#include <mutex>

#include "chess/fen.h"
#include "gen/parallel.h"

namespace tbkit::cli {

using namespace chess;

SyzygyComparison compare_with_syzygy(const gen::DtzTable& table, const probe::SyzygyTablebase& tb,
                                     tbb::task_arena& arena, bool rounding, std::uint64_t every,
                                     DtzScope scope) {
  assert(every >= 1);
  SyzygyComparison out;
  std::mutex mutex;
  std::map<std::uint64_t, std::string> examples;  // by (side, index): the lowest kept
  constexpr std::size_t kExamples = 5;
  const std::uint64_t n = table.scheme.size();
  for (int side = 0; side < 2; ++side) {
    gen::parallel_chunks(arena, n, 1 << 14, [&](std::uint64_t first, std::uint64_t last) {
      SyzygyComparison local;
      std::vector<std::pair<std::uint64_t, std::string>> found;
      model::SlotBoards boards(table.scheme, Color(side));
      for (std::uint64_t i = (first + every - 1) / every * every; i < last; i += every) {
        const model::Board* b = boards.at(i);
        const gen::Dtz ours = table.values[side][i];
        if (!b || ours == gen::kDtzIllegal) continue;
        auto pos = model::board_to_position(*b);
        if (!pos) continue;  // not a position a game can reach (unused by any reader)
        ++local.positions;
        auto note = [&](const std::string& what) {
          if (found.size() < kExamples) found.emplace_back(std::uint64_t(side) << 62 | i, to_fen(*pos) + ": " + what);
        };
        auto wdl = tb.probe_wdl(*pos);
        if (!wdl) {
          ++local.errors;
          note(wdl.error().message);
          continue;
        }
        if (int(*wdl) != gen::wdl50(ours)) {
          ++local.wdl_mismatches;
          note("WDL50 ours " + std::to_string(gen::wdl50(ours)) + ", file " + std::to_string(int(*wdl)));
          continue;
        }
        if (!tb.has_dtz(*pos)) continue;
        Result<std::optional<probe::Dtz50>> dtz = std::optional<probe::Dtz50>{};
        if (scope == DtzScope::kStored) {
          dtz = tb.probe_dtz_stored(*pos);
        } else if (auto every_side = tb.probe_dtz(*pos)) {
          dtz = std::optional(*every_side);
        } else {
          dtz = every_side.error();
        }
        if (!dtz) {
          ++local.errors;
          note(dtz.error().message);
          continue;
        }
        if (!*dtz) {
          ++local.dtz_unstored;
          continue;
        }
        const probe::Dtz50 theirs = **dtz;
        ++local.dtz_compared;
        if (theirs.dtz == ours) {
          ++local.dtz_exact;
        } else if (rounding && ours != 0 && (theirs.dtz > 0) == (ours > 0) && std::abs(theirs.dtz - ours) == 1) {
          ++local.dtz_rounded;
        } else {
          ++local.dtz_mismatches;
          note("DTZ50 ours " + std::to_string(ours) + ", file " + std::to_string(theirs.dtz));
        }
      }
      std::lock_guard lock(mutex);
      out.positions += local.positions;
      out.wdl_mismatches += local.wdl_mismatches;
      out.dtz_compared += local.dtz_compared;
      out.dtz_unstored += local.dtz_unstored;
      out.dtz_exact += local.dtz_exact;
      out.dtz_rounded += local.dtz_rounded;
      out.dtz_mismatches += local.dtz_mismatches;
      out.errors += local.errors;
      for (auto& [key, text] : found) examples.emplace(key, std::move(text));
    });
  }
  for (const auto& [key, text] : examples) {
    if (out.examples.size() == kExamples) break;
    out.examples.push_back(text);
  }
  return out;
}

}  // namespace tbkit::cli
