// Interrupted commands leave no NAME.tmp behind (cli/interrupt.h). The gen case, with every kind of
// signal at many points of a run, is in tests/gen/gen_cli_test.cpp; this covers book build and merge.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli/cli_runner.h"

namespace {

std::filesystem::path scratch(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("tbkit-interrupt-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// What is left under `dir`, for the failure message of a check that it is empty.
std::string listing(const std::filesystem::path& dir) {
  std::string out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::end(it); it.increment(ec))
    out += it->path().string() + "\n";
  return out;
}

pid_t spawn_tbkit(std::vector<std::string> args, int stdin_fd = -1, int close_fd = -1, const std::string& tmpdir = {}) {
  const pid_t pid = tbkit::testing::spawn_tbkit(std::move(args), stdin_fd, close_fd, tmpdir);
  REQUIRE(pid > 0);
  return pid;
}

// The output's NAME.tmp is made a FIFO: opening it for writing blocks until a reader comes, which
// never happens, so the command is held exactly where it writes its output. After the signal the
// FIFO must be gone (the handler unlinked it) and the process must have died of that signal.
void interrupt_while_writing(const std::vector<std::string>& args, const std::filesystem::path& tmp, int sig) {
  REQUIRE(::mkfifo(tmp.c_str(), 0600) == 0);
  const pid_t pid = spawn_tbkit(args);
  int status = 0;
  pid_t ended = 0;
  // The command cannot finish while the FIFO has no reader; give it time to get there.
  for (int i = 0; i < 50 && ended == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ended = ::waitpid(pid, &status, WNOHANG);
  }
  INFO("the command ended before the signal with status " << status);
  REQUIRE(ended == 0);
  ::kill(pid, sig);
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == sig);
  CHECK_FALSE(std::filesystem::exists(std::filesystem::symlink_status(tmp)));
}

}  // namespace

TEST_CASE("book build interrupted while writing leaves no tmp file", "[cli][book]") {
  const auto dir = scratch("build");
  const std::string pgn = std::string(TBKIT_DATA_DIR) + "/pgn/small.pgn";
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    INFO("signal " << sig);
    interrupt_while_writing({"book", "build", pgn, "-q", "-t", "1", "-o", (dir / "out.tbb").string()},
                            dir / "out.tbb.tmp", sig);
    CHECK_FALSE(std::filesystem::exists(dir / "out.tbb"));
  }
  // The Polyglot output is guarded the same way.
  interrupt_while_writing({"book", "build", pgn, "-q", "-o", (dir / "out.tbb").string(), "--polyglot",
                           (dir / "out.bin").string()},
                          dir / "out.bin.tmp", SIGINT);
  std::filesystem::remove_all(dir);
}

TEST_CASE("book merge interrupted while writing leaves no tmp file", "[cli][book]") {
  const auto dir = scratch("merge");
  const std::string pgn = std::string(TBKIT_DATA_DIR) + "/pgn/small.pgn";
  const std::string book = (dir / "a.tbb").string();
  const std::string cmd = std::string(std::getenv("TBKIT_BINARY")) + " book build -q '" + pgn + "' -o '" + book + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  interrupt_while_writing({"book", "merge", book, book, "-o", (dir / "c.tbb").string()}, dir / "c.tbb.tmp", SIGTERM);
  CHECK_FALSE(std::filesystem::exists(dir / "c.tbb"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("book build interrupted while reading leaves no spill directory", "[cli][book]") {
  const auto dir = scratch("spill");
  const auto temp = dir / "temp";
  std::filesystem::create_directories(temp);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  // Reads a PGN from a pipe that stays open, so the build waits in the middle of its input.
  const pid_t pid = spawn_tbkit({"book", "build", "-", "-q", "--memory", "16M", "--temp-dir", temp.string(), "-o",
                                 (dir / "out.tbb").string()},
                                fds[0], fds[1]);
  ::close(fds[0]);
  const std::string game = "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n";
  for (int i = 0; i < 200; ++i) REQUIRE(::write(fds[1], game.data(), game.size()) == ssize_t(game.size()));
  // The build makes its private spill directory under --temp-dir before reading.
  bool made = false;
  for (int i = 0; i < 500 && !made; ++i) {
    made = !std::filesystem::is_empty(temp);
    if (!made) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(made);
  ::kill(pid, SIGINT);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  ::close(fds[1]);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  INFO("left behind:\n" << listing(temp));
  CHECK(std::filesystem::is_empty(temp));
  CHECK_FALSE(std::filesystem::exists(dir / "out.tbb.tmp"));
  CHECK_FALSE(std::filesystem::exists(dir / "out.tbb"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("bench interrupted leaves no scratch directory", "[cli]") {
  const auto dir = scratch("bench");
  // The bench makes its scratch directory under TMPDIR, after the perft and search parts (seconds;
  // minutes under the sanitizers).
  const pid_t pid = spawn_tbkit({"bench"}, -1, -1, dir.string());
  bool made = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  while (!made && std::chrono::steady_clock::now() < deadline) {
    made = !std::filesystem::is_empty(dir);
    if (!made) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!made) ::kill(pid, SIGKILL);
  REQUIRE(made);
  ::kill(pid, SIGINT);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  // The bench runs for seconds; had it finished first, the directory would be gone for that reason.
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  INFO("left behind:\n" << listing(dir));
  CHECK(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}
