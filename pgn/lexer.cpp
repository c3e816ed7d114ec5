#include "pgn/lexer.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "chess/utf8.h"

namespace tbkit::pgn {
namespace {

enum CharFlags : std::uint8_t { kSpace = 1, kSymbolChar = 2, kTagNameChar = 4, kTagValueStop = 8 };

constexpr std::array<std::uint8_t, 256> make_char_table() {
  std::array<std::uint8_t, 256> t{};
  for (int c : {' ', '\t', '\n', '\r', '\f', '\v'}) t[c] |= kSpace;
  for (int c = '0'; c <= '9'; ++c) t[c] |= kSymbolChar | kTagNameChar;
  for (int c = 'a'; c <= 'z'; ++c) t[c] |= kSymbolChar | kTagNameChar;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] |= kSymbolChar | kTagNameChar;
  t['_'] |= kSymbolChar | kTagNameChar;
  for (int c : {'+', '#', '=', ':', '-', '/', '@'}) t[c] |= kSymbolChar;
  for (int c : {'\n', '"', '\\', '['}) t[c] |= kTagValueStop;
  // UTF-8 and other high bytes join symbols, so a stray "½-½" or a name in the movetext is one token.
  for (int c = 0x80; c < 256; ++c) t[c] |= kSymbolChar;
  return t;
}
constexpr auto kChars = make_char_table();

[[nodiscard]] inline bool has(char c, std::uint8_t flag) { return (kChars[static_cast<unsigned char>(c)] & flag) != 0; }

constexpr std::size_t kSuffixCut = ~std::size_t{0};

// Length of a move suffix glued to a symbol that ends in `last`, at `q`: a promotion piece in
// parentheses after a last-rank square ("a8(Q)") or the en passant mark after an 'e' ("dxc6e.p.",
// and "e.p." on its own). 0 when there is none; kSuffixCut when [q, e) is a proper start of one.
// Neither can be anything else: a variation is never a lone piece letter, and PGN has no other use
// for ".p." after an 'e'.
[[nodiscard]] inline std::size_t glued_suffix(const char* q, const char* e, char last) {
  const bool promotion = last == '8' || last == '1';
  if (!promotion && last != 'e') return 0;
  const std::size_t available = std::size_t(e - q);
  for (std::size_t i = 0; i < 3; ++i) {
    if (i == available) return kSuffixCut;
    const char c = q[i];
    const bool fits = promotion && i == 1 ? std::string_view("QRBNqrbn").find(c) != std::string_view::npos
                                          : c == (promotion ? "(?)" : ".p.")[i];
    if (!fits) return 0;
  }
  return 3;
}

// Characters that move the cursor, end the line or reorder the text on a terminal.
bool is_control(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || cp == 0x061C || cp == 0x200E ||
         cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string printable_token(std::string_view text, std::size_t max_chars) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  std::size_t i = 0;
  for (std::size_t chars = 0; i < text.size() && chars < max_chars; ++chars) {
    char32_t cp = 0;
    const std::size_t n = chess::utf8_sequence(text, i, cp);
    if (n > 0 && !is_control(cp)) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      // One byte at a time: the rest of an escaped sequence is escaped by the next steps.
      const auto b = static_cast<unsigned char>(text[i++]);
      out += "\\x";
      out += kHex[b >> 4];
      out += kHex[b & 15];
    }
  }
  if (i < text.size()) out += "...";
  return out;
}

std::string describe_bad_tag(std::string_view line) {
  std::size_t i = 1;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  const std::size_t name = i;
  while (i < line.size() && has(line[i], kTagNameChar)) ++i;
  if (i == name) return "malformed tag: no tag name after '['";
  const std::string quoted_name = "'" + printable_token(line.substr(name, i - name)) + "'";
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i == line.size() || line[i] != '"') return "malformed tag: tag name " + quoted_name + " is not followed by a quoted value";
  return "malformed tag: the value of " + quoted_name + " has no closing quote followed by ']'";
}

