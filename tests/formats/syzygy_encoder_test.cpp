// The Syzygy writer: round trips through the reader (SyzygyFile) for random and structured values, WDL
// and DTZ, pawnless and pawn materials; re-encoding the official fixtures.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "chess/movegen.h"
#include "chess/position.h"
#include "formats/syzygy_encoder.h"
#include "formats/syzygy_file.h"
#include "formats/syzygy_index.h"
#include "tests/support/checked_threads.h"

namespace {

namespace sz = tbkit::formats::syzygy;

std::filesystem::path encoder_fixture(const std::string& name) {
  return std::filesystem::path(TBKIT_DATA_DIR) / "tablebases" / "syzygy" / name;
}

sz::TableMaterial encoder_material(const std::string& name) {
  auto m = sz::TableMaterial::from_name(name);
  REQUIRE(m.ok());
  return *m;
}

// Values per subtable [file * sides + side], index order.
template <class V>
using SubtableValues = std::vector<std::vector<V>>;

sz::WdlFill wdl_fill_of(const SubtableValues<std::uint8_t>& values, int sides) {
  return [&values, sides](int side, int file, std::uint64_t begin, std::span<std::uint8_t> out) {
    const auto& v = values[std::size_t(file * sides + side)];
    std::copy_n(v.begin() + std::ptrdiff_t(begin), out.size(), out.begin());
  };
}

// Runs of random length and value, a tenth of them don't-cares (full or partial).
std::vector<std::uint8_t> encoder_random_wdl(std::uint64_t n, std::uint32_t seed, int values) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> v;
  v.reserve(n);
  while (v.size() < n) {
    const std::size_t run = 1 + rng() % 40;
    const std::uint32_t r = rng() % 10;
    const std::uint8_t code = r == 0 ? std::uint8_t(5 + rng() % 4) : std::uint8_t(rng() % std::uint32_t(values));
    for (std::size_t k = 0; k < run && v.size() < n; ++k) v.push_back(code);
  }
  return v;
}

// Encodes, opens with the reader and checks every index; returns the file size.
std::size_t encoder_check_wdl(const sz::TableIndex& index, const SubtableValues<std::uint8_t>& values) {
  auto bytes = sz::encode_wdl_file(index, wdl_fill_of(values, index.sides));
  REQUIRE(bytes.ok());
  CHECK(bytes->size() % 64 == 16);
  auto file = sz::SyzygyFile::from_bytes(*bytes, index.material.name() + ".rtbw", sz::TableKind::kWdl,
                                         index.material);
  if (!file.ok()) FAIL(file.error().message);
  std::uint64_t checked = 0;
  for (int f = 0; f < index.files; ++f)
    for (int side = 0; side < index.sides; ++side) {
      const auto& v = values[std::size_t(f * index.sides + side)];
      REQUIRE(v.size() == index.at(side, f).size());
      for (std::uint64_t i = 0; i < v.size(); ++i) {
        auto got = file->stored_value(side, f, i);
        if (!got.ok()) FAIL("side " << side << " file " << f << " index " << i << ": " << got.error().message);
        if (!sz::wdl_matches(v[i], *got)) FAIL("side " << side << " file " << f << " index " << i << ": wrote code "
                                                       << int(v[i]) << ", read " << *got);
        ++checked;
      }
    }
  CHECK(checked > 0);
  return bytes->size();
}

sz::TableIndex encoder_index(const std::string& name, sz::TableKind kind) {
  auto index = sz::default_table_index(encoder_material(name), kind);
  if (!index.ok()) FAIL(index.error().message);
  return *index;
}

}  // namespace

TEST_CASE("Syzygy encoder: random WDL values read back through the reader (pawnless)", "[syzygy][encoder]") {
  const sz::TableIndex index = encoder_index("KRvKN", sz::TableKind::kWdl);
  REQUIRE(index.sides == 2);
  REQUIRE(index.files == 1);
  SubtableValues<std::uint8_t> values;
  for (int side = 0; side < 2; ++side)
    values.push_back(encoder_random_wdl(index.at(side, 0).size(), 17u + std::uint32_t(side), side ? 5 : 3));
  encoder_check_wdl(index, values);
}

