// libFuzzer target for the book readers: the native .tbb validator and lookups, and the Polyglot
// .bin parser with move decoding. Any input must be rejected cleanly or read without faults.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "chess/position.h"
#include "formats/book_file.h"
#include "formats/polyglot_book.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tbkit;
  if (size > (std::size_t{1} << 24)) return 0;  // bounds the copies below (and GCC's overflow analysis)
  // The .tbb reader maps files page-aligned; give it an 8-byte aligned copy.
  std::vector<std::uint64_t> aligned((size + 7) / 8 + 1);
  if (size) std::memcpy(aligned.data(), data, size);
  const auto bytes = std::span<const std::byte>(reinterpret_cast<const std::byte*>(aligned.data()), size);

  // Also try the input behind a valid-looking header, so the entry checks are reached.
  std::vector<std::uint64_t> framed(16 + (size + 7) / 8);
  std::memcpy(framed.data(), formats::kBookMagic, 8);
  const std::uint32_t version = formats::kBookVersion, header = 128, entry = 40;
  std::memcpy(reinterpret_cast<char*>(framed.data()) + 8, &version, 4);
  std::memcpy(reinterpret_cast<char*>(framed.data()) + 12, &header, 4);
  std::memcpy(reinterpret_cast<char*>(framed.data()) + 16, &entry, 4);
  const std::uint64_t count = size / 40;
  std::memcpy(reinterpret_cast<char*>(framed.data()) + 24, &count, 8);
  if (size) std::memcpy(framed.data() + 16, data, size);
  const auto framed_bytes = std::span<const std::byte>(reinterpret_cast<const std::byte*>(framed.data()), 128 + size);

  for (auto image : {bytes, framed_bytes}) {
    auto book = formats::BookFile::from_bytes(image, "fuzz.tbb");
    if (!book.ok()) continue;
    for (const auto& r : book->records()) {
      const auto found = book->lookup(r.key);
      if (found.empty()) __builtin_trap();
    }
    (void)book->lookup(0x463b96181691fc9cULL);
  }

  const auto poly = formats::parse_polyglot_book(bytes, "fuzz.bin");
  const chess::Position start;
  std::size_t checked = 0;
  for (const auto& e : poly.entries) {
    if (poly.lookup(e.key).empty()) __builtin_trap();
    if (checked++ < 64) (void)formats::from_polyglot_move(start, e.move);
  }
  return 0;
}