std::uint64_t count_newlines(const char* begin, const char* end) {
  std::uint64_t n = 0;
  const char* p = begin;
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n');
  for (; end - p >= 64; p += 64) {
    const auto eq = [&](int i) {
      return std::uint64_t(unsigned(_mm_movemask_epi8(
          _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i)), nl))));
    };
    n += std::uint64_t(__builtin_popcountll(eq(0) | eq(1) << 16 | eq(2) << 32 | eq(3) << 48));
  }
#endif
  for (; p < end; ++p) n += *p == '\n';
  return n;
}

Lexer::Lexer(formats::InputStream& input, std::size_t buffer_size)
    : input_(&input), storage_(std::max<std::size_t>(buffer_size, 16)) {
  buf_ = storage_.data();
}

Lexer::Lexer(std::string_view text, std::uint64_t base_offset, std::uint64_t base_line)
    : buf_(text.data()), end_(text.size()), base_(base_offset), eof_(true), line_(base_line) {}

bool Lexer::refill(std::size_t keep) {
  if (input_ == nullptr || eof_) {
    eof_ = true;
    return false;
  }
  count_lines_to(keep);
  if (keep > 0) {
    char_before_buf_ = storage_[keep - 1];
    std::memmove(storage_.data(), storage_.data() + keep, end_ - keep);
    end_ -= keep;
    pos_ -= keep;
    counted_ -= keep;
    base_ += keep;
  }
  if (end_ == storage_.size()) storage_.resize(storage_.size() * 2);
  buf_ = storage_.data();
  auto got = input_->read(storage_.data() + end_, storage_.size() - end_);
  if (!got) {
    status_ = got.error();
    eof_ = true;
    return false;
  }
  if (*got == 0) {
    eof_ = true;
    return false;
  }
  end_ += *got;
  return true;
}

void Lexer::count_lines_to(std::size_t pos) {
  if (pos <= counted_) return;
  line_ += count_newlines(buf_ + counted_, buf_ + pos);
  counted_ = pos;
}

std::uint64_t Lexer::line_of(std::uint64_t offset) {
  assert(offset >= base_ + counted_ && offset <= base_ + end_);
  count_lines_to(std::size_t(offset - base_));
  return line_;
}

// Inlined into next(): it runs once per token.
[[gnu::always_inline]] inline bool Lexer::scan(Token& t) {
  const char* p = buf_ + pos_;
  const char* e = buf_ + end_;
  t.offset = base_ + pos_;
  auto finish = [&](TokenKind kind, const char* text_begin, const char* text_end, const char* next) {
    t.kind = kind;
    t.text = std::string_view(text_begin, std::size_t(text_end - text_begin));
    pos_ = std::size_t(next - buf_);
    return true;
  };
  switch (*p) {
    case '{': {
      const void* close = std::memchr(p + 1, '}', std::size_t(e - p - 1));
      if (close != nullptr) {
        const char* q = static_cast<const char*>(close);
        return finish(TokenKind::kComment, p + 1, q, q + 1);
      }
      if (!eof_) return false;
      return finish(TokenKind::kUnterminated, p, e, e);
    }
    case ';': {
      const void* nl = std::memchr(p + 1, '\n', std::size_t(e - p - 1));
      if (nl == nullptr && !eof_) return false;
      const char* q = nl != nullptr ? static_cast<const char*>(nl) : e;
      const char* text_end = (q > p + 1 && q[-1] == '\r') ? q - 1 : q;
      return finish(TokenKind::kComment, p + 1, text_end, q);
    }
    case '[':
      return scan_tag(t);
    case '(':
      return finish(TokenKind::kOpenParen, p, p + 1, p + 1);
    case ')':
      return finish(TokenKind::kCloseParen, p, p + 1, p + 1);
    case '*':
      return finish(TokenKind::kAsterisk, p, p + 1, p + 1);
    case '.':
      return finish(TokenKind::kPeriod, p, p + 1, p + 1);
    case '$': {
      const char* q = p + 1;
      while (q < e && *q >= '0' && *q <= '9') ++q;
      if (q == e && !eof_) return false;
      return finish(TokenKind::kNag, p, q, q);
    }
    case '!':
    case '?': {
      const char* q = p + 1;
      while (q < e && (*q == '!' || *q == '?')) ++q;
      if (q == e && !eof_) return false;
      return finish(TokenKind::kNag, p, q, q);
    }
    default:
      break;
  }
  if (has(*p, kSymbolChar)) {
    const char* q = p + 1;
    while (q < e && has(*q, kSymbolChar)) ++q;
    if (q == e && !eof_) return false;
    if (q < e && ((*q == '(' && (q[-1] == '8' || q[-1] == '1')) || (*q == '.' && q[-1] == 'e'))) [[unlikely]] {
      if (!extend_symbol(q)) return false;
    }
    return finish(TokenKind::kSymbol, p, q, q);
  }
  return finish(TokenKind::kUnknown, p, p + 1, p + 1);
}