TEST_CASE("Syzygy encoder: structured WDL values read back (pawns, four files)", "[syzygy][encoder]") {
  const sz::TableIndex index = encoder_index("KPvK", sz::TableKind::kWdl);
  REQUIRE(index.files == 4);
  SubtableValues<std::uint8_t> values;
  for (int f = 0; f < 4; ++f)
    for (int side = 0; side < 2; ++side) {
      std::vector<std::uint8_t> v(index.at(side, f).size());
      // Long runs, periodic patterns (pairs of pairs) and one single-valued subtable.
      for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = f == 3 && side == 1 ? sz::kWdlDraw
               : f == 0            ? std::uint8_t((i / 97) % 2 ? sz::kWdlWin : sz::kWdlDraw)
                                   : std::uint8_t((i % 7 == 0) ? sz::kWdlDontCare : (i % 3) * 2);
      values.push_back(std::move(v));
    }
  encoder_check_wdl(index, values);
}

TEST_CASE("Syzygy encoder: single-valued and don't-care-only subtables", "[syzygy][encoder]") {
  const sz::TableIndex index = encoder_index("KQvK", sz::TableKind::kWdl);
  SubtableValues<std::uint8_t> values(2);
  values[0].assign(index.at(0, 0).size(), sz::kWdlWin);
  values[1].assign(index.at(1, 0).size(), sz::wdl_at_most(sz::kWdlDraw));
  // One slot that the single value must still satisfy.
  values[1][5] = sz::kWdlLoss;
  encoder_check_wdl(index, values);
}

TEST_CASE("Syzygy encoder: bad WDL codes are errors", "[syzygy][encoder]") {
  const sz::TableIndex index = encoder_index("KQvK", sz::TableKind::kWdl);
  SubtableValues<std::uint8_t> values(2);
  values[0].assign(index.at(0, 0).size(), sz::kWdlWin);
  values[1].assign(index.at(1, 0).size(), 9);
  auto bytes = sz::encode_wdl_file(index, wdl_fill_of(values, 2));
  REQUIRE_FALSE(bytes.ok());
  CHECK(bytes.error().code == tbkit::ErrorCode::kInvalidArgument);
}

namespace {

// The official WDL fixtures as an oracle: a position's true WDL for the side to move (the stored value
// or, where better, a capture's; Syzygy's rule) and the slot code a writer may store for it.
class EncoderOracle {
 public:
  // The fixture of a material in either orientation, nullptr when there is none.
  const sz::SyzygyFile* find_file(const sz::TableMaterial& m) {
    for (const std::string& name : {m.name(), m.swapped().name()}) {
      if (auto it = files_.find(name); it != files_.end()) return &it->second;
      if (std::filesystem::exists(encoder_fixture(name + ".rtbw"))) {
        auto f = sz::SyzygyFile::open(encoder_fixture(name + ".rtbw"));
        if (!f.ok()) FAIL(f.error().message);
        return &files_.emplace(name, std::move(*f)).first->second;
      }
    }
    return nullptr;
  }
  const sz::SyzygyFile& file_for(const sz::TableMaterial& m) {
    const sz::SyzygyFile* f = find_file(m);
    if (!f) FAIL("no fixture for " << m.name());
    return *f;
  }

  // The best WDL a capture reaches, -3 when there is none; nullopt when a table is missing.
  std::optional<int> best_capture(tbkit::chess::Position& pos) {
    tbkit::chess::MoveList moves;
    tbkit::chess::generate_legal_noisy(pos, moves);
    int best = -3;
    for (const tbkit::chess::Move m : moves) {
      if (!pos.is_capture(m)) continue;
      pos.do_move(m);
      const std::optional<int> child = resolve(pos);
      pos.undo_move(m);
      if (!child) return std::nullopt;
      best = std::max(best, -*child);
    }
    return best;
  }

