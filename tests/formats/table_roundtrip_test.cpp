#include <catch2/catch.hpp>
#include <fcntl.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

#include "formats/table_file.h"

using namespace tbkit;
using namespace tbkit::formats;

namespace {

// A table shaped like a real one: mostly draws and short mates, some illegal slots, long tails.
std::vector<DtmValue> synthetic_values(std::uint64_t n, std::uint32_t seed, int distinct_wins) {
  std::mt19937 rng(seed);
  std::vector<DtmValue> v(n);
  for (auto& x : v) {
    const auto r = rng() % 100;
    if (r < 10) x = DtmValue::illegal();
    else if (r < 40) x = DtmValue::draw();
    else if (r < 75) x = DtmValue::win_in_plies(2 * int(rng() % std::uint32_t(distinct_wins)) + 1);
    else x = DtmValue::loss_in_plies(2 * int(rng() % std::uint32_t(distinct_wins)));
  }
  return v;
}

TableInfo info_for(std::uint64_t n) { return TableInfo{"KQvK", 7, n, "tbkit test", 1700000000}; }

void check_same(const TableFile& t, chess::Color side, const std::vector<DtmValue>& expected) {
  auto all = t.values(side, 0, expected.size());
  REQUIRE(all.ok());
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (!expected[i].is_illegal()) REQUIRE(all->at(i) == expected[i]);
}

std::filesystem::path temp_path(const std::string& leaf) {
  return std::filesystem::temp_directory_path() / ("tbkit-" + std::to_string(::getpid()) + "-" + leaf);
}

}  // namespace

TEST_CASE("Table files round-trip values for both sides", "[formats][table]") {
  const std::uint64_t n = 50'000;
  const auto white = synthetic_values(n, 1, 20);
  const auto black = synthetic_values(n, 2, 20);
  const auto path = temp_path("roundtrip.tbk");
  TableWriteOptions opt;
  opt.block_bytes = 4096;
  SECTION("8-bit symbols") {}
  SECTION("16-bit symbols") { opt.wide_symbols = true; }
  SECTION("no filling") { opt.fill_illegal = false; }
  SECTION("zstd dictionary") {
    opt.codec = BlockCodec::kZstd;
    opt.compression_level = 19;
    opt.dictionary_bytes = 4096;
  }
  SECTION("zstd, format version 1") {
    opt.codec = BlockCodec::kZstd;
    opt.compression_level = 3;
    opt.format_version = 1;
  }
  SECTION("LZMA2 extreme, 1 MiB blocks") {
    opt.block_bytes = 1U << 20;
    opt.lzma_extreme = true;
  }
  REQUIRE(write_table_file(path, info_for(n), white, black, opt).ok());
  CHECK(!std::filesystem::exists(path.string() + ".tmp"));
  auto t = TableFile::open(path);
  REQUIRE(t.ok());
  CHECK(t->info().material == "KQvK");
  CHECK(t->info().index_scheme == 7);
  CHECK(t->info().positions_per_side == n);
  CHECK(t->info().generator == "tbkit test");
  CHECK(t->info().created == 1700000000);
  CHECK(t->block_count() == 2 * ((n + t->values_per_block() - 1) / t->values_per_block()));
  REQUIRE(t->verify().ok());
  check_same(*t, chess::Color::kWhite, white);
  check_same(*t, chess::Color::kBlack, black);
  for (std::uint64_t i = 0; i < n; i += 997) {
    if (!white[i].is_illegal()) CHECK(t->value(chess::Color::kWhite, i).value() == white[i]);
    if (!black[i].is_illegal()) CHECK(t->value(chess::Color::kBlack, i).value() == black[i]);
  }
  if (!opt.fill_illegal) {
    // Without filling, every illegal slot reads back illegal (about a tenth of the slots).
    auto all = t->values(chess::Color::kWhite, 0, n);
    REQUIRE(all.ok());
    std::uint64_t illegal = 0, filled = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      illegal += white[i].is_illegal();
      filled += white[i].is_illegal() && !all->at(i).is_illegal();
    }
    CHECK(illegal > n / 20);
    CHECK(filled == 0);
  }
  auto out_of_range = t->value(chess::Color::kWhite, n);
  REQUIRE(!out_of_range.ok());
  CHECK(out_of_range.error().code == ErrorCode::kInvalidArgument);
  std::filesystem::remove(path);
}

