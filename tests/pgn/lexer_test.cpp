#include <catch2/catch.hpp>

#include "pgn/lexer.h"
#include "tests/pgn/string_input.h"

using namespace tbkit;
using namespace tbkit::pgn;

namespace {

struct Seen {
  TokenKind kind;
  std::string text;
  std::string value;
  std::uint64_t offset;
  std::uint64_t line;
  friend bool operator==(const Seen&, const Seen&) = default;
};

std::vector<Seen> lex_all(Lexer& lx) {
  std::vector<Seen> out;
  for (;;) {
    const Token t = lx.next();
    out.push_back({t.kind, std::string(t.text), std::string(t.value), t.offset, lx.line_of(t.offset)});
    if (t.kind == TokenKind::kEnd) return out;
  }
}

std::vector<Seen> lex_memory(const std::string& text) {
  Lexer lx(text, 0, 1);
  return lex_all(lx);
}

std::vector<Seen> lex_stream(const std::string& text, std::size_t buffer, std::size_t step) {
  test::StringInput in(text, step);
  Lexer lx(in, buffer);
  return lex_all(lx);
}

const std::string kSample =
    "\xEF\xBB\xBF[Event \"A \\\"quoted\\\" \\\\ name\"]\r\n[Site \"x\"] [Round \"1\"]\r\n\r\n"
    "% an escape line ( { [\r\n"
    "{a comment\r\nover lines} 1. e4 $1 e5!? 2.Nf3 ; rest of line {not a comment}\n"
    "2... Nc6 (2... d6 3. d4 (3. Bc4)) 3. Bb5 -- 4. Z0 O-O-O e8=Q+ 1/2-1/2\n"
    "* 1-0 0-1 <> , [Bad tag] x%y\n[Last \"no final newline\"]";

}  // namespace

TEST_CASE("lexer: token kinds", "[pgn][lexer]") {
  auto toks = lex_memory(kSample);
  std::vector<TokenKind> kinds;
  std::vector<std::string> texts;
  for (const auto& t : toks) {
    kinds.push_back(t.kind);
    texts.push_back(t.text);
  }
  REQUIRE(toks.size() > 10);
  CHECK(toks[0].kind == TokenKind::kTag);
  CHECK(toks[0].text == "Event");
  CHECK(toks[0].value == "A \\\"quoted\\\" \\\\ name");
  CHECK(toks[0].offset == 3);  // after the BOM
  CHECK(toks[1].text == "Site");
  CHECK(toks[2].text == "Round");
  CHECK(toks[2].line == 2);
  CHECK(toks[3].kind == TokenKind::kComment);
  CHECK(toks[3].text == "a comment\r\nover lines");
  CHECK(toks[3].line == 5);
  // The escape line produced nothing; ';' comments run to the end of the line.
  const auto semi = std::find_if(toks.begin(), toks.end(), [](const Seen& s) { return s.text == " rest of line {not a comment}"; });
  REQUIRE(semi != toks.end());
  CHECK(semi->kind == TokenKind::kComment);
  CHECK(std::count(kinds.begin(), kinds.end(), TokenKind::kNag) == 2);  // $1 and !?
  CHECK(std::count(texts.begin(), texts.end(), "--") == 1);
  CHECK(std::count(texts.begin(), texts.end(), "Z0") == 1);
  CHECK(std::count(texts.begin(), texts.end(), "e8=Q+") == 1);
  CHECK(std::count(texts.begin(), texts.end(), "1/2-1/2") == 1);
  CHECK(std::count(kinds.begin(), kinds.end(), TokenKind::kOpenParen) == 2);
  CHECK(std::count(kinds.begin(), kinds.end(), TokenKind::kCloseParen) == 2);
  CHECK(std::count(kinds.begin(), kinds.end(), TokenKind::kAsterisk) == 1);
  CHECK(std::count(kinds.begin(), kinds.end(), TokenKind::kBadTag) == 1);
  CHECK(std::count(kinds.begin(), kinds.end(), TokenKind::kUnknown) >= 3);  // < > , %
  CHECK(toks[toks.size() - 2].kind == TokenKind::kTag);
  CHECK(toks[toks.size() - 2].value == "no final newline");
  CHECK(toks.back().kind == TokenKind::kEnd);
}