  // The true WDL for the side to move; nullopt when a table it needs is missing.
  std::optional<int> resolve(tbkit::chess::Position& pos) {
    auto m = sz::TableMaterial::from_position(pos);
    if (!m.ok()) FAIL(m.error().message);
    if (m->piece_count() == 2) return 0;
    const sz::SyzygyFile* file = find_file(*m);
    if (!file) return std::nullopt;
    auto stored = file->wdl(pos);
    if (!stored.ok()) FAIL(stored.error().message);
    const std::optional<int> capture = best_capture(pos);
    if (!capture) return std::nullopt;
    return std::max(*stored, *capture);
  }

  // Where the best a capture or pawn move reaches decides a DTZ probe (Stockfish then reports the
  // DTZ before that zeroing move and never reads the table): a won position that a zeroing move keeps
  // won, or one whose every move zeroes.
  bool zeroing_decides(tbkit::chess::Position& pos, int wdl) {
    const tbkit::chess::MoveList moves = tbkit::chess::legal_moves(pos);
    int best = -3;
    std::size_t zeroing = 0;
    for (const tbkit::chess::Move m : moves) {
      if (!pos.is_capture(m) && pos.moved_piece(m).type() != tbkit::chess::PieceType::kPawn) continue;
      ++zeroing;
      pos.do_move(m);
      const std::optional<int> child = resolve(pos);
      pos.undo_move(m);
      // A promotion into a table we lack: assume nothing (the slot keeps its stored value).
      if (child) best = std::max(best, -*child);
    }
    return (wdl > 0 && best >= wdl) || (zeroing == moves.size() && best >= wdl);
  }

  // The position of an index, or nullopt for a placement that is no legal position.
  std::optional<tbkit::chess::Position> position_at(const sz::SubtableIndex& sub, int side, std::uint64_t i) {
    const auto squares = sub.decode(i);
    if (!squares) FAIL("no placement for index " << i);
    tbkit::chess::PositionSetup setup;
    for (int k = 0; k < sub.piece_count(); ++k) setup.board[std::size_t((*squares)[std::size_t(k)].index())] = sub.piece(k);
    setup.side = side ? tbkit::chess::Color::kBlack : tbkit::chess::Color::kWhite;
    auto pos = tbkit::chess::Position::from_setup(setup);
    if (!pos.ok()) return std::nullopt;
    return std::move(*pos);
  }

  // The code for a slot: don't-care for placements that are no legal position, "at most the true
  // value" where a capture reaches it, else the exact value.
  std::uint8_t slot_code(const sz::SubtableIndex& sub, int side, std::uint64_t i) {
    auto pos = position_at(sub, side, i);
    if (!pos) return sz::kWdlDontCare;
    const std::optional<int> best = best_capture(*pos);
    if (!best) FAIL("a capture from index " << i << " leads to a table we lack");
    const int capture = *best;
    const int truth = std::max(capture, resolve_stored(*pos));
    if (capture >= truth && truth > -2) return sz::wdl_at_most(truth + 2);
    return std::uint8_t(truth + 2);
  }

 private:
  int resolve_stored(tbkit::chess::Position& pos) {
    auto m = sz::TableMaterial::from_position(pos);
    if (!m.ok()) FAIL(m.error().message);
    auto stored = file_for(*m).wdl(pos);
    if (!stored.ok()) FAIL(stored.error().message);
    return *stored;
  }

  std::map<std::string, sz::SyzygyFile> files_;
};

}  // namespace

