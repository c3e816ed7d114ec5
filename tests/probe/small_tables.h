// Small tables generated once per test process into a temporary directory (cheap: 3-piece only,
// plus optional extra materials).
#pragma once

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <tbb/task_arena.h>
#include <unistd.h>

#include "gen/run.h"

namespace tbkit::testing {

// The directories generate_small_tables made, removed when the test process exits.
struct SmallTableDirs {
  std::vector<std::filesystem::path> dirs;
  ~SmallTableDirs() {
    std::error_code ec;
    for (const auto& d : dirs) std::filesystem::remove_all(d, ec);
  }
};

// Generates `materials` (and what they depend on) into a fresh directory under the system temp
// directory, in format version `format_version` (3: one side stored, as `gen --sides one`; 2: both
// sides, the default); returns it. The directory lasts until the process exits. Aborts the test
// run on failure (tests cannot proceed without tables).
inline std::filesystem::path generate_small_tables(const std::vector<std::string>& materials, const std::string& tag,
                                                   std::uint32_t format_version = 3) {
  static SmallTableDirs made;
  const auto dir = std::filesystem::temp_directory_path() / ("tbkit-probe-" + tag + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  made.dirs.push_back(dir);
  std::vector<model::Material> wanted;
  for (const auto& name : materials) wanted.push_back(model::Material::parse(name)->normalized());
  gen::GenOptions opts;
  opts.dir = dir;
  opts.generator = "tbkit tests";
  opts.write.format_version = format_version;
  tbb::task_arena arena(1);  // one thread: only the fixture (gen_table_tests [threads] checks gen on two)
  if (Status st = gen::generate_tables(wanted, opts, arena, {}, {}); !st) {
    std::fprintf(stderr, "cannot generate test tables: %s\n", st.error().message.c_str());
    std::abort();
  }
  return dir;
}

}  // namespace tbkit::testing
