// libFuzzer target: Syzygy WDL/DTZ file images (formats/syzygy_file.h). The first byte picks the
// material and kind the image is read as; the rest is the file. Validation, value lookups and the
// checksum must never crash, hang or read out of bounds; errors are fine.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "formats/syzygy_file.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using namespace tbkit;
using namespace tbkit::formats::syzygy;

struct Target {
  std::string_view material;
  TableKind kind;
};
constexpr std::array<Target, 8> kTargets{{{"KQvK", TableKind::kWdl},
                                          {"KQvK", TableKind::kDtz},
                                          {"KPvK", TableKind::kWdl},
                                          {"KPvK", TableKind::kDtz},
                                          {"KRvK", TableKind::kWdl},
                                          {"KPvKP", TableKind::kWdl},
                                          {"KPvKP", TableKind::kDtz},
                                          {"KQvKR", TableKind::kWdl}}};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const Target& t = kTargets[data[0] % kTargets.size()];
  auto material = TableMaterial::from_name(t.material);
  TBKIT_FUZZ_CHECK(material.ok());
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data + 1), size - 1);
  auto file = SyzygyFile::from_bytes(bytes, "fuzz", t.kind, *material);
  if (!file.ok()) return 0;
  const TableIndex& index = file->index();
  for (int f = 0; f < index.files; ++f)
    for (int side = 0; side < index.sides; ++side) {
      const std::uint64_t n = index.at(side, f).size();
      for (std::uint64_t i = 0; i < n && i < 512; ++i) (void)file->stored_value(side, f, i);
      for (std::uint64_t i : {n / 3, n / 2, n - 1}) (void)file->stored_value(side, f, i);
      auto past = file->stored_value(side, f, n);
      TBKIT_FUZZ_CHECK(!past.ok());
    }
  if (file->has_checksum()) (void)file->verify_checksum();
  return 0;
}