TEST_CASE("Syzygy encoder: official WDL fixtures re-encoded read back the same", "[syzygy][encoder][slow]") {
  EncoderOracle oracle;
  for (const std::string name : {"KQvK", "KRvK", "KPvK", "KNvK", "KBvK", "KPPvK", "KPvKP", "KQvKR", "KBNvK", "KRvKP"}) {
    INFO(name);
    const auto path = encoder_fixture(name + ".rtbw");
    const sz::SyzygyFile& official = oracle.file_for(encoder_material(name));
    const sz::TableIndex& index = official.index();
    SubtableValues<std::uint8_t> values, exact;
    std::uint64_t relaxed = 0;
    for (int f = 0; f < index.files; ++f)
      for (int side = 0; side < index.sides; ++side) {
        const sz::SubtableIndex& sub = index.at(side, f);
        std::vector<std::uint8_t> v(sub.size()), e(sub.size());
        for (std::uint64_t i = 0; i < v.size(); ++i) {
          auto got = official.stored_value(side, f, i);
          if (!got.ok()) FAIL(got.error().message);
          e[i] = std::uint8_t(*got);
          v[i] = oracle.slot_code(sub, side, i);
          // The official value is one the code allows, and so is ours (checked by the round trip).
          if (!sz::wdl_matches(v[i], e[i])) FAIL("side " << side << " file " << f << " index " << i);
          relaxed += v[i] > sz::kWdlWin;
        }
        values.push_back(std::move(v));
        exact.push_back(std::move(e));
      }
    CHECK(relaxed > 0);
    // The stored values alone (no freedom), then with the don't-cares a generator knows.
    const std::size_t same = encoder_check_wdl(index, exact);
    const std::size_t ours = encoder_check_wdl(index, values);
    const auto theirs = std::filesystem::file_size(path);
    WARN(name << ".rtbw: official " << theirs << " bytes; ours " << ours << " (with don't-cares), " << same
              << " (official values as they are)");
  }
}

namespace {

// Runs of random classes and distances; `hundred` adds wins of exactly 100 plies (ply accuracy).
std::vector<sz::DtzSlot> encoder_random_dtz(std::uint64_t n, std::uint32_t seed, int distinct, bool hundred) {
  std::mt19937 rng(seed);
  std::vector<sz::DtzSlot> v;
  v.reserve(n);
  while (v.size() < n) {
    const std::size_t run = 1 + rng() % 30;
    sz::DtzSlot s;
    s.wdl = std::int8_t(int(rng() % 5) - 2);
    const int d = 1 + int(rng() % std::uint32_t(distinct));
    s.plies = std::uint16_t(s.wdl == 1 || s.wdl == -1 ? 100 + d : 1 + (d - 1) % 99);
    if (hundred && rng() % 50 == 0) s = {100, 2};
    for (std::size_t k = 0; k < run && v.size() < n; ++k) v.push_back(s);
  }
  return v;
}

struct EncodedDtz {
  std::size_t size = 0;
  std::vector<std::uint8_t> flags;  // per lead file
};

// Encodes, opens with the reader and checks every stored index of the side the file stores.
EncodedDtz encoder_check_dtz(const sz::TableIndex& index, const SubtableValues<sz::DtzSlot>& both_sides,
                              const sz::EncodeOptions& options = {}) {
  // both_sides: [file * 2 + side]
  const sz::DtzFill fill = [&both_sides](int side, int file, std::uint64_t begin, std::span<sz::DtzSlot> out) {
    const auto& v = both_sides[std::size_t(file * 2 + side)];
    std::copy_n(v.begin() + std::ptrdiff_t(begin), out.size(), out.begin());
  };
  auto bytes = sz::encode_dtz_file(index, fill, options);
  if (!bytes.ok()) FAIL(bytes.error().message);
  CHECK(bytes->size() % 64 == 16);
  auto file = sz::SyzygyFile::from_bytes(*bytes, index.material.name() + ".rtbz", sz::TableKind::kDtz, index.material);
  if (!file.ok()) FAIL(file.error().message);
  EncodedDtz result;
  result.size = bytes->size();
  std::uint64_t checked = 0;
  for (int f = 0; f < index.files; ++f) {
    const int side = file->dtz_stored_side(f);
    if (options.dtz_sides[std::size_t(f)] >= 0) CHECK(side == options.dtz_sides[std::size_t(f)]);
    const std::uint8_t flags = file->layout(0, f).flags;
    result.flags.push_back(flags);
    const auto& v = both_sides[std::size_t(f * 2 + side)];
    REQUIRE(v.size() == index.at(0, f).size());
    for (std::uint64_t i = 0; i < v.size(); ++i) {
      if (v[i].wdl == 0) continue;
      auto raw = file->stored_value(0, f, i);
      if (!raw.ok()) FAIL("file " << f << " index " << i << ": " << raw.error().message);
      auto plies = file->map_dtz(f, *raw, v[i].wdl);
      if (!plies.ok()) FAIL("file " << f << " index " << i << ": " << plies.error().message);
      const bool exact = (v[i].wdl == 2 && (flags & sz::kFlagWinPlies)) || (v[i].wdl == -2 && (flags & sz::kFlagLossPlies));
      const int expected = exact ? v[i].plies : sz::dtz_plies_in_moves(v[i].plies);
      const int got = std::abs(sz::signed_dtz(v[i].wdl, *plies));
      if (got != expected) FAIL("file " << f << " index " << i << " wdl " << int(v[i].wdl) << ": wrote " << v[i].plies
                                        << ", expected to read " << expected << ", read " << got);
      ++checked;
    }
  }
  CHECK(checked > 0);
  return result;
}

}  // namespace