TEST_CASE("Blocks up to 4 MiB round-trip, and tables over lzma_large_above take their own block size", "[formats][table]") {
  // gen's "balanced" one-side writer codes 2 MiB blocks, and 1 MiB ones for tables of more than
  // lzma_large_above positions a side (lzma_large_block_bytes).
  const std::uint64_t n = 2'500'000;
  const auto white = synthetic_values(n, 11, 20);
  TableWriteOptions opt;
  opt.compression_level = 1;  // LZMA2, a fast preset: the block size is under test
  opt.block_bytes = 4U << 20;
  opt.lzma_large_block_bytes = 1U << 20;
  std::uint64_t expected_per_block = 4U << 20;
  SECTION("a table within lzma_large_above") { opt.lzma_large_above = n; }
  SECTION("a table over it") {
    opt.lzma_large_above = n - 1;
    expected_per_block = 1U << 20;
  }
  SECTION("no large tables") { opt.lzma_large_block_bytes = 0; }
  auto bytes = encode_table(info_for(n), OneSide{chess::Color::kWhite, white, {}}, opt);
  REQUIRE(bytes.ok());
  auto t = TableFile::open_memory(*bytes, "memory");
  REQUIRE(t.ok());
  CHECK(t->values_per_block() == expected_per_block);
  CHECK(t->block_count() == (n + expected_per_block - 1) / expected_per_block);
  REQUIRE(t->verify().ok());
  check_same(*t, chess::Color::kWhite, white);
}

TEST_CASE("Tables with more than 256 distinct values use 16-bit symbols", "[formats][table]") {
  const std::uint64_t n = 20'000;
  const auto white = synthetic_values(n, 3, 400);
  const auto black = synthetic_values(n, 4, 400);
  auto bytes = encode_table(info_for(n), white, black);
  REQUIRE(bytes.ok());
  auto t = TableFile::open_memory(*bytes, "memory");
  REQUIRE(t.ok());
  CHECK(t->symbol_count() > 256);
  CHECK(t->values_per_block() == TableWriteOptions{}.block_bytes / 2);
  REQUIRE(t->verify().ok());
  check_same(*t, chess::Color::kWhite, white);
  check_same(*t, chess::Color::kBlack, black);
}

TEST_CASE("Table output is bit-identical for identical input", "[formats][table]") {
  const std::uint64_t n = 30'000;
  const auto white = synthetic_values(n, 5, 30);
  const auto black = synthetic_values(n, 6, 30);
  TableWriteOptions opt;
  opt.block_bytes = 2048;
  SECTION("LZMA2") {}
  SECTION("zstd with a dictionary") {
    opt.codec = BlockCodec::kZstd;
    opt.dictionary_bytes = 2048;
  }
  auto a = encode_table(info_for(n), white, black, opt);
  auto b = encode_table(info_for(n), white, black, opt);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(*a == *b);
  const auto path = temp_path("identical.tbk");
  REQUIRE(write_table_file(path, info_for(n), white, black, opt).ok());
  std::ifstream in(path, std::ios::binary);
  std::vector<char> on_disk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(on_disk.size() == a->size());
  CHECK(std::equal(on_disk.begin(), on_disk.end(), a->begin(), [](char c, std::byte x) { return std::byte(c) == x; }));
  std::filesystem::remove(path);
}

TEST_CASE("Blocks encoded separately in any order assemble into encode_table's bytes", "[formats][table]") {
  const std::uint64_t n = 20'000;
  const auto white = synthetic_values(n, 7, 30);
  const auto black = synthetic_values(n, 8, 30);
  TableWriteOptions opt;
  opt.block_bytes = 1024;
  auto whole = encode_table(info_for(n), white, black, opt);
  REQUIRE(whole.ok());
  auto enc = TableEncoder::create(info_for(n), white, black, opt);
  REQUIRE(enc.ok());
  REQUIRE(enc->block_count() == 2 * ((n + 1023) / 1024));
  std::vector<std::vector<std::byte>> blocks(enc->block_count());
  for (std::uint64_t k = blocks.size(); k-- > 0;) blocks[k] = enc->encode_block(k).value();
  CHECK(*enc->assemble(blocks) == *whole);
  CHECK(enc->encode_block(blocks.size()).error().code == ErrorCode::kInvalidArgument);
  blocks.pop_back();
  CHECK(enc->assemble(blocks).error().code == ErrorCode::kInvalidArgument);
}

