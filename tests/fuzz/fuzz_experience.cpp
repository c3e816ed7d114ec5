// libFuzzer target for the experience store's readers: the journal (bare, and behind a valid
// header) and the learned-statistics file. Any input must be read or rejected without faults, and
// what the journal reader accepts must encode back to the very bytes it read.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "formats/experience.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tbkit;
  if (size > (std::size_t{1} << 24)) return 0;
  const auto input = std::span<const std::byte>(reinterpret_cast<const std::byte*>(data), size);
  std::vector<std::byte> framed = formats::encode_journal_header(3);
  framed.insert(framed.end(), input.begin(), input.end());
  for (auto image : {input, std::span<const std::byte>(framed)}) {
    const auto c = formats::parse_journal(image, "fuzz.exp");
    if (c.valid_bytes > image.size() || c.torn != (c.valid_bytes < image.size())) __builtin_trap();
    if (c.valid_bytes == 0) continue;
    std::vector<std::byte> again = formats::encode_journal_header(c.epoch);
    for (const auto& g : c.games) {
      const auto rec = formats::encode_journal_record(g);
      again.insert(again.end(), rec.begin(), rec.end());
    }
    if (again.size() != c.valid_bytes || std::memcmp(again.data(), image.data(), again.size()) != 0) __builtin_trap();
  }
  auto learned = formats::parse_learned(input, "fuzz.learn");
  if (learned.ok()) {
    const auto again = formats::encode_learned(*learned);
    if (again.size() != size || std::memcmp(again.data(), data, size) != 0) __builtin_trap();
  }
  return 0;
}