TEST_CASE("Syzygy encoder: random DTZ values read back (pawnless, either side stored)", "[syzygy][encoder]") {
  const sz::TableIndex index = encoder_index("KRvKN", sz::TableKind::kDtz);
  REQUIRE(index.sides == 1);
  SubtableValues<sz::DtzSlot> values;
  for (int side = 0; side < 2; ++side)
    values.push_back(encoder_random_dtz(index.at(0, 0).size(), 5u + std::uint32_t(side), side ? 300 : 20, false));
  const EncodedDtz chosen = encoder_check_dtz(index, values);
  CHECK((chosen.flags[0] & (sz::kFlagWinPlies | sz::kFlagLossPlies)) == 0);
  sz::EncodeOptions options;
  options.dtz_sides[0] = 1;
  const EncodedDtz black = encoder_check_dtz(index, values, options);
  options.dtz_sides[0] = 0;
  const EncodedDtz white = encoder_check_dtz(index, values, options);
  // The writer keeps the smaller side (white: 20 distances against 300).
  CHECK(chosen.size == std::min(black.size, white.size));
  CHECK(black.size > white.size);
  options.force_win_plies = true;
  const EncodedDtz plies = encoder_check_dtz(index, values, options);
  CHECK((plies.flags[0] & sz::kFlagWinPlies) != 0);
}

TEST_CASE("Syzygy encoder: DTZ values with 100-ply wins, wide maps and pawns", "[syzygy][encoder]") {
  const sz::TableIndex index = encoder_index("KPvK", sz::TableKind::kDtz);
  REQUIRE(index.files == 4);
  SubtableValues<sz::DtzSlot> values;
  for (int f = 0; f < 4; ++f)
    for (int side = 0; side < 2; ++side) {
      const std::uint64_t n = index.at(0, f).size();
      if (f == 1) {
        // Every class with many distinct values: a 16-bit value map.
        std::vector<sz::DtzSlot> v(n);
        for (std::uint64_t i = 0; i < n; ++i)
          v[i] = i % 4 == 0 ? sz::DtzSlot{std::uint16_t(101 + (i / 4) % 700), std::int8_t(i % 8 ? 1 : -1)}
                            : sz::DtzSlot{std::uint16_t(1 + i % 100), std::int8_t(i % 3 ? 2 : -2)};
        values.push_back(std::move(v));
      } else if (f == 2) {
        values.push_back(std::vector<sz::DtzSlot>(n, sz::DtzSlot{0, 0}));  // nothing stored
      } else {
        values.push_back(encoder_random_dtz(n, 11u * std::uint32_t(f) + std::uint32_t(side), 60, f == 3));
      }
    }
  const EncodedDtz e = encoder_check_dtz(index, values);
  REQUIRE(e.flags.size() == 4);
  CHECK((e.flags[1] & (sz::kFlagMapped | sz::kFlagWideMap)) == (sz::kFlagMapped | sz::kFlagWideMap));
  CHECK((e.flags[2] & sz::kFlagSingleValue) != 0);
  // A 100-ply win in file 3 puts the whole table's wins (for the side that has them) in plies.
  for (std::uint8_t flags : e.flags)
    CHECK((flags & (sz::kFlagWinPlies | sz::kFlagLossPlies)) != 0);
}

