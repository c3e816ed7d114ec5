#include "pgn/lexer.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tbkit::pgn {
namespace {

enum CharFlags : std::uint8_t { kSpace = 1, kSymbolChar = 2, kTagNameChar = 4 };

constexpr std::array<std::uint8_t, 256> make_char_table() {
  std::array<std::uint8_t, 256> t{};
  for (int c : {' ', '\t', '\n', '\r', '\f', '\v'}) t[c] |= kSpace;
  for (int c = '0'; c <= '9'; ++c) t[c] |= kSymbolChar | kTagNameChar;
  for (int c = 'a'; c <= 'z'; ++c) t[c] |= kSymbolChar | kTagNameChar;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] |= kSymbolChar | kTagNameChar;
  t['_'] |= kSymbolChar | kTagNameChar;
  for (int c : {'+', '#', '=', ':', '-', '/', '@'}) t[c] |= kSymbolChar;
  // UTF-8 and other high bytes join symbols, so a stray "½-½" or a name in the movetext is one token.
  for (int c = 0x80; c < 256; ++c) t[c] |= kSymbolChar;
  return t;
}
constexpr auto kChars = make_char_table();

[[nodiscard]] inline bool has(char c, std::uint8_t flag) { return (kChars[static_cast<unsigned char>(c)] & flag) != 0; }

}  // namespace

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
    return finish(TokenKind::kSymbol, p, q, q);
  }
  return finish(TokenKind::kUnknown, p, p + 1, p + 1);
}

// Tags are read a line at a time so that unescaped quotes and brackets inside values survive:
// the value ends at the first quote followed by ']' and then the line's end or another tag.
bool Lexer::scan_tag(Token& t) {
  const char* p = buf_ + pos_;
  const char* e = buf_ + end_;
  const void* nl = std::memchr(p, '\n', std::size_t(e - p));
  if (nl == nullptr && !eof_) return false;
  const char* line_end = nl != nullptr ? static_cast<const char*>(nl) : e;
  auto bad = [&](TokenKind kind) {
    t.kind = kind;
    t.text = std::string_view(p, std::size_t(line_end - p));
    pos_ = std::size_t(line_end - buf_);
    return true;
  };
  const char* q = p + 1;
  while (q < line_end && (*q == ' ' || *q == '\t')) ++q;
  const char* name = q;
  while (q < line_end && has(*q, kTagNameChar)) ++q;
  const char* name_end = q;
  while (q < line_end && (*q == ' ' || *q == '\t')) ++q;
  if (name == name_end || q == line_end || *q != '"') return bad(TokenKind::kBadTag);
  const char* value = q + 1;
  auto closes = [&](const char* quote) -> const char* {
    const char* r = quote + 1;
    while (r < line_end && (*r == ' ' || *r == '\t')) ++r;
    if (r == line_end || *r != ']') return nullptr;
    const char* after = ++r;
    while (r < line_end && has(*r, kSpace)) ++r;
    return (r == line_end || *r == '[') ? after : nullptr;
  };
  const char* value_end = nullptr;
  const char* next = nullptr;
  const char* escaped_end = nullptr;
  const char* escaped_next = nullptr;
  bool any_backslash = false;
  for (const char* r = value; r < line_end; ++r) {
    if (*r == '\\') {
      any_backslash = true;
      if (r + 1 < line_end && r[1] == '"' && escaped_end == nullptr) {
        if (const char* after = closes(r + 1)) {
          escaped_end = r + 1;
          escaped_next = after;
        }
      }
      ++r;
      continue;
    }
    if (*r == '"') {
      if (const char* after = closes(r)) {
        value_end = r;
        next = after;
        break;
      }
    }
  }
  if (value_end == nullptr) {
    // Only an escaped quote closes it, as in [Event "Tournament \"]: the backslash is literal.
    if (escaped_end == nullptr) return bad(eof_ && nl == nullptr ? TokenKind::kUnterminated : TokenKind::kBadTag);
    value_end = escaped_end;
    next = escaped_next;
  }
  t.kind = TokenKind::kTag;
  t.text = std::string_view(name, std::size_t(name_end - name));
  t.value = std::string_view(value, std::size_t(value_end - value));
  t.value_escaped = any_backslash;
  pos_ = std::size_t(next - buf_);
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
