// PGN tokenizer over a large buffer: tokens are string_views into the buffer (no allocation per
// token), valid until the next call to next(). Tokens may straddle refills and be of any length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chess/result.h"
#include "formats/zstd_stream.h"

namespace tbkit::pgn {

enum class TokenKind : std::uint8_t {
  kEnd,           // end of input (or a read error: see Lexer::status())
  kTag,           // [Name "value"]: name in `text`, raw value (escapes not undone) in `value`
  kSymbol,        // SAN, move number digits, result, null move: [A-Za-z0-9_+#=:/@-] and bytes >= 0x80,
                  // with a glued promotion "(Q)" after a last-rank square or "e.p." after an 'e'
  kPeriod,        // one or more '.'
  kAsterisk,      // '*'
  kOpenParen,     // '('
  kCloseParen,    // ')'
  kNag,           // $n, or a run of '!' and '?'
  kComment,       // {text} or ;text (text without the delimiters)
  kUnterminated,  // a {comment or a [tag that the input ends inside
  kBadTag,        // a '[' line that is not [Name "value"]
  kUnknown,       // any other byte
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;
  std::string_view value;   // kTag only
  bool value_escaped = false;  // kTag: the value contains a backslash
  std::uint64_t offset = 0;    // of the token's first byte in the stream
};

// Number of '\n' bytes in [begin, end); SIMD where the target has SSE2.
[[nodiscard]] std::uint64_t count_newlines(const char* begin, const char* end);

// `text` made safe to quote in a one-line diagnostic: control characters (C0, DEL, C1), line and
// paragraph separators, bidirectional controls and bytes that are not valid UTF-8 become \xNN (one
// escape per byte); valid UTF-8 otherwise stays as it is. At most `max_chars` characters (a UTF-8
// character or an escaped byte each) are kept; "..." marks a cut. Thread-safe.
[[nodiscard]] std::string printable_token(std::string_view text, std::size_t max_chars = 40);

// Why a kBadTag token (a '[' line) is not a tag pair, by the lexer's own rules: "malformed tag: "
// and no tag name after '[', a name not followed by a quoted value, or a value with no closing
// quote followed by ']'. The name is quoted printable.
[[nodiscard]] std::string describe_bad_tag(std::string_view line);

class Lexer {
 public:
  // Streams from `input`, reading `buffer_size` bytes at a time (the buffer grows for longer tokens).
  Lexer(formats::InputStream& input, std::size_t buffer_size);
  // Tokenizes bytes in memory without copying; offsets and lines continue from the given bases.
  Lexer(std::string_view text, std::uint64_t base_offset, std::uint64_t base_line);

  // The next token. %-escape lines and whitespace are skipped; a UTF-8 BOM at offset 0 is skipped.
  [[nodiscard]] Token next();
  // Like next(), but first skips what a parser that no longer resolves moves ignores anyway: symbols
  // that cannot be a result (not starting with '0' or '1'), periods and complete {comments}. Every
  // other token comes as from next(), so game ends, variations and errors are found the same way.
  [[nodiscard]] Token next_significant();
  // Makes the next call to next() return `token` again (it must be the last token returned).
  void unread(const Token& token) { pos_ = std::size_t(token.offset - base_); }
  // 1-based line of a stream offset; offsets must not decrease between calls and must not be
  // older than the last token returned.
  [[nodiscard]] std::uint64_t line_of(std::uint64_t offset);
  // Ok, or the read error that ended the input early.
  [[nodiscard]] const Status& status() const { return status_; }
  // Bytes consumed from the stream so far.
  [[nodiscard]] std::uint64_t bytes() const { return base_ + pos_; }

 private:
  // Moves bytes from `keep` on to the front, reads more; false when nothing more can be read.
  bool refill(std::size_t keep);
  // Scans one token starting at pos_ (not whitespace); returns false if the buffer ends first.
  bool scan(Token& t);
  bool scan_tag(Token& t);
  // Moves `q`, the end of a symbol followed by what may start a glued suffix, past the suffixes
  // ("a8(Q)", "dxc6e.p.") and the symbol characters after them; false if the buffer ends first.
  [[nodiscard]] bool extend_symbol(const char*& q) const;
  void count_lines_to(std::size_t pos);

  formats::InputStream* input_ = nullptr;
  std::vector<char> storage_;
  const char* buf_ = nullptr;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  std::uint64_t base_ = 0;  // stream offset of buf_[0]
  bool eof_ = false;
  char char_before_buf_ = '\n';
  std::size_t counted_ = 0;  // buffer position up to which lines are counted
  std::uint64_t line_ = 1;   // line at buffer position counted_
  Status status_;
};

}  // namespace tbkit::pgn