TEST_CASE("LZMA2 settings for large tables apply above their size only", "[formats][table]") {
  // A table of n positions a side coded with lzma_large_above < n is the table coded with the
  // large settings as its own; with lzma_large_above >= n, the table coded without them.
  const std::uint64_t n = 60'000;
  const auto white = synthetic_values(n, 5, 40), black = synthetic_values(n, 6, 25);
  std::vector<SlotFreedom> freedom(n);  // exact: each slot its value
  TableWriteOptions base;
  base.block_bytes = 8192;
  base.lzma_nice_len = 64;
  TableWriteOptions shallow = base;
  shallow.lzma_nice_len = 8;
  shallow.lzma_depth = 1;
  TableWriteOptions large = base;
  large.lzma_large_nice_len = 8;
  large.lzma_large_depth = 1;
  for (std::uint32_t version : {2U, 3U}) {
    INFO("format version " << version);
    auto encode = [&](TableWriteOptions o) {
      o.format_version = version;
      return version == 2 ? encode_table(info_for(n), white, black, o).value()
                          : encode_table(info_for(n), OneSide{chess::Color::kWhite, white, freedom}, o).value();
    };
    large.lzma_large_above = n - 1;
    const auto above = encode(large);
    CHECK(above == encode(shallow));
    CHECK(above != encode(base));  // the settings change the bytes, so the two checks tell apart
    large.lzma_large_above = n;
    CHECK(encode(large) == encode(base));
  }
}

