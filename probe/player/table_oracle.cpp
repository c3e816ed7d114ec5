// Interim oracle over the generator's in-memory table set (replaced by probe::Tablebase).
#include "probe/player/table_oracle.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "chess/movegen.h"
#include "gen/board.h"
#include "gen/material.h"
#include "gen/table_set.h"

namespace tbkit::player {
namespace {

class GenTableOracle final : public RootTableOracle {
 public:
  gen::TableSet set;
  int men = 0;

  int max_men() const override { return men; }

  std::optional<formats::DtmValue> probe(const chess::Position& pos) const override {
    if (pos.castling_rights() != 0) return std::nullopt;
    if (!pos.en_passant().is_none()) {
      // The table ignores en passant: take the best of the moves instead.
      const auto r = rank_moves(pos);
      if (!r) return std::nullopt;
      if (r->empty()) return pos.in_check() ? formats::DtmValue::loss_in_plies(0) : formats::DtmValue::draw();
      return r->front().value;
    }
    const gen::Board b = gen::board_from_position(pos);
    const gen::Material m = b.material();
    if (!m.is_bare_kings() && !set.contains(m.normalized())) return std::nullopt;
    return set.probe(b);
  }

  std::optional<std::vector<RankedMove>> rank_moves(const chess::Position& pos) const override {
    std::vector<RankedMove> out;
    chess::Position p = pos;
    for (chess::Move m : chess::legal_moves(pos)) {
      p.do_move(m);
      std::optional<formats::DtmValue> v;
      if (!chess::has_legal_move(p)) {
        v = p.in_check() ? formats::DtmValue::loss_in_plies(0) : formats::DtmValue::draw();
      } else {
        v = probe(p);
      }
      p.undo_move(m);
      if (!v) return std::nullopt;
      formats::DtmValue mine = formats::DtmValue::draw();
      if (v->is_win()) mine = formats::DtmValue::loss_in_plies(v->plies() + 1);
      else if (v->is_loss()) mine = formats::DtmValue::win_in_plies(v->plies() + 1);
      out.push_back({m, mine});
    }
    auto rank = [](formats::DtmValue v) {
      if (v.is_win()) return 1000000 - v.plies();
      if (v.is_draw()) return 0;
      return -1000000 + v.plies();
    };
    std::stable_sort(out.begin(), out.end(), [&](const RankedMove& a, const RankedMove& b) { return rank(a.value) > rank(b.value); });
    return out;
  }
};

}  // namespace

Result<std::shared_ptr<const RootTableOracle>> open_table_oracle(const std::string& dirs) {
  auto oracle = std::make_shared<GenTableOracle>();
  std::stringstream ss(dirs);
  std::string dir;
  int loaded = 0;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
      if (e.path().extension() == ".dtm") files.push_back(e.path());
    if (ec) return make_error(ErrorCode::kIo, dir + ": cannot list directory: " + ec.message());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      auto m = gen::Material::parse(f.stem().string());
      if (!m) continue;
      if (Status st = oracle->set.load(f, m->normalized()); !st) return st.error();
      oracle->men = std::max(oracle->men, m->men());
      ++loaded;
    }
  }
  if (loaded == 0) return make_error(ErrorCode::kUnavailable, "TablebasePath '" + dirs + "': no *.dtm tables found");
  return std::shared_ptr<const RootTableOracle>(std::move(oracle));
}

}  // namespace tbkit::player
