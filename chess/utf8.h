// UTF-8 well-formedness, for text that quotes user input (diagnostics, JSON).
#pragma once

#include <cstddef>
#include <string_view>

namespace tbkit::chess {

// The length (1-4) of the well-formed UTF-8 sequence at text[i], with its code point in `cp`; 0 if
// the bytes there are not one: a stray continuation byte, a sequence cut short, an overlong form, a
// UTF-16 surrogate or a code point beyond U+10FFFF. Precondition: i < text.size().
[[nodiscard]] inline std::size_t utf8_sequence(std::string_view text, std::size_t i, char32_t& cp) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned lead = byte(i);
  if (lead < 0x80) {
    cp = lead;
    return 1;
  }
  std::size_t n = 0;
  char32_t least = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2, cp = lead & 0x1F, least = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3, cp = lead & 0x0F, least = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4, cp = lead & 0x07, least = 0x10000;
  } else {
    return 0;
  }
  if (text.size() - i < n) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (byte(i + k) & 0x3F);
  }
  if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace tbkit::chess
