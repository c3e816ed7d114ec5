#include "tests/cli/cli_runner.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tbkit::testing {
namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

CommandResult run_tbkit(const std::string& args, const std::string& input) {
  const char* binary = std::getenv("TBKIT_BINARY");
  if (!binary) throw std::runtime_error("TBKIT_BINARY is not set (run through ctest)");
  char dir_template[] = "/tmp/tbkit-cli-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir) throw std::runtime_error("mkdtemp failed");
  const std::filesystem::path base(dir);
  {
    std::ofstream in(base / "stdin", std::ios::binary);
    in << input;
  }
  const std::string cmd = "'" + std::string(binary) + "' " + args + " <'" + (base / "stdin").string() + "' >'" +
                          (base / "stdout").string() + "' 2>'" + (base / "stderr").string() + "'";
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(base / "stdout");
  r.err = read_file(base / "stderr");
  std::filesystem::remove_all(base);
  return r;
}

}  // namespace tbkit::testing
