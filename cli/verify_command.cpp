// tbkit verify: checks table files: block checksums, then every position against its successors.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <thread>

#include "cli/common.h"
#include "formats/table_file.h"
#include "gen/consistency.h"
#include "gen/run.h"

namespace tbkit::cli {
namespace {

struct VerifyOptions {
  std::vector<std::string> paths;
  int threads = 0;
};

// The table files named: files as given, directories expanded to their *.dtm files (sorted).
Result<std::vector<std::filesystem::path>> collect_files(const std::vector<std::string>& paths) {
  std::vector<std::filesystem::path> out;
  for (const auto& p : paths.empty() ? std::vector<std::string>{"."} : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::filesystem::path> found;
      for (const auto& entry : std::filesystem::directory_iterator(p, ec))
        if (entry.path().extension() == gen::kTableExtension) found.push_back(entry.path());
      if (ec) return make_error(ErrorCode::kIo, p + ": cannot list directory: " + ec.message());
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else if (std::filesystem::exists(p, ec)) {
      out.emplace_back(p);
    } else {
      return make_error(ErrorCode::kIo, p + ": no such file or directory");
    }
  }
  return out;
}

// Checks one file; prints its line. Returns true when it passes.
bool verify_file(const std::filesystem::path& path, tbb::task_arena& arena) {
  auto fail = [&](const std::string& why) {
    std::printf("FAIL %s: %s\n", path.string().c_str(), why.c_str());
    std::fflush(stdout);
    return false;
  };
  auto file = formats::TableFile::open(path);
  if (!file) return fail(file.error().message);
  if (Status st = file->verify(); !st) return fail(st.error().message);
  auto material = gen::Material::parse(file->info().material);
  if (!material) return fail("header material: " + material.error().message);
  gen::TableSet tables;
  if (Status st = tables.load(path, *material); !st) return fail(st.error().message);
  for (const gen::Material& dep : material->conversions()) {
    const auto dep_path = gen::table_path(path.parent_path(), dep);
    if (Status st = tables.load(dep_path, dep); !st) return fail("needs " + dep.name() + ": " + st.error().message);
  }
  const auto report = gen::check_consistency(*tables.find(*material), tables, arena);
  if (report.failed)
    return fail(std::to_string(report.failed) + " of " + std::to_string(report.checked) +
                " positions inconsistent; first: " + report.first_failure);
  std::printf("ok   %s: %s, %llu positions consistent\n", path.string().c_str(), material->name().c_str(),
              static_cast<unsigned long long>(report.checked));
  std::fflush(stdout);
  return true;
}

int run_verify(const VerifyOptions& o) {
  auto files = collect_files(o.paths);
  if (!files) return report(files.error());
  if (files->empty()) return report(make_error(ErrorCode::kUnavailable, "verify: no *.dtm table files found"));
  tbb::task_arena arena(o.threads > 0 ? o.threads : int(std::max(1U, std::thread::hardware_concurrency())));
  int passed = 0, failed = 0;
  for (const auto& f : *files) (verify_file(f, arena) ? passed : failed)++;
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? kExitFailed : kExitOk;
}

}  // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<VerifyOptions>();
  auto* cmd = app.add_subcommand("verify", "Check table files: checksums, then every position against its successors");
  cmd->add_option("paths", opts->paths, "Table files or directories of *.dtm files (default: current directory)");
  cmd->add_option("-t,--threads", opts->threads, "Worker threads (default: all cores)")->check(CLI::Range(1, 1024));
  cmd->footer(
      "Each position's stored value must equal the best value over its moves, with captures and\n"
      "promotions looked up in the other tables (which must sit in the same directory).\n"
      "Prints one line per table, then 'N passed, N failed'.\n"
      "Examples:\n"
      "  tbkit verify tables\n"
      "  tbkit verify tables/KQvKR.dtm tables/KBNvK.dtm\n"
      "Exit codes: 0 all passed, 1 a table failed, 3 a path cannot be read, 5 no table files found.");
  cmd->callback([opts, &exit_code] { exit_code = run_verify(*opts); });
}

}  // namespace tbkit::cli