bool Lexer::extend_symbol(const char*& q) const {
  const char* e = buf_ + end_;
  for (;;) {
    const std::size_t suffix = glued_suffix(q, e, q[-1]);
    if (suffix == kSuffixCut) return eof_;
    if (suffix == 0) return true;
    q += suffix;
    while (q < e && has(*q, kSymbolChar)) ++q;
    if (q == e && !eof_) return false;
  }
}

// Tags are read a line at a time so that unescaped quotes and brackets inside values survive. A
// quote followed by ']' may close the value: at once if it is not escaped and the line ends after
// the ']' or another tag begins (a strict close). Otherwise the first such quote is kept while the
// scan goes on for a strict close up to the next '[' or the line's end; failing one, the kept quote
// closes the value (an escaped one keeps its backslash) and what follows on the line is movetext.
// The line's end is found as the scan reaches it, and no scan passes a '[' after a possible close,
// so a line of many tags or games takes linear time.
bool Lexer::scan_tag(Token& t) {
  const char* p = buf_ + pos_;
  const char* e = buf_ + end_;
  const auto on_line = [e](const char* r) { return r < e && *r != '\n'; };
  // The whole line from `p` is the token (a tag whose value is open at the input's end is unterminated).
  const auto finish_bad = [&](const char* from, bool value_open) {
    const void* nl = std::memchr(from, '\n', std::size_t(e - from));
    if (nl == nullptr && !eof_) return false;
    const char* line_end = nl != nullptr ? static_cast<const char*>(nl) : e;
    t.kind = value_open && nl == nullptr ? TokenKind::kUnterminated : TokenKind::kBadTag;
    t.text = std::string_view(p, std::size_t(line_end - p));
    pos_ = std::size_t(line_end - buf_);
    return true;
  };
  const char* q = p + 1;
  while (on_line(q) && (*q == ' ' || *q == '\t')) ++q;
  const char* name = q;
  while (on_line(q) && has(*q, kTagNameChar)) ++q;
  const char* name_end = q;
  while (on_line(q) && (*q == ' ' || *q == '\t')) ++q;
  if (q == e && !eof_) return false;
  if (name == name_end || !on_line(q) || *q != '"') return finish_bad(q, false);
  const char* value = q + 1;

  enum class Close { kNone, kLoose, kStrict, kCut };
  // Does the quote at `quote` close the value? `after` gets the position past its ']'.
  const auto classify = [&](const char* quote, const char*& after) {
    const char* r = quote + 1;
    while (on_line(r) && (*r == ' ' || *r == '\t')) ++r;
    if (r == e && !eof_) return Close::kCut;
    if (!on_line(r) || *r != ']') return Close::kNone;
    after = ++r;
    while (on_line(r) && has(*r, kSpace)) ++r;
    if (r == e && !eof_) return Close::kCut;
    return !on_line(r) || *r == '[' ? Close::kStrict : Close::kLoose;
  };
  struct Candidate {
    const char* end = nullptr;
    const char* next = nullptr;
  };
  Candidate close, first;
  const char* r = value;
  while (close.end == nullptr) {
    while (r < e && !has(*r, kTagValueStop)) ++r;
    if (!on_line(r) || (*r == '[' && first.end != nullptr)) break;
    const char* quote = nullptr;
    bool escaped = false;
    if (*r == '\\' && on_line(r + 1)) {
      if (r[1] == '"') quote = r + 1, escaped = true;
      r += 2;
    } else {
      if (*r == '"') quote = r;
      ++r;
    }
    if (quote == nullptr) continue;
    const char* after = nullptr;
    switch (classify(quote, after)) {
      case Close::kCut: return false;
      case Close::kNone: break;
      case Close::kStrict:
        if (!escaped) {
          close = {quote, after};
          break;
        }
        [[fallthrough]];
      case Close::kLoose:
        if (first.end == nullptr) first = {quote, after};
        break;
    }
  }
  if (close.end == nullptr) {
    if (r == e && !eof_) return false;
    close = first;
  }
  if (close.end == nullptr) return finish_bad(r, true);
  t.kind = TokenKind::kTag;
  t.text = std::string_view(name, std::size_t(name_end - name));
  t.value = std::string_view(value, std::size_t(close.end - value));
  t.value_escaped = std::memchr(value, '\\', t.value.size()) != nullptr;
  pos_ = std::size_t(close.next - buf_);
  return true;
}