TEST_CASE("Syzygy encoder: official DTZ fixtures re-encoded read back the same", "[syzygy][encoder][slow]") {
  EncoderOracle oracle;
  // (KNvK and KBvK are all draws: nothing stored.)
  for (const std::string name : {"KQvK", "KRvK", "KPvK", "KPPvK", "KPvKP"}) {
    INFO(name);
    const auto path = encoder_fixture(name + ".rtbz");
    auto official = sz::SyzygyFile::open(path);
    if (!official.ok()) FAIL(official.error().message);
    const sz::TableIndex& index = official->index();
    // Both sides per file as the writer's fill wants them; the side the official file leaves out is
    // all don't-care, and the writer is told to store the official side.
    SubtableValues<sz::DtzSlot> values;
    sz::EncodeOptions options;
    options.force_win_plies = (official->layout(0, 0).flags & sz::kFlagWinPlies) != 0;
    options.force_loss_plies = (official->layout(0, 0).flags & sz::kFlagLossPlies) != 0;
    std::uint64_t stored = 0;
    for (int f = 0; f < index.files; ++f) {
      const int stored_side = official->dtz_stored_side(f);
      options.dtz_sides[std::size_t(f)] = stored_side;
      const sz::SubtableIndex& sub = index.at(0, f);
      for (int side = 0; side < 2; ++side) {
        std::vector<sz::DtzSlot> v(sub.size());
        for (std::uint64_t i = 0; side == stored_side && i < v.size(); ++i) {
          auto pos = oracle.position_at(sub, side, i);
          if (!pos) continue;
          const std::optional<int> resolved = oracle.resolve(*pos);
          if (!resolved) FAIL("index " << i << " needs a table we lack");
          const int wdl = *resolved;
          if (wdl == 0 || oracle.zeroing_decides(*pos, wdl)) continue;
          auto raw = official->stored_value(0, f, i);
          if (!raw.ok()) FAIL(raw.error().message);
          auto plies = official->map_dtz(f, *raw, wdl);
          if (!plies.ok()) FAIL(plies.error().message);
          v[i] = {std::uint16_t(std::abs(sz::signed_dtz(wdl, *plies))), std::int8_t(wdl)};
          ++stored;
        }
        values.push_back(std::move(v));
      }
    }
    CHECK(stored > 0);
    const EncodedDtz ours = encoder_check_dtz(index, values, options);
    WARN(name << ".rtbz: official " << std::filesystem::file_size(path) << " bytes; ours " << ours.size);
  }
}

TEST_CASE("Syzygy encoder: files are written atomically and open by name", "[syzygy][encoder]") {
  const auto dir = std::filesystem::temp_directory_path() / ("tbkit_syzygy_encoder_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const sz::TableIndex wdl = encoder_index("KRvKN", sz::TableKind::kWdl);
  SubtableValues<std::uint8_t> values;
  for (int side = 0; side < 2; ++side)
    values.push_back(encoder_random_wdl(wdl.at(side, 0).size(), 99u + std::uint32_t(side), 5));
  REQUIRE(sz::write_wdl_file(dir / "KRvKN.rtbw", wdl, wdl_fill_of(values, 2)).ok());
  const sz::TableIndex dtz = encoder_index("KRvKN", sz::TableKind::kDtz);
  SubtableValues<sz::DtzSlot> slots;
  for (int side = 0; side < 2; ++side) slots.push_back(encoder_random_dtz(dtz.at(0, 0).size(), 7u + std::uint32_t(side), 40, true));
  const sz::DtzFill fill = [&slots](int side, int, std::uint64_t begin, std::span<sz::DtzSlot> out) {
    std::copy_n(slots[std::size_t(side)].begin() + std::ptrdiff_t(begin), out.size(), out.begin());
  };
  REQUIRE(sz::write_dtz_file(dir / "KRvKN.rtbz", dtz, fill).ok());
  CHECK_FALSE(std::filesystem::exists(dir / "KRvKN.rtbw.tmp"));
  CHECK_FALSE(std::filesystem::exists(dir / "KRvKN.rtbz.tmp"));
  auto w = sz::SyzygyFile::open(dir / "KRvKN.rtbw");
  if (!w.ok()) FAIL(w.error().message);
  auto z = sz::SyzygyFile::open(dir / "KRvKN.rtbz");
  if (!z.ok()) FAIL(z.error().message);
  // Index 12345 of black to move, through the opened file.
  auto v = w->stored_value(1, 0, 12345);
  REQUIRE(v.ok());
  CHECK(sz::wdl_matches(values[1][12345], *v));
  // A directory that does not exist: an I/O error, nothing left behind.
  auto bad = sz::write_wdl_file(dir / "missing" / "KRvKN.rtbw", wdl, wdl_fill_of(values, 2));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == tbkit::ErrorCode::kIo);
  std::filesystem::remove_all(dir);
}