TEST_CASE("Format v3: one side, free slots filled within their bounds, blocks in any order", "[formats][table]") {
  const std::uint64_t n = 20'000;
  const auto black = synthetic_values(n, 9, 30);
  std::vector<SlotFreedom> freedom(n);
  std::mt19937 rng(3);
  for (auto& f : freedom) f = SlotFreedom(rng() % 3);
  TableWriteOptions opt;
  opt.block_bytes = 1024;
  // Every fill mode keeps every slot within its bounds (the default kPrevious, and the measured others).
  SECTION("fill: default") {}
  SECTION("fill: next") { opt.fill = FillMode::kNext; }
  SECTION("fill: match") { opt.fill = FillMode::kMatch; }
  SECTION("fill: preset LZMA options, frequency order") {
    opt.lzma_nice_len = 64;
    opt.lzma_lc = 3;
    opt.lzma_pb = 2;
    opt.symbol_order = SymbolOrder::kFrequency;
  }
  SECTION("fill: shallow LZMA match search (gen --compression balanced)") {
    opt.lzma_nice_len = 64;
    opt.lzma_depth = 4;
  }
  const OneSide one{chess::Color::kBlack, black, freedom};
  auto whole = encode_table(info_for(n), one, opt);
  REQUIRE(whole.ok());
  auto enc = TableEncoder::create(info_for(n), one, opt);
  REQUIRE(enc.ok());
  REQUIRE(enc->block_count() == (n + 1023) / 1024);
  std::vector<std::vector<std::byte>> blocks(enc->block_count());
  for (std::uint64_t k = blocks.size(); k-- > 0;) blocks[k] = enc->encode_block(k).value();
  CHECK(*enc->assemble(blocks) == *whole);
  {
    // The same file from value counts and blocks the caller hands in (gen sizes storage orders so).
    std::vector<std::uint64_t> counts(65536, 0);
    for (std::uint64_t i = 0; i < n; ++i)
      if (freedom[i] != SlotFreedom::kAny) ++counts[black[i].raw()];
    auto gathered = TableEncoder::create_from_counts(info_for(n), chess::Color::kBlack, true, counts, opt);
    REQUIRE(gathered.ok());
    REQUIRE(gathered->block_count() == blocks.size());
    REQUIRE(gathered->block_values() == 1024);
    std::vector<std::vector<std::byte>> again(blocks.size());
    std::uint64_t sum = 0;
    for (std::uint64_t k = 0; k < again.size(); ++k) {
      const std::uint64_t first = k * 1024, count = std::min<std::uint64_t>(1024, n - first);
      again[k] = gathered->encode_block(std::span(black).subspan(first, count), std::span(freedom).subspan(first, count))
                     .value();
      sum += again[k].size();
    }
    CHECK(again == blocks);
    CHECK(*gathered->assemble(again) == *whole);
    CHECK(gathered->file_size(sum) == whole->size());
    // It holds no values of its own; a block must fit; counts cover every raw value.
    CHECK(gathered->encode_block(0).error().code == ErrorCode::kInvalidArgument);
    CHECK(gathered->encode_block(std::span<const DtmValue>{}, {}).error().code == ErrorCode::kInvalidArgument);
    CHECK(gathered->encode_block(std::span(black).first(1025), {}).error().code == ErrorCode::kInvalidArgument);
    CHECK(gathered->encode_block(std::span(black).first(10), std::span(freedom).first(9)).error().code ==
          ErrorCode::kInvalidArgument);
    CHECK(TableEncoder::create_from_counts(info_for(n), chess::Color::kBlack, true, std::span(counts).first(256), opt)
              .error()
              .code == ErrorCode::kInvalidArgument);
    // Keys: the default fill with preference-ordered symbols codes from one key per slot
    // (gen's path), to the same blocks; other fills and symbol orders do not take keys.
    const bool keyed = opt.fill == FillMode::kPrevious && opt.symbol_order == SymbolOrder::kDefault;
    CHECK(gathered->keyed() == keyed);
    CHECK(gathered->symbol_width() == 1);
    if (keyed) {
      for (std::uint64_t k = 0; k < again.size(); ++k) {
        std::vector<std::byte> coded;
        std::uint16_t previous = 0;
        for (std::uint64_t i = k * 1024; i < std::min<std::uint64_t>(n, (k + 1) * 1024); ++i) {
          const std::uint16_t key = gathered->symbol_key(black[i], freedom[i]);
          CHECK((key == kFreeKey) == (black[i].is_illegal() || freedom[i] == SlotFreedom::kAny));
          coded.push_back(std::byte(fill_code(previous, key)));
        }
        CHECK(gathered->compress_coded(coded).value() == blocks[k]);
      }
      CHECK(gathered->compress_coded({}).error().code == ErrorCode::kInvalidArgument);
      CHECK(gathered->compress_coded(std::vector<std::byte>(1025)).error().code == ErrorCode::kInvalidArgument);
    }
    // An encoder of both sides codes only its own blocks.
    auto both = TableEncoder::create(info_for(n), black, black, {});
    REQUIRE(both.ok());
    CHECK(both->encode_block(std::span(black).first(10), {}).error().code == ErrorCode::kInvalidArgument);
  }
  // The two-side API refuses version 3.
  CHECK(encode_table(info_for(n), black, black, {.format_version = 3}).error().code == ErrorCode::kInvalidArgument);

  auto file = TableFile::open_memory(*whole, "v3");
  REQUIRE(file.ok());
  CHECK(file->format_version() == 3);
  CHECK(file->stored_side() == chess::Color::kBlack);
  CHECK(file->capture_resolved());
  CHECK(!file->stores(chess::Color::kWhite));
  CHECK(file->values(chess::Color::kWhite, 0, 1).error().code == ErrorCode::kInvalidArgument);
  auto got = file->values(chess::Color::kBlack, 0, n);
  REQUIRE(got.ok());
  std::uint64_t lowered = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (black[i].is_illegal() || freedom[i] == SlotFreedom::kAny) continue;
    if (freedom[i] == SlotFreedom::kExact) REQUIRE(got->at(i) == black[i]);
    REQUIRE(preference_of(got->at(i)) <= preference_of(black[i]));
    lowered += got->at(i) != black[i];
  }
  CHECK(lowered > 1000);
  // Without freedom: exact values, value_encoding 1.
  auto exact = encode_table(info_for(n), OneSide{chess::Color::kWhite, black, {}}, opt);
  REQUIRE(exact.ok());
  auto exact_file = TableFile::open_memory(*exact, "v3 exact");
  REQUIRE(exact_file.ok());
  CHECK(!exact_file->capture_resolved());
  check_same(*exact_file, chess::Color::kWhite, black);
}

namespace {
std::vector<std::string> opened_tmp_files;
}  // namespace

TEST_CASE("write_file_atomically creates its tmp file through the opener set", "[formats][table]") {
  // The command line routes the creation through its interrupt lock (cli/interrupt.cpp).
  const auto path = temp_path("opener.bin");
  const std::vector<std::byte> bytes(1000, std::byte{0x5A});
  opened_tmp_files.clear();
  set_tmp_file_opener([](const char* p, int flags, unsigned mode) {
    opened_tmp_files.emplace_back(p);
    return ::open(p, flags, mode);
  });
  REQUIRE(write_file_atomically(path, bytes).ok());
  CHECK(opened_tmp_files == std::vector<std::string>{path.string() + ".tmp"});
  CHECK(std::filesystem::file_size(path) == bytes.size());
  CHECK(!std::filesystem::exists(path.string() + ".tmp"));
  // An opener that refuses: the write fails, naming the tmp file, and leaves nothing.
  std::filesystem::remove(path);
  set_tmp_file_opener([](const char*, int, unsigned) {
    errno = EACCES;
    return -1;
  });
  const Status refused = write_file_atomically(path, bytes);
  set_tmp_file_opener(nullptr);
  REQUIRE(!refused.ok());
  CHECK(refused.error().code == ErrorCode::kIo);
  CHECK(refused.error().message.find(path.string() + ".tmp: cannot create") != std::string::npos);
  CHECK(!std::filesystem::exists(path));
  CHECK(!std::filesystem::exists(path.string() + ".tmp"));
  // The default again.
  opened_tmp_files.clear();
  REQUIRE(write_file_atomically(path, bytes).ok());
  CHECK(opened_tmp_files.empty());
  std::filesystem::remove(path);
}