TEST_CASE("lexer: tokens straddling buffer refills come out the same", "[pgn][lexer]") {
  const auto expected = lex_memory(kSample);
  for (std::size_t buffer = 1; buffer <= 40; ++buffer) {
    for (std::size_t step : {std::size_t{1}, std::size_t{3}, std::size_t{4096}}) {
      INFO("buffer " << buffer << " step " << step);
      CHECK(lex_stream(kSample, buffer, step) == expected);
    }
  }
}

TEST_CASE("lexer: tokens of any length", "[pgn][lexer]") {
  const std::string comment(3'000'000, 'c');
  const std::string symbol(200'000, 'N');
  const std::string value(100'000, 'v');
  const std::string text = "[Long \"" + value + "\"]\n{" + comment + "} " + symbol + " ;" + comment + "\n*";
  for (std::size_t buffer : {std::size_t{64}, std::size_t{1} << 20}) {
    auto toks = lex_stream(text, buffer, 1 << 16);
    REQUIRE(toks.size() == 6);
    CHECK(toks[0].value.size() == value.size());
    CHECK(toks[1].kind == TokenKind::kComment);
    CHECK(toks[1].text.size() == comment.size());
    CHECK(toks[2].text.size() == symbol.size());
    CHECK(toks[3].text.size() == comment.size());
    CHECK(toks[4].kind == TokenKind::kAsterisk);
    CHECK(toks[4].line == 3);
  }
}

TEST_CASE("lexer: unterminated comment and tag at the end", "[pgn][lexer]") {
  auto a = lex_memory("1. e4 {never closed");
  CHECK(a[a.size() - 2].kind == TokenKind::kUnterminated);
  auto b = lex_stream("1. e4 {never closed", 4, 2);
  CHECK(b == a);
  auto c = lex_memory("[Event \"open");
  CHECK(c[0].kind == TokenKind::kUnterminated);
}

TEST_CASE("lexer: glued promotions and e.p. marks, movetext after a tag, across refills", "[pgn][lexer]") {
  const std::string text =
      "[Event \"a\"] [Result \"1-0\"] 1. e4 {c}\n[Site \"s\"]\t*\r\n"
      "1. a8(Q) b1(n)+ exd6e.p. exd6 e.p. e4(e5) a8 (Q) a8(K) a1(";
  const auto expected = lex_memory(text);
  std::vector<std::pair<TokenKind, std::string>> got;
  for (const auto& t : expected) got.emplace_back(t.kind, t.kind == TokenKind::kTag ? t.text + "=" + t.value : t.text);
  using K = TokenKind;
  CHECK(got == std::vector<std::pair<TokenKind, std::string>>{
                   {K::kTag, "Event=a"}, {K::kTag, "Result=1-0"}, {K::kSymbol, "1"}, {K::kPeriod, "."},
                   {K::kSymbol, "e4"}, {K::kComment, "c"}, {K::kTag, "Site=s"}, {K::kAsterisk, "*"},
                   {K::kSymbol, "1"}, {K::kPeriod, "."}, {K::kSymbol, "a8(Q)"}, {K::kSymbol, "b1(n)+"},
                   {K::kSymbol, "exd6e.p."}, {K::kSymbol, "exd6"}, {K::kSymbol, "e.p."}, {K::kSymbol, "e4"},
                   {K::kOpenParen, "("}, {K::kSymbol, "e5"}, {K::kCloseParen, ")"}, {K::kSymbol, "a8"},
                   {K::kOpenParen, "("}, {K::kSymbol, "Q"}, {K::kCloseParen, ")"}, {K::kSymbol, "a8"},
                   {K::kOpenParen, "("}, {K::kSymbol, "K"}, {K::kCloseParen, ")"}, {K::kSymbol, "a1"},
                   {K::kOpenParen, "("}, {K::kEnd, ""}});
  for (std::size_t buffer = 1; buffer <= 40; ++buffer) {
    for (std::size_t step : {std::size_t{1}, std::size_t{3}, std::size_t{4096}}) {
      INFO("buffer " << buffer << " step " << step);
      CHECK(lex_stream(text, buffer, step) == expected);
    }
  }
}

TEST_CASE("lexer: tag lines that are not tags", "[pgn][lexer]") {
  CHECK(lex_memory("[Event \"a\" 1. e4\n")[0].kind == TokenKind::kBadTag);
  CHECK(lex_memory("[Event \"a\" 1. e4\n")[0].text == "[Event \"a\" 1. e4");
  CHECK(lex_memory("[Event \"open\"\n*")[0].kind == TokenKind::kBadTag);
  CHECK(lex_memory("[Event a]")[0].kind == TokenKind::kBadTag);
  CHECK(lex_memory("[Event \"open\"")[0].kind == TokenKind::kUnterminated);
  // Only an escaped quote closes the value: it keeps its backslash, with movetext after it too.
  CHECK(lex_memory("[Event \"T \\\"]\n")[0].value == "T \\");
  CHECK(lex_memory("[Event \"T \\\"] 1. e4")[0].value == "T \\");
  // Tags with movetext after them on one line: a later strict close does not reach back past a '['.
  const auto toks = lex_memory("[A \"1\"] x [B \"2\"] y [C \"3\"\"] z [D \"4\"]");
  std::vector<std::string> tags;
  for (const auto& t : toks)
    if (t.kind == TokenKind::kTag) tags.push_back(t.text + "=" + t.value);
  CHECK(tags == std::vector<std::string>{"A=1", "B=2", "C=3\"", "D=4"});
}

TEST_CASE("printable_token: escapes control characters and bad UTF-8, caps the length", "[pgn][lexer]") {
  CHECK(printable_token("Nf3") == "Nf3");
  CHECK(printable_token("") == "");
  // Valid UTF-8 stays: a name, a stray draw, a piece, an emoji.
  for (const char* kept : {"M\xC3\xBCller", "\xC2\xBD-\xC2\xBD", "\xE2\x99\x94", "\xF0\x9F\x98\x80"}) CHECK(printable_token(kept) == kept);
  CHECK(printable_token("\x01\x1B[31m") == "\\x01\\x1B[31m");
  CHECK(printable_token("a\nb\r\tc\x7F") == "a\\x0Ab\\x0D\\x09c\\x7F");
  CHECK(printable_token("\xFF\xFE") == "\\xFF\\xFE");
  CHECK(printable_token("\xC0\x80") == "\\xC0\\x80");                  // overlong
  CHECK(printable_token("\xED\xA0\x80") == "\\xED\\xA0\\x80");         // surrogate
  CHECK(printable_token("\xF4\x90\x80\x80") == "\\xF4\\x90\\x80\\x80");  // past U+10FFFF
  CHECK(printable_token("e4\xE2\x99") == "e4\\xE2\\x99");              // cut short
  CHECK(printable_token("\xC2\x85") == "\\xC2\\x85");                  // C1 control (NEL)
  CHECK(printable_token("a\xE2\x80\xA8" "b") == "a\\xE2\\x80\\xA8b");  // line separator
  CHECK(printable_token("\xE2\x80\xAE" "cba") == "\\xE2\\x80\\xAE" "cba");  // right-to-left override
  // At most 40 characters, each UTF-8 character or escaped byte counting one.
  CHECK(printable_token(std::string(40, 'N')) == std::string(40, 'N'));
  CHECK(printable_token(std::string(41, 'N')) == std::string(40, 'N') + "...");
  std::string halves, shown_halves;
  for (int i = 0; i < 45; ++i) halves += "\xC2\xBD";
  for (int i = 0; i < 40; ++i) shown_halves += "\xC2\xBD";
  CHECK(printable_token(halves) == shown_halves + "...");
  std::string escapes;
  for (int i = 0; i < 40; ++i) escapes += "\\x00";
  CHECK(printable_token(std::string(50, '\0')) == escapes + "...");
  CHECK(printable_token("abcdef", 3) == "abc...");
}
