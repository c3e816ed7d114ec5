// The player's table oracle over probe::Tablebase (DTM) and probe::SyzygyTablebase (WDL50/DTZ50).
#include "player/table_oracle.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_set>
#include <utility>

#include "model/material.h"
#include "probe/syzygy_tablebase.h"
#include "probe/tablebase.h"

namespace tbkit::player {
namespace {

// The material key of a position, White's men as colour 0 (model::Material::key's layout).
std::uint32_t material_key(const chess::Position& pos, bool swap) {
  std::uint32_t key = 0;
  for (int c = 0; c < 2; ++c)
    for (int t = 0; t < 5; ++t)
      key += model::Material::key_term(swap ? 1 - c : c, t, chess::popcount(pos.pieces(chess::Color(c), chess::PieceType(t))));
  return key;
}

// Keys of both orientations of the named materials: a probe for any other material is answered
// "no table" at once, without building an error message per search node.
std::unordered_set<std::uint32_t> keys_of(const std::vector<std::string>& names) {
  std::unordered_set<std::uint32_t> keys;
  for (const auto& n : names) {
    auto m = model::Material::parse(n);
    if (!m) continue;
    keys.insert(m->key());
    keys.insert(m->flipped().key());
  }
  return keys;
}

bool covers(const std::unordered_set<std::uint32_t>& keys, const chess::Position& pos) {
  return keys.count(material_key(pos, false)) != 0;
}

class TablebaseOracle final : public RootTableOracle {
 public:
  TablebaseOracle(std::optional<probe::Tablebase> dtm, std::optional<probe::SyzygyTablebase> syzygy)
      : dtm_(std::move(dtm)), syzygy_(std::move(syzygy)) {
    if (dtm_) {
      dtm_keys_ = keys_of(dtm_->materials());
      men_ = dtm_->max_men();
    }
    if (syzygy_) {
      wdl_keys_ = keys_of(syzygy_->materials());
      men_ = std::max(men_, syzygy_->max_men());
    }
  }

  int max_men() const override { return men_; }

  std::optional<formats::DtmValue> probe(const chess::Position& pos) const override {
    if (!dtm_ || (!covers(dtm_keys_, pos) && chess::popcount(pos.pieces()) > 2)) return std::nullopt;
    auto v = dtm_->probe(pos);
    if (!v) {
      note(v.error());
      return std::nullopt;
    }
    return *v;
  }

  std::optional<probe::Wdl50> probe_wdl(const chess::Position& pos) const override {
    if (!syzygy_ || !covers(wdl_keys_, pos)) return std::nullopt;
    auto v = syzygy_->probe_wdl(pos);
    if (!v) {
      note(v.error());
      return std::nullopt;
    }
    return *v;
  }

  std::optional<std::vector<RankedMove>> rank_moves(const chess::Position& pos) const override {
    if (!dtm_ || !covers(dtm_keys_, pos)) return std::nullopt;
    auto r = dtm_->rank_moves(pos);
    if (!r) {
      note(r.error());
      return std::nullopt;
    }
    std::vector<RankedMove> out;
    out.reserve(r->size());
    for (const auto& m : *r) out.push_back({m.move, m.value});
    return out;
  }

  std::optional<std::vector<probe::Dtz50Move>> rank_moves_50(const chess::Position& pos) const override {
    if (!syzygy_ || !covers(wdl_keys_, pos) || !syzygy_->has_dtz(pos)) return std::nullopt;
    auto r = syzygy_->rank_moves(pos);
    if (!r) {
      note(r.error());
      return std::nullopt;
    }
    return std::move(*r);
  }

  std::vector<std::string> take_errors() const override {
    std::lock_guard lock(mutex_);
    return std::exchange(new_errors_, {});
  }

 private:
  // A table's error repeats on every later probe of it (the file is not retried): keep the first.
  void note(const Error& e) const {
    if (e.code == ErrorCode::kUnavailable || e.code == ErrorCode::kInvalidArgument) return;
    std::lock_guard lock(mutex_);
    if (!seen_.insert(e.message).second) return;
    new_errors_.push_back(e.message);
  }

  std::optional<probe::Tablebase> dtm_;
  std::optional<probe::SyzygyTablebase> syzygy_;
  std::unordered_set<std::uint32_t> dtm_keys_, wdl_keys_;
  int men_ = 0;
  mutable std::mutex mutex_;
  mutable std::set<std::string> seen_;
  mutable std::vector<std::string> new_errors_;
};

}  // namespace

Result<std::shared_ptr<const RootTableOracle>> open_table_oracle(const std::string& dirs, TableKinds kinds) {
  const std::vector<std::filesystem::path> paths = probe::split_dirs(dirs);
  std::optional<probe::Tablebase> dtm;
  std::optional<probe::SyzygyTablebase> syzygy;
  if (kinds.dtm) {
    auto tb = probe::Tablebase::open(paths);
    if (!tb) return tb.error();
    if (tb->max_men() > 0) dtm.emplace(std::move(*tb));
  }
  if (kinds.syzygy) {
    auto tb = probe::SyzygyTablebase::open(paths);
    if (!tb) return tb.error();
    if (tb->max_men() > 0) syzygy.emplace(std::move(*tb));
  }
  if (!dtm && !syzygy) {
    const std::string what = kinds.dtm && kinds.syzygy ? "*.dtm or *.rtbw" : kinds.dtm ? "*.dtm" : "*.rtbw";
    return make_error(ErrorCode::kUnavailable, "TablebasePath '" + dirs + "': no " + what + " tables found");
  }
  return std::shared_ptr<const RootTableOracle>(std::make_shared<TablebaseOracle>(std::move(dtm), std::move(syzygy)));
}

}  // namespace tbkit::player
