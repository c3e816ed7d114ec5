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