Token Lexer::next() {
  // One Token object for every return path: it is built in place in the caller (no copy that
  // would reload half-written fields).
  Token t;
  for (;;) {
    if (base_ == 0 && pos_ == 0) [[unlikely]] {
      if (end_ < 3 && !eof_) {
        refill(0);
        continue;
      }
      if (end_ >= 3 && std::memcmp(buf_, "\xEF\xBB\xBF", 3) == 0) pos_ = 3;
    }
    while (pos_ < end_ && has(buf_[pos_], kSpace)) ++pos_;
    if (pos_ == end_) [[unlikely]] {
      if (!refill(pos_)) {
        t.kind = TokenKind::kEnd;
        t.offset = base_ + pos_;
        return t;
      }
      continue;
    }
    if (buf_[pos_] == '%' && (pos_ > 0 ? buf_[pos_ - 1] : char_before_buf_) == '\n') [[unlikely]] {
      // An escape line: ignored up to its end.
      const void* nl = std::memchr(buf_ + pos_, '\n', end_ - pos_);
      if (nl != nullptr) {
        pos_ = std::size_t(static_cast<const char*>(nl) - buf_);
      } else if (eof_) {
        pos_ = end_;
      } else {
        refill(pos_);
      }
      continue;
    }
    if (scan(t)) return t;
    refill(pos_);
  }
}

Token Lexer::next_significant() {
  // Only whole tokens inside the buffer are skipped here; anything else (a token cut by the buffer's
  // end, the stream's start, '%' lines: next() sees the same byte before them) is left to next().
  if (base_ + pos_ > 0) {
    const char* p = buf_ + pos_;
    const char* e = buf_ + end_;
    while (p < e) {
      const char c = *p;
      if (has(c, kSpace) || c == '.') {
        ++p;
      } else if (c == '{') {
        const void* close = std::memchr(p + 1, '}', std::size_t(e - p - 1));
        if (close == nullptr) break;
        p = static_cast<const char*>(close) + 1;
      } else if (has(c, kSymbolChar) && c != '0' && c != '1') {
        const char* q = p + 1;
        while (q < e && has(*q, kSymbolChar)) ++q;
        if (q == e) break;
        p = q;
      } else {
        break;
      }
    }
    pos_ = std::size_t(p - buf_);
  }
  return next();
}

}  // namespace tbkit::pgn
