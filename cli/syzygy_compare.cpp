#include "cli/syzygy_compare.h"

#include <algorithm>
#include <cassert>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>

#include "chess/fen.h"
#include "gen/parallel.h"
#include "model/board.h"
#include "model/index_scheme.h"
#include "model/material.h"

namespace tbkit::cli {

using namespace chess;

namespace {

constexpr std::size_t kExamples = 5;

// The first few disagreements of a comparison, by (side, index): each chunk keeps its first
// kExamples, and the lowest kExamples of all are the result.
class Examples {
 public:
  void merge(std::vector<std::pair<std::uint64_t, std::string>>& found) {
    for (auto& [key, text] : found) by_slot_.emplace(key, std::move(text));
  }
  [[nodiscard]] std::vector<std::string> lowest() const {
    std::vector<std::string> out;
    for (const auto& [key, text] : by_slot_) {
      if (out.size() == kExamples) break;
      out.push_back(text);
    }
    return out;
  }

 private:
  std::map<std::uint64_t, std::string> by_slot_;
};

// For each slot i of `side` in [first, last) that is a multiple of `every`, holds a legal position
// a game can reach, and that `usable(i, board)` admits: probes its WDL50 (probe_wdl_check) and calls
// compare(pos, check, i, note), or on a probe error counts it in `errors` and notes it. `positions`
// counts the slots probed; note(what) keeps "FEN: what" in `found` (the chunk's first kExamples).
template <class Usable, class Compare>
void walk_positions(const model::IndexScheme& scheme, int side, std::uint64_t first, std::uint64_t last,
                    std::uint64_t every, const probe::SyzygyTablebase& tb, std::uint64_t& positions,
                    std::uint64_t& errors, std::vector<std::pair<std::uint64_t, std::string>>& found,
                    Usable&& usable, Compare&& compare) {
  model::SlotBoards boards(scheme, Color(side));
  for (std::uint64_t i = (first + every - 1) / every * every; i < last; i += every) {
    const model::Board* b = boards.at(i);
    if (!b || !usable(i, *b)) continue;
    auto pos = model::board_to_position(*b);
    if (!pos) continue;  // not a position a game can reach (unused by any reader)
    ++positions;
    auto note = [&](const std::string& what) {
      if (found.size() < kExamples) found.emplace_back(std::uint64_t(side) << 62 | i, to_fen(*pos) + ": " + what);
    };
    auto check = tb.probe_wdl_check(*pos);
    if (!check) {
      ++errors;
      note(check.error().message);
      continue;
    }
    compare(*pos, *check, i, note);
  }
}

}  // namespace

SyzygyComparison compare_with_syzygy(const gen::DtzTable& table, const probe::SyzygyTablebase& tb,
                                     tbb::task_arena& arena, bool rounding, std::uint64_t every,
                                     DtzScope scope) {
  assert(every >= 1);
  SyzygyComparison out;
  std::mutex mutex;
  Examples examples;
  const std::uint64_t n = table.scheme.size();
  for (int side = 0; side < 2; ++side) {
    gen::parallel_chunks(arena, n, 1 << 14, [&](std::uint64_t first, std::uint64_t last) {
      SyzygyComparison local;
      std::vector<std::pair<std::uint64_t, std::string>> found;
      auto usable = [&](std::uint64_t i, const model::Board&) { return table.values[side][i] != gen::kDtzIllegal; };
      auto compare = [&](const Position& pos, const probe::SyzygyTablebase::WdlCheck& check, std::uint64_t i,
                         const auto& note) {
        const gen::Dtz ours = table.values[side][i];
        const probe::Wdl50 wdl = check.wdl;
        if (int(wdl) != gen::wdl50(ours)) {
          ++local.wdl_mismatches;
          note("WDL50 ours " + std::to_string(gen::wdl50(ours)) + ", file " + std::to_string(int(wdl)));
          return;
        }
        if (check.stored_above_captures) {
          ++local.wdl_stored_above_captures;
          note("every legal move captures, and the file stores a WDL50 better than the captures' " +
               std::to_string(int(wdl)) + " (readers that read it there, such as Fathom, answer it)");
        }
        if (!tb.has_dtz(pos)) return;
        Result<std::optional<probe::Dtz50>> dtz = std::optional<probe::Dtz50>{};
        if (scope == DtzScope::kStored) {
          dtz = tb.probe_dtz_stored(pos);
        } else if (auto every_side = tb.probe_dtz(pos)) {
          dtz = std::optional(*every_side);
        } else {
          dtz = every_side.error();
        }
        if (!dtz) {
          ++local.errors;
          note(dtz.error().message);
          return;
        }
        if (!*dtz) {
          ++local.dtz_unstored;
          return;
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
      };
      walk_positions(table.scheme, side, first, last, every, tb, local.positions, local.errors, found, usable, compare);
      std::lock_guard lock(mutex);
      out.positions += local.positions;
      out.wdl_mismatches += local.wdl_mismatches;
      out.wdl_stored_above_captures += local.wdl_stored_above_captures;
      out.dtz_compared += local.dtz_compared;
      out.dtz_unstored += local.dtz_unstored;
      out.dtz_exact += local.dtz_exact;
      out.dtz_rounded += local.dtz_rounded;
      out.dtz_mismatches += local.dtz_mismatches;
      out.errors += local.errors;
      examples.merge(found);
    });
  }
  out.examples = examples.lowest();
  return out;
}

Result<DtmWdlComparison> compare_dtm_with_wdl(const formats::TableFile& file, const probe::SyzygyTablebase& tb,
                                              tbb::task_arena& arena, std::uint64_t every,
                                              const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  assert(every >= 1);
  const std::string& name = file.name();
  if (!file.stores(Color::kWhite) || !file.stores(Color::kBlack))
    return make_error(ErrorCode::kUnavailable,
                      name + ": stores one side to move only (--sides one); compare a file of both sides");
  auto material = model::Material::parse(file.info().material);
  if (!material) return make_error(ErrorCode::kCorrupt, name + ": header material: " + material.error().message);
  const model::IndexScheme scheme(*material);
  const std::uint64_t n = scheme.size();
  if (file.info().positions_per_side != n)
    return make_error(ErrorCode::kCorrupt, name + ": header positions_per_side " +
                                               std::to_string(file.info().positions_per_side) + ", the index of " +
                                               material->name() + " has " + std::to_string(n));
  DtmWdlComparison out;
  std::mutex mutex;
  std::optional<Error> failure;                   // the lowest block that could not be read
  std::uint64_t failure_key = ~std::uint64_t{0};  // its (side, first slot)
  Examples examples;
  std::atomic<std::uint64_t> done{0};
  // Chunks of whole blocks, so each block is decoded once.
  const std::uint64_t chunk = std::max<std::uint64_t>(file.values_per_block(), 1);
  gen::parallel_side_chunks(arena, n, chunk, [&](int side, std::uint64_t first, std::uint64_t last, std::uint64_t) {
    const std::uint64_t key = std::uint64_t(side) << 62 | first;
    auto values = file.values(Color(side), first, last - first);
    if (!values) {
      std::lock_guard lock(mutex);
      if (key < failure_key) {
        failure_key = key;
        failure = values.error();
      }
      return;
    }
    DtmWdlComparison local;
    std::vector<std::pair<std::uint64_t, std::string>> found;
    auto legal = [](std::uint64_t, const model::Board& b) { return model::is_legal(b); };
    auto compare = [&](const Position&, const probe::SyzygyTablebase::WdlCheck& check, std::uint64_t i, const auto& note) {
      const probe::Wdl50 wdl = check.wdl;
      ++local.by_wdl[std::size_t(int(wdl) + 2)];
      const formats::DtmValue dtm = (*values)[i - first];
      const int w = int(wdl);
      if (dtm.is_win() ? w > 0 : dtm.is_loss() ? w < 0 : dtm.is_draw() && w == 0) return;
      ++local.mismatches;
      note(std::string("DTM ") + (dtm.is_win() ? "win" : dtm.is_loss() ? "loss" : dtm.is_draw() ? "draw" : "illegal") +
           ", WDL50 " + probe::to_string(wdl));
    };
    walk_positions(scheme, side, first, last, every, tb, local.positions, local.errors, found, legal, compare);
    const std::uint64_t now = done.fetch_add(last - first, std::memory_order_relaxed) + (last - first);
    if (progress) progress(now, 2 * n);
    std::lock_guard lock(mutex);
    out.positions += local.positions;
    out.mismatches += local.mismatches;
    out.errors += local.errors;
    for (std::size_t k = 0; k < out.by_wdl.size(); ++k) out.by_wdl[k] += local.by_wdl[k];
    examples.merge(found);
  });
  if (failure) return *failure;
  out.examples = examples.lowest();
  return out;
}

}  // namespace tbkit::cli
