// The dependency order of docs/design.md ("Layers"), checked on every source: a layer's files
// include headers only of the layers the table lists for it, and third-party headers only where
// it names them.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Rule {
  std::set<std::string> layers;       // project folders it may include
  std::set<std::string> third_party;  // libraries it may include
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::set<std::string> split_names(const std::string& cell) {
  std::set<std::string> out;
  std::stringstream in(cell);
  std::string word;
  while (std::getline(in, word, ',')) {
    const auto first = word.find_first_not_of(" `");
    if (first == std::string::npos) continue;
    const auto last = word.find_last_not_of(" `");
    out.insert(word.substr(first, last - first + 1));
  }
  return out;
}

// The table under "## Layers": `| `folder/` | a, b | lib, lib |` rows, by folder name.
std::map<std::string, Rule> read_rules(const std::string& design) {
  std::map<std::string, Rule> rules;
  const auto start = design.find("\n## Layers\n");
  if (start == std::string::npos) return rules;
  const auto end = design.find("\n## ", start + 1);
  std::stringstream section(design.substr(start, end - start));
  static const std::regex row(R"(^\| `([a-z]+)/` \|([^|]*)\|([^|]*)\|\s*$)");
  std::string line;
  std::smatch m;
  while (std::getline(section, line))
    if (std::regex_match(line, m, row)) rules[m[1]] = Rule{split_names(m[2]), split_names(m[3])};
  return rules;
}

// The library a third-party header belongs to; empty for the standard library and POSIX.
std::string library_of(const std::string& header) {
  static const std::vector<std::pair<std::string, std::string>> kPrefixes = {
      {"tbb/", "tbb"},     {"oneapi/", "tbb"},   {"CLI/", "CLI11"},       {"zstd.h", "zstd"},
      {"zdict.h", "zstd"}, {"lzma.h", "lzma"},   {"catch2/", "Catch2"},   {"mpi.h", "MPI"},
      {"httplib.h", "httplib"}, {"gtb-probe.h", "gaviota"}};
  for (const auto& [prefix, lib] : kPrefixes)
    if (header.rfind(prefix, 0) == 0) return lib;
  return {};
}

struct Include {
  std::string header;
  bool quoted;
  int line;
};

std::vector<Include> includes_of(const fs::path& path) {
  std::vector<Include> out;
  std::stringstream in(read_text(path));
  static const std::regex inc(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  std::string line;
  std::smatch m;
  for (int n = 1; std::getline(in, line); ++n)
    if (std::regex_search(line, m, inc)) out.push_back({m[2], m[1] == "\"", n});
  return out;
}

// Every violation in `folder`'s sources, one line each; counts what was read.
std::vector<std::string> check_folder(const fs::path& root, const std::string& folder, const Rule& rule,
                                      std::size_t& files, std::size_t& includes) {
  std::vector<std::string> bad;
  for (const auto& e : fs::recursive_directory_iterator(root / folder)) {
    const auto ext = e.path().extension();
    if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".inl" && ext != ".c")) continue;
    ++files;
    for (const Include& inc : includes_of(e.path())) {
      ++includes;
      const std::string where = fs::relative(e.path(), root).string() + ":" + std::to_string(inc.line) + ": ";
      if (inc.quoted) {
        const auto slash = inc.header.find('/');
        const std::string layer = slash == std::string::npos ? "" : inc.header.substr(0, slash);
        if (!rule.layers.contains(layer)) bad.push_back(where + "\"" + inc.header + "\": " + folder + "/ may not include " + layer + "/");
      } else if (const std::string lib = library_of(inc.header); !lib.empty() && !rule.third_party.contains(lib)) {
        bad.push_back(where + "<" + inc.header + ">: " + folder + "/ may not use " + lib);
      }
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("every source includes only what docs/design.md lets its layer include", "[layers]") {
  const fs::path root = TBKIT_SOURCE_DIR;
  const auto rules = read_rules(read_text(root / "docs/design.md"));
  // The table names every library folder (a new folder must be placed in it).
  for (const char* folder : {"chess", "formats", "model", "gen", "pgn", "probe", "player", "cli"}) {
    INFO(folder);
    REQUIRE(rules.contains(folder));
  }
  for (const auto& e : fs::directory_iterator(root)) {
    if (!e.is_directory() || !fs::exists(e.path() / "CMakeLists.txt")) continue;
    const std::string name = e.path().filename().string();
    if (name == "tests" || name == "build" || name.starts_with(".")) continue;
    INFO("folder " << name << "/ has a CMakeLists.txt but no row in docs/design.md's Layers table");
    CHECK(rules.contains(name));
  }
  // The rule that matters most to engines: the probe library holds no generator code.
  REQUIRE_FALSE(rules.at("probe").layers.contains("gen"));
  REQUIRE_FALSE(rules.at("probe").third_party.contains("tbb"));

  std::size_t files = 0, includes = 0;
  std::vector<std::string> bad;
  for (const auto& [folder, rule] : rules) {
    std::size_t folder_files = 0;
    auto found = check_folder(root, folder, rule, folder_files, includes);
    INFO(folder);
    CHECK(folder_files > 0);
    files += folder_files;
    bad.insert(bad.end(), found.begin(), found.end());
  }
  std::string report;
  for (const auto& b : bad) report += b + "\n";
  INFO(report);
  CHECK(bad.empty());
  // What was read: a scan that found nothing would pass the check above.
  CHECK(files >= 100);
  CHECK(includes >= 700);
}

TEST_CASE("the layers check finds a probe source that includes a generator header", "[layers]") {
  // The same check on a scratch tree holding one offending file (and the rule that forbids it).
  const fs::path dir = fs::temp_directory_path() / "tbkit-layers-test";
  fs::remove_all(dir);
  fs::create_directories(dir / "probe");
  std::ofstream(dir / "probe" / "bad.cpp") << "#include \"probe/tablebase.h\"\n#include \"gen/solver.h\"\n#include <tbb/task_arena.h>\n#include <vector>\n";
  const auto rules = read_rules("x\n## Layers\n\n| `probe/` | chess, formats, model, probe | |\n\n## Next\n");
  REQUIRE(rules.contains("probe"));
  std::size_t files = 0, includes = 0;
  const auto bad = check_folder(dir, "probe", rules.at("probe"), files, includes);
  fs::remove_all(dir);
  CHECK(files == 1);
  CHECK(includes == 4);
  REQUIRE(bad.size() == 2);
  CHECK(bad[0] == "probe/bad.cpp:2: \"gen/solver.h\": probe/ may not include gen/");
  CHECK(bad[1] == "probe/bad.cpp:3: <tbb/task_arena.h>: probe/ may not use tbb");
}
