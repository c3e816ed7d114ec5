#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "formats/table_file.h"
#include "tests/formats/golden_data.h"

using namespace tbkit;
using namespace tbkit::formats;

namespace {

const std::filesystem::path kGolden = std::filesystem::path(TBKIT_SOURCE_DIR) / "tests/golden";
const std::filesystem::path kGoldenErrors = std::filesystem::path(TBKIT_SOURCE_DIR) / "tests/golden-errors";

const char* code_name(ErrorCode c) {
  switch (c) {
    case ErrorCode::kCorrupt: return "corrupt";
    case ErrorCode::kVersion: return "version";
    case ErrorCode::kIo: return "io";
    default: return "other";
  }
}

// The names of the *.tbk files in `dir`.
std::set<std::string> tbk_files(const std::filesystem::path& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".tbk") names.insert(e.path().filename().string());
  return names;
}

}  // namespace

TEST_CASE("Golden v1 to v4 table files keep reading", "[formats][golden]") {
  // Every golden file is checked below, and no listed one is missing.
  std::set<std::string> listed;
  for (const auto& t : golden::golden_tables()) listed.insert(t.file);
  CHECK(listed == tbk_files(kGolden));
  for (const auto& t : golden::golden_tables()) {
    INFO(t.file);
    auto table = TableFile::open(kGolden / t.file);
    REQUIRE(table.ok());
    CHECK(table->info().material == t.info.material);
    CHECK(table->info().index_scheme == t.info.index_scheme);
    CHECK(table->info().positions_per_side == t.info.positions_per_side);
    CHECK(table->info().generator == t.info.generator);
    CHECK(table->info().created == t.info.created);
    REQUIRE(table->verify().ok());
    CHECK(table->capture_resolved() == t.resolved);
    for (int side = 0; side < 2; ++side) {
      const auto n = t.info.positions_per_side;
      if (t.stored_side >= 0 && side != t.stored_side) {
        CHECK(!table->stores(chess::Color(side)));
        CHECK(table->values(chess::Color(side), 0, n).error().code == ErrorCode::kInvalidArgument);
        continue;
      }
      CHECK(table->stores(chess::Color(side)));
      auto got = table->values(chess::Color(side), 0, n);
      REQUIRE(got.ok());
      for (std::size_t i = 0; i < n; ++i) REQUIRE(golden::golden_accepts(t, side, i, got->at(i)));
      for (std::size_t i = 0; i < n; i += 101)
        REQUIRE(golden::golden_accepts(t, side, i, table->value(chess::Color(side), i).value()));
    }
  }
  CHECK(TableFile::open(kGolden / "v1-8bit.tbk")->symbol_count() <= 256);
  CHECK(TableFile::open(kGolden / "v1-16bit.tbk")->symbol_count() > 256);
  CHECK(TableFile::open(kGolden / "v1-dict.tbk")->dictionary_size() > 0);
  CHECK(TableFile::open(kGolden / "v1-8bit.tbk")->format_version() == 1);
  CHECK(TableFile::open(kGolden / "v1-8bit.tbk")->codec() == BlockCodec::kZstd);
  CHECK(TableFile::open(kGolden / "v2-lzma-8bit.tbk")->format_version() == 2);
  CHECK(TableFile::open(kGolden / "v2-lzma-8bit.tbk")->codec() == BlockCodec::kLzma2);
  CHECK(TableFile::open(kGolden / "v2-lzma-16bit.tbk")->symbol_count() > 256);
  CHECK(TableFile::open(kGolden / "v2-zstd-dict.tbk")->codec() == BlockCodec::kZstd);
  CHECK(TableFile::open(kGolden / "v2-zstd-dict.tbk")->dictionary_size() > 0);
  CHECK(TableFile::open(kGolden / "v3-lzma-resolved.tbk")->format_version() == 3);
  CHECK(TableFile::open(kGolden / "v3-lzma-resolved.tbk")->stored_side() == chess::Color::kBlack);
  CHECK(TableFile::open(kGolden / "v3-lzma-16bit.tbk")->symbol_count() > 256);
  CHECK(TableFile::open(kGolden / "v3-zstd-exact.tbk")->codec() == BlockCodec::kZstd);
  CHECK(TableFile::open(kGolden / "v4-static-resolved.tbk")->format_version() == 4);
  CHECK(TableFile::open(kGolden / "v4-static-resolved.tbk")->codec() == BlockCodec::kStatic);
  CHECK(TableFile::open(kGolden / "v4-static-16bit.tbk")->symbol_count() > 256);
  // A resolved file stores some values below the golden ones (the writer's filling).
  const auto t = golden::golden_tables()[6];
  auto resolved = TableFile::open(kGolden / t.file);
  auto black = resolved->values(chess::Color::kBlack, 0, t.info.positions_per_side);
  std::uint64_t lowered = 0;
  for (std::uint64_t i = 0; i < t.info.positions_per_side; ++i)
    lowered += black->at(i) != golden::golden_value(1, i, t.value_range);
  CHECK(lowered > 100);
}

// tests/golden-errors/expected.txt: "file|code|stage|message after '<path>: '" per line.
TEST_CASE("Damaged table files are rejected with the expected errors", "[formats][golden]") {
  std::ifstream manifest(kGoldenErrors / "expected.txt");
  REQUIRE(manifest.good());
  std::set<std::string> listed;
  for (std::string line; std::getline(manifest, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string file, code, stage, message;
    std::getline(fields, file, '|');
    std::getline(fields, code, '|');
    std::getline(fields, stage, '|');
    std::getline(fields, message);
    INFO(line);
    const auto path = kGoldenErrors / file;
    REQUIRE(std::filesystem::exists(path));
    auto table = TableFile::open(path);
    Error error;
    if (stage == "open") {
      REQUIRE(!table.ok());
      error = table.error();
    } else {
      REQUIRE(stage == "verify");
      REQUIRE(table.ok());
      auto st = table->verify();
      REQUIRE(!st.ok());
      error = st.error();
    }
    CHECK(code_name(error.code) == code);
    CHECK(error.message == path.string() + ": " + message);
    CHECK(listed.insert(file).second);
  }
  // Each damaged file has its line, and each line its file.
  CHECK(listed.size() >= 8);
  CHECK(listed == tbk_files(kGoldenErrors));
}

TEST_CASE("Missing and unreadable table files are I/O errors", "[formats][golden]") {
  auto missing = TableFile::open(kGoldenErrors / "no-such-file.tbk");
  REQUIRE(!missing.ok());
  CHECK(missing.error().code == ErrorCode::kIo);
  CHECK(missing.error().message.find("no-such-file.tbk: cannot open") != std::string::npos);
  auto dir = TableFile::open(kGoldenErrors);
  REQUIRE(!dir.ok());
  CHECK(dir.error().code == ErrorCode::kIo);
}
