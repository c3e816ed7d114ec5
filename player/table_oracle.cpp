// The player's table oracle over probe::Tablebase.
#include "player/table_oracle.h"

#include <mutex>
#include <set>
#include <sstream>
#include <utility>

#include "probe/tablebase.h"

namespace tbkit::player {
namespace {

class TablebaseOracle final : public RootTableOracle {
 public:
  explicit TablebaseOracle(probe::Tablebase tb) : tb_(std::move(tb)), men_(tb_.max_men()) {}

  int max_men() const override { return men_; }

  std::optional<formats::DtmValue> probe(const chess::Position& pos) const override {
    auto v = tb_.probe(pos);
    if (!v) {
      note(v.error());
      return std::nullopt;
    }
    return *v;
  }

  std::optional<std::vector<RankedMove>> rank_moves(const chess::Position& pos) const override {
    auto r = tb_.rank_moves(pos);
    if (!r) {
      note(r.error());
      return std::nullopt;
    }
    std::vector<RankedMove> out;
    out.reserve(r->size());
    for (const auto& m : *r) out.push_back({m.move, m.value});
    return out;
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

  probe::Tablebase tb_;
  int men_;
  mutable std::mutex mutex_;
  mutable std::set<std::string> seen_;
  mutable std::vector<std::string> new_errors_;
};

}  // namespace

Result<std::shared_ptr<const RootTableOracle>> open_table_oracle(const std::string& dirs) {
  std::vector<std::filesystem::path> paths;
  std::stringstream ss(dirs);
  for (std::string dir; std::getline(ss, dir, ':');)
    if (!dir.empty()) paths.emplace_back(dir);
  auto tb = probe::Tablebase::open(paths);
  if (!tb) return tb.error();
  if (tb->max_men() == 0) return make_error(ErrorCode::kUnavailable, "TablebasePath '" + dirs + "': no *.dtm tables found");
  return std::shared_ptr<const RootTableOracle>(std::make_shared<TablebaseOracle>(std::move(*tb)));
}

}  // namespace tbkit::player