TEST_CASE("Table writer rejects bad arguments and cleans up", "[formats][table]") {
  const std::vector<DtmValue> v(100, DtmValue::draw());
  CHECK(encode_table(TableInfo{"KQK", 0, 100, "", 0}, v, v).error().code == ErrorCode::kInvalidArgument);
  CHECK(encode_table(TableInfo{"KQvK", 0, 99, "", 0}, v, v).error().code == ErrorCode::kInvalidArgument);
  TableWriteOptions opt;
  opt.block_bytes = 100;
  CHECK(encode_table(info_for(100), v, v, opt).error().code == ErrorCode::kInvalidArgument);
  opt = {};
  opt.dictionary_bytes = 1024;  // LZMA2 has no dictionary option
  CHECK(encode_table(info_for(100), v, v, opt).error().code == ErrorCode::kInvalidArgument);
  opt = {};
  opt.format_version = 1;  // version 1 knows only zstd
  CHECK(encode_table(info_for(100), v, v, opt).error().code == ErrorCode::kInvalidArgument);
  opt = {};
  opt.compression_level = 10;
  CHECK(encode_table(info_for(100), v, v, opt).error().code == ErrorCode::kInvalidArgument);
  opt = {};
  opt.codec = BlockCodec::kZstd;  // zstd: fast levels -7..-1 and 1..22, not 0 (zstd's "default")
  for (const int level : {-8, 0, 23}) {
    opt.compression_level = level;
    CHECK(encode_table(info_for(100), v, v, opt).error().code == ErrorCode::kInvalidArgument);
  }
  for (const int level : {-7, -1, 1, 22}) {
    opt.compression_level = level;
    CHECK(encode_table(info_for(100), v, v, opt).ok());
  }
  opt = {};
  opt.block_bytes = (4U << 20) + 1;  // blocks: 256 bytes to 4 MiB
  CHECK(encode_table(info_for(100), v, v, opt).error().code == ErrorCode::kInvalidArgument);
  opt.block_bytes = 4U << 20;
  CHECK(encode_table(info_for(100), v, v, opt).ok());
  for (const std::uint32_t bad : {255U, (4U << 20) + 1}) {
    opt = {};
    opt.lzma_large_block_bytes = bad;
    CHECK(encode_table(info_for(100), v, v, opt).error().code == ErrorCode::kInvalidArgument);
  }
  opt = {};
  opt.lzma_nice_len = 274;
  CHECK(encode_table(info_for(100), v, v, opt).error().code == ErrorCode::kInvalidArgument);
  opt = {};
  opt.lzma_depth = 1001;
  CHECK(encode_table(info_for(100), v, v, opt).error().code == ErrorCode::kInvalidArgument);
  opt = {};
  opt.lzma_large_depth = 1001;
  CHECK(encode_table(info_for(100), v, v, opt).error().code == ErrorCode::kInvalidArgument);
  opt = {};
  opt.lzma_large_nice_len = 274;
  CHECK(encode_table(info_for(100), v, v, opt).error().code == ErrorCode::kInvalidArgument);
  opt = {};
  opt.lzma_lc = 3;
  opt.lzma_lp = 2;  // LZMA2: lc + lp <= 4
  CHECK(encode_table(info_for(100), v, v, opt).error().code == ErrorCode::kInvalidArgument);
  opt = {};
  opt.fill_lookahead = 0;
  CHECK(encode_table(info_for(100), v, v, opt).error().code == ErrorCode::kInvalidArgument);
  const auto dir = temp_path("no-such-dir");
  auto st = write_table_file(dir / "x.tbk", info_for(100), v, v);
  REQUIRE(!st.ok());
  CHECK(st.error().code == ErrorCode::kIo);
  CHECK(st.error().message.find("x.tbk.tmp") != std::string::npos);
}
