// Writes tests/golden/*.tbk and tests/golden-errors/*.tbk (run by hand when the format version
// changes; existing golden files must keep reading). Usage: make_golden_tables SOURCE_DIR
#include <cstdio>
#include <fstream>
#include <iterator>

#include "formats/byte_order.h"
#include "formats/crc32c.h"
#include "tests/formats/golden_data.h"

using namespace tbkit;

namespace {

std::vector<std::byte> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<char> c((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> b(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) b[i] = std::byte(c[i]);
  return b;
}

bool write_bytes(const std::filesystem::path& p, std::span<const std::byte> b) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
  return bool(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_golden_tables SOURCE_DIR\n");
    return 2;
  }
  const std::filesystem::path root = argv[1];
  for (const auto& t : golden::golden_tables()) {
    const auto w = golden::golden_values(t, 0);
    const auto b = golden::golden_values(t, 1);
    const auto freedom = golden::golden_freedoms(t);
    auto st = t.stored_side < 0 ? formats::write_table_file(root / "tests/golden" / t.file, t.info, w, b, t.options)
                                : formats::write_table_file(root / "tests/golden" / t.file, t.info,
                                                            formats::OneSide{chess::Color(t.stored_side),
                                                                             t.stored_side == 0 ? w : b, freedom},
                                                            t.options);
    if (!st) {
      std::fprintf(stderr, "%s\n", st.error().message.c_str());
      return 3;
    }
  }
  // Damaged copies of the 8-bit golden files of each version.
  const auto good = read_bytes(root / "tests/golden/v1-8bit.tbk");
  const auto good2 = read_bytes(root / "tests/golden/v2-lzma-8bit.tbk");
  const auto good3 = read_bytes(root / "tests/golden/v3-lzma-resolved.tbk");
  const auto good4 = read_bytes(root / "tests/golden/v4-static-resolved.tbk");
  const auto errors = root / "tests/golden-errors";
  auto variant = [&](const char* name, auto&& damage) {
    const std::string_view n(name);
    auto bytes = n.starts_with("v4-") ? good4 : n.starts_with("v3-") ? good3 : n.starts_with("v2-") ? good2 : good;
    damage(bytes);
    return write_bytes(errors / name, bytes);
  };
  bool ok = true;
  ok &= variant("truncated.tbk", [](auto& v) { v.resize(v.size() - 10); });
  ok &= variant("truncated-header.tbk", [](auto& v) { v.resize(100); });
  ok &= variant("empty.tbk", [](auto& v) { v.clear(); });
  ok &= variant("bad-magic.tbk", [](auto& v) { v[0] = std::byte{'X'}; });
  ok &= variant("wrong-version.tbk", [](auto& v) { formats::store_le<std::uint32_t>(&v[8], 5); });
  ok &= variant("bad-header-checksum.tbk", [](auto& v) { v[40] = std::byte{'X'}; });  // in the generator text
  ok &= variant("bad-metadata-checksum.tbk", [](auto& v) { v[128] ^= std::byte{0x01}; });  // first symbol
  ok &= variant("bad-block-checksum.tbk", [](auto& v) { v[v.size() - 3] ^= std::byte{0x10}; });  // last block
  ok &= variant("v2-truncated.tbk", [](auto& v) { v.resize(v.size() - 1); });
  ok &= variant("v2-bad-block-checksum.tbk", [](auto& v) { v[v.size() - 2] ^= std::byte{0x04}; });
  ok &= variant("v2-bad-header-checksum.tbk", [](auto& v) { v[106] = std::byte{1}; });  // codec, checksum not redone
  // A damaged block whose checksum was recomputed: the decoder itself must notice.
  ok &= variant("v2-bad-block-data.tbk", [](auto& v) {
    // v2-lzma-8bit.tbk has no dictionary: the block index follows the symbol table.
    const std::size_t index = 128 + 2 * formats::load_le<std::uint32_t>(&v[100]);
    const std::uint64_t data_offset = formats::load_le<std::uint64_t>(&v[index]);
    std::byte* entry = &v[index + 16 * (formats::load_le<std::uint64_t>(&v[112]) - 1)];
    const auto offset = formats::load_le<std::uint64_t>(entry);
    const auto size = formats::load_le<std::uint32_t>(entry + 8);
    v[offset + size / 2] ^= std::byte{0x5A};
    formats::store_le<std::uint32_t>(entry + 12, formats::crc32c(std::span(v).subspan(offset, size)));
    formats::store_le<std::uint32_t>(&v[120], formats::crc32c(std::span(v).subspan(128, data_offset - 128)));
    formats::store_le<std::uint32_t>(&v[124], formats::crc32c(std::span(v).first(124)));
  });
  ok &= variant("v2-unknown-codec.tbk", [](auto& v) {
    v[106] = std::byte{7};
    formats::store_le<std::uint32_t>(&v[124], formats::crc32c(std::span(v).first(124)));
  });
  auto header_crc = [](auto& v) { formats::store_le<std::uint32_t>(&v[124], formats::crc32c(std::span(v).first(124))); };
  ok &= variant("v3-truncated.tbk", [](auto& v) { v.resize(v.size() - 5); });
  ok &= variant("v3-bad-block-checksum.tbk", [](auto& v) { v[v.size() - 2] ^= std::byte{0x20}; });
  ok &= variant("v3-bad-stored-side.tbk", [&](auto& v) {
    v[107] = std::byte{2};
    header_crc(v);
  });
  ok &= variant("v3-bad-value-encoding.tbk", [&](auto& v) {
    formats::store_le<std::uint32_t>(&v[92], 3);
    header_crc(v);
  });
  // Blocks of more than 4 MiB are refused (the largest a writer makes is 2 MiB).
  ok &= variant("v3-block-too-large.tbk", [&](auto& v) {
    formats::store_le<std::uint32_t>(&v[96], (4U << 20) + 1);
    header_crc(v);
  });
  // Capture-resolved values exist only from version 3 on.
  ok &= variant("v2-resolved-encoding.tbk", [&](auto& v) {
    formats::store_le<std::uint32_t>(&v[92], 2);
    header_crc(v);
  });
  // Version 4: truncated; a data byte damaged (found by the chunk checksum, at the first read of the
  // chunk); another codec; a model byte damaged with the metadata checksum redone (the model's
  // own validation must notice).
  ok &= variant("v4-truncated.tbk", [](auto& v) { v.resize(v.size() - 7); });
  ok &= variant("v4-bad-chunk-checksum.tbk", [](auto& v) { v[v.size() - 40] ^= std::byte{0x08}; });
  ok &= variant("v4-lzma-codec.tbk", [&](auto& v) {
    v[106] = std::byte{2};
    header_crc(v);
  });
  ok &= variant("v4-bad-model.tbk", [&](auto& v) {
    const std::size_t model = 128 + 2 * formats::load_le<std::uint32_t>(&v[100]);
    const std::size_t data = model + formats::load_le<std::uint32_t>(&v[108]);
    v[model + 1] = std::byte{2};  // the record's block size: 2^2 bytes
    formats::store_le<std::uint32_t>(&v[120], formats::crc32c(std::span(v).subspan(128, data - 128)));
    header_crc(v);
  });
  return ok ? 0 : 3;
}
