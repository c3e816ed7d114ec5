#include "chess/perft_suite.h"

#include <sstream>

namespace tbkit::chess {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool parse_u64(const std::string& s, std::uint64_t& out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 19) return false;
  out = std::stoull(s);
  return true;
}

}  // namespace

Result<std::vector<PerftCase>> parse_perft_suite(std::istream& in, const std::string& source_name) {
  std::vector<PerftCase> cases;
  std::string raw;
  int line_no = 0;
  std::string pending_id;
  auto bad = [&](const std::string& msg) {
    return make_error(ErrorCode::kInvalidArgument, source_name + ":" + std::to_string(line_no) + ": " + msg);
  };
  while (std::getline(in, raw)) {
    ++line_no;
    const std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("id ", 0) == 0) {
      pending_id = trim(line.substr(3));
      continue;
    }
    if (line.rfind("epd ", 0) == 0) {
      PerftCase c;
      c.name = pending_id.empty() ? "line " + std::to_string(line_no) : pending_id;
      c.fen = trim(line.substr(4));
      c.line = line_no;
      cases.push_back(std::move(c));
      pending_id.clear();
      continue;
    }
    if (line.rfind("perft ", 0) == 0) {
      if (cases.empty()) return bad("'perft' line before any 'epd' line");
      std::istringstream ss(line.substr(6));
      std::string d, n;
      std::uint64_t depth = 0, nodes = 0;
      if (!(ss >> d >> n) || !parse_u64(d, depth) || !parse_u64(n, nodes) || depth == 0 || depth > 20)
        return bad("expected 'perft DEPTH NODES'");
      cases.back().expected.emplace_back(int(depth), nodes);
      continue;
    }
    // EPD with ;Dn counts.
    const auto semi = line.find(';');
    if (semi == std::string::npos) return bad("expected 'FEN ;D1 N ...', 'id', 'epd' or 'perft'");
    PerftCase c;
    c.name = "line " + std::to_string(line_no);
    c.fen = trim(line.substr(0, semi));
    c.line = line_no;
    std::istringstream fields(line.substr(semi));
    std::string field;
    while (std::getline(fields, field, ';')) {
      field = trim(field);
      if (field.empty()) continue;
      std::istringstream ss(field);
      std::string d, n;
      std::uint64_t depth = 0, nodes = 0;
      if (!(ss >> d >> n) || d.size() < 2 || d[0] != 'D' || !parse_u64(d.substr(1), depth) || !parse_u64(n, nodes) ||
          depth == 0 || depth > 20)
        return bad("bad perft field '" + field + "' (expected 'Dn COUNT')");
      c.expected.emplace_back(int(depth), nodes);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace tbkit::chess