namespace {

// Runs every task on a thread of its own, all at once, the last started first.
sz::ParallelFor encoder_threads() {
  return [](std::size_t tasks, const std::function<void(std::size_t)>& body) {
    std::vector<std::thread> threads;
    for (std::size_t t = tasks; t-- > 0;) threads.emplace_back(body, t);
    for (std::thread& th : threads) th.join();
  };
}

bool same_compressed(const sz::CompressedSubtable& a, const sz::CompressedSubtable& b) {
  return a.record == b.record && a.sparse_index == b.sparse_index && a.block_lengths == b.block_lengths &&
         a.data == b.data && a.value_map == b.value_map;
}

// n values of short random runs, with a long run of `long_value` over each of the places the encoder
// cuts a stream of n values into parts (n / 2^18 of them, at most 16, evenly spread): starting an
// odd or even number of values before the place, 1 to 40,000, and ending up to 100,000 after it.
template <class V, class Short>
std::vector<V> runs_over_cuts(std::uint64_t n, std::uint32_t seed, V long_value, Short&& short_value) {
  std::mt19937 rng(seed);
  std::vector<V> v(n);
  for (std::uint64_t i = 0; i < n;) {
    const V x = short_value(rng);
    for (std::uint64_t end = std::min(n, i + 1 + rng() % 30); i < end; ++i) v[i] = x;
  }
  const std::uint64_t parts = std::clamp<std::uint64_t>(n >> 18, 1, 16);
  for (std::uint64_t t = 1; t < parts; ++t) {
    const std::uint64_t cut = n * t / parts;
    const std::uint64_t first = cut - (1 + rng() % 40'000), last = cut + rng() % 100'000;
    std::fill(v.begin() + std::ptrdiff_t(first), v.begin() + std::ptrdiff_t(last), long_value);
  }
  return v;
}

}  // namespace

TEST_CASE("Syzygy encoder: pair rounds in parallel parts compress exactly as in one pass", "[syzygy][encoder][threads]") {
  // Over two million values the pair rounds work on seven parts side by side; long runs of one value
  // over the cuts make twin pairs (x, x), whose pairing depends on the run's length before the cut.
  constexpr std::uint64_t kValues = 2'000'000;
  constexpr std::uint32_t kSeeds = tbkit::test::kCheckedThreads ? 1 : 3;  // ~4 s a seed under TSan
  sz::EncodeOptions serial, parallel;
  parallel.parallel = encoder_threads();
  int pair_trees = 0;
  for (std::uint32_t seed = 1; seed <= kSeeds; ++seed) {
    const auto wdl = runs_over_cuts<std::uint8_t>(kValues, seed, 2, [](std::mt19937& rng) {
      return std::uint8_t(rng() % 5);
    });
    const sz::WdlFill wdl_fill = [&wdl](int, int, std::uint64_t begin, std::span<std::uint8_t> out) {
      std::copy_n(wdl.begin() + std::ptrdiff_t(begin), out.size(), out.begin());
    };
    auto one = sz::compress_wdl_subtable(kValues, 0, 0, wdl_fill, 0, serial);
    auto parts = sz::compress_wdl_subtable(kValues, 0, 0, wdl_fill, 0, parallel);
    REQUIRE(one.ok());
    REQUIRE(parts.ok());
    INFO("WDL, seed " << seed);
    CHECK(same_compressed(*one, *parts));
    pair_trees += one->symbol_count > 5;

    const auto dtz = runs_over_cuts<sz::DtzSlot>(kValues, seed, sz::DtzSlot{3, 2}, [](std::mt19937& rng) {
      return sz::DtzSlot{std::uint16_t(1 + rng() % 60), std::int8_t(rng() % 2 ? 2 : -2)};
    });
    const sz::DtzFill dtz_fill = [&dtz](int, int, std::uint64_t begin, std::span<sz::DtzSlot> out) {
      std::copy_n(dtz.begin() + std::ptrdiff_t(begin), out.size(), out.begin());
    };
    auto dtz_one = sz::compress_dtz_subtable(kValues, 0, 0, dtz_fill, false, false, serial);
    auto dtz_parts = sz::compress_dtz_subtable(kValues, 0, 0, dtz_fill, false, false, parallel);
    REQUIRE(dtz_one.ok());
    REQUIRE(dtz_parts.ok());
    INFO("DTZ, seed " << seed);
    CHECK(same_compressed(*dtz_one, *dtz_parts));
    pair_trees += dtz_one->symbol_count > 60;
  }
  CHECK(pair_trees == int(2 * kSeeds));  // every stream made pair symbols
}

TEST_CASE("Syzygy encoder: packed pair rounds with kept counts compress exactly as rounds over the whole stream",
          "[syzygy][encoder][threads]") {
  // pack_ratio 0 walks and counts the whole stream every round; 1 packs from the first round and
  // keeps the counts from then on; 8 (the default) packs part of the way. Serial and in parts.
  constexpr std::uint64_t kValues = 1'200'000;
  // Under ThreadSanitizer (scripts/test) in parts alone: the serial rounds share nothing.
  const std::vector<bool> layouts =
      tbkit::test::kCheckedThreads ? std::vector<bool>{true} : std::vector<bool>{false, true};
  int compared = 0;
  for (const bool in_parts : layouts) {
    for (std::uint32_t seed = 7; seed <= 8; ++seed) {
      const auto wdl = runs_over_cuts<std::uint8_t>(kValues, seed, 4, [](std::mt19937& rng) {
        return std::uint8_t(rng() % 5);
      });
      const sz::WdlFill wdl_fill = [&wdl](int, int, std::uint64_t begin, std::span<std::uint8_t> out) {
        std::copy_n(wdl.begin() + std::ptrdiff_t(begin), out.size(), out.begin());
      };
      const auto dtz = runs_over_cuts<sz::DtzSlot>(kValues, seed, sz::DtzSlot{5, -2}, [](std::mt19937& rng) {
        return sz::DtzSlot{std::uint16_t(1 + rng() % 40), std::int8_t(rng() % 3 ? 2 : -2)};
      });
      const sz::DtzFill dtz_fill = [&dtz](int, int, std::uint64_t begin, std::span<sz::DtzSlot> out) {
        std::copy_n(dtz.begin() + std::ptrdiff_t(begin), out.size(), out.begin());
      };
      std::optional<sz::CompressedSubtable> wdl_whole, dtz_whole;
      for (const int ratio : {0, 1, 8}) {
        sz::EncodeOptions options;
        if (in_parts) options.parallel = encoder_threads();
        options.pack_ratio = ratio;
        auto w = sz::compress_wdl_subtable(kValues, 0, 0, wdl_fill, 0, options);
        auto d = sz::compress_dtz_subtable(kValues, 0, 0, dtz_fill, false, false, options);
        REQUIRE(w.ok());
        REQUIRE(d.ok());
        if (ratio == 0) {
          CHECK(w->symbol_count > 100);  // many rounds of pairs
          CHECK(d->symbol_count > 100);
          wdl_whole = std::move(*w);
          dtz_whole = std::move(*d);
          continue;
        }
        INFO("parts " << in_parts << ", seed " << seed << ", pack ratio " << ratio);
        CHECK(same_compressed(*wdl_whole, *w));
        CHECK(same_compressed(*dtz_whole, *d));
        compared += 2;
      }
    }
  }
  CHECK(compared == int(8 * layouts.size()));
}
