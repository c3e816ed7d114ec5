// Every single byte of a small table file damaged in turn: each probe either fails with a clear
// error or returns the true value, and some probe fails.
#include <catch2/catch.hpp>

#include <fstream>

#include "formats/table_file.h"
#include "gen/one_side.h"
#include "gen/table_set.h"
#include "model/index_scheme.h"
#include "probe/tablebase.h"
#include "tests/probe/small_tables.h"

using namespace tbkit;
using formats::DtmValue;
using probe::Tablebase;

TEST_CASE("Every damaged byte of a table file gives an error at probe, never a wrong value", "[probe][corruption][slow]") {
  const auto source_dir = testing::generate_small_tables({"KQvK"}, "corrupt-src");
  const auto m = *model::Material::parse("KQvK");
  // The generator's file (format version 3: one side stored, capture-resolved), read back with
  // both sides exact, then re-encoded with small blocks so that the file has many blocks.
  gen::TableSet set;
  tbb::task_arena arena(1);
  REQUIRE(set.load_with_dependencies(source_dir, m, arena).ok());
  const gen::SolvedTable& table = *set.find(m);
  const std::uint64_t n = table.scheme.size();
  const auto freedom = gen::slot_freedom(table, chess::Color::kWhite, set, arena);
  formats::TableInfo info{m.name(), table.scheme.id(), n, "tbkit tests", 0};
  auto good = formats::encode_table(info, formats::OneSide{chess::Color::kWhite, table.values[0], freedom},
                                    {.block_bytes = 1024});
  REQUIRE(good.ok());
  INFO("file of " << good->size() << " bytes");
  REQUIRE(good->size() < 20000);

  // Probe positions: the first few legal boards of every 1024 slots, both sides to move (Black's
  // values are derived from the stored White blocks).
  const model::IndexScheme& scheme = table.scheme;
  struct Probe {
    model::Board board;
    DtmValue expected;
  };
  std::vector<Probe> probes;
  for (int side = 0; side < 2; ++side) {
    const auto& values = table.values[side];
    for (std::uint64_t first = 0; first < n; first += 1024) {
      int taken = 0;
      for (std::uint64_t i = first; i < std::min(n, first + 1024) && taken < 2; ++i) {
        model::Board b;
        if (!scheme.decode(i, chess::Color(side), b) || !model::is_legal(b)) continue;
        probes.push_back({b, values[i]});
        ++taken;
      }
    }
  }
  REQUIRE(probes.size() >= 50);

  const auto dir = std::filesystem::temp_directory_path() / ("tbkit-probe-corrupt-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "KQvK.dtm";
  std::uint64_t wrong = 0, undetected = 0, errors = 0;
  for (std::size_t at = 0; at < good->size(); ++at) {
    auto bytes = *good;
    bytes[at] ^= std::byte{0xFF};
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    }
    auto tb = Tablebase::open({dir}, {.cache_bytes = 1 << 20});
    REQUIRE(tb.ok());
    bool detected = false;
    for (const Probe& p : probes) {
      auto v = tb->probe(p.board, chess::Square::none());
      if (v.ok()) {
        wrong += *v != p.expected;
        continue;
      }
      detected = true;
      ++errors;
      const auto code = v.error().code;
      if (code != ErrorCode::kCorrupt && code != ErrorCode::kVersion) {
        FAIL_CHECK("byte " << at << ": unexpected error " << v.error().message);
      }
      if (errors < 3 || at == good->size() - 1) INFO(v.error().message);
      // The message names the file.
      if (v.error().message.find("KQvK.dtm") == std::string::npos) FAIL_CHECK("byte " << at << ": " << v.error().message);
    }
    undetected += !detected;
  }
  CHECK(wrong == 0);
  CHECK(undetected == 0);
  // The undamaged file answers everything.
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(good->data()), std::streamsize(good->size()));
  }
  auto tb = Tablebase::open({dir});
  REQUIRE(tb.ok());
  for (const auto& p : probes) {
    auto v = tb->probe(p.board, chess::Square::none());
    REQUIRE(v.ok());
    CHECK(*v == p.expected);
  }
  std::filesystem::remove_all(dir);
  std::filesystem::remove_all(source_dir);
}
