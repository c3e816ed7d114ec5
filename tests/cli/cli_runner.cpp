#include "tests/cli/cli_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

extern char** environ;

namespace tbkit::testing {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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

CommandResult run_tbkit_on_terminal(const std::vector<std::string>& args) {
  const char* binary = std::getenv("TBKIT_BINARY");
  if (!binary) throw std::runtime_error("TBKIT_BINARY is not set (run through ctest)");
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) throw std::runtime_error("no pseudo-terminal");
  const std::string slave = ::ptsname(master);
  std::vector<std::string> owned(args);
  owned.insert(owned.begin(), binary);
  std::vector<char*> argv;
  for (auto& a : owned) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int tty = ::open(slave.c_str(), O_RDWR | O_NOCTTY);
    const int null = ::open("/dev/null", O_WRONLY);
    if (tty < 0 || null < 0) ::_exit(126);
    ::dup2(tty, STDERR_FILENO);
    ::dup2(null, STDOUT_FILENO);
    ::close(master);
    ::execv(binary, argv.data());
    ::_exit(127);
  }
  CommandResult r;
  char buf[4096];
  // read() fails (EIO) once the child has exited and the terminal has no writer left.
  for (ssize_t n; (n = ::read(master, buf, sizeof buf)) > 0;) r.err.append(buf, std::size_t(n));
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

pid_t spawn_tbkit(std::vector<std::string> args, int stdin_fd, int close_fd, const std::string& tmpdir) {
  const char* binary = std::getenv("TBKIT_BINARY");
  if (!binary) throw std::runtime_error("TBKIT_BINARY is not set (run through ctest)");
  args.insert(args.begin(), binary);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  if (stdin_fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
    posix_spawn_file_actions_addclose(&actions, stdin_fd);
  }
  if (close_fd >= 0) posix_spawn_file_actions_addclose(&actions, close_fd);
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (tmpdir.empty() || std::string_view(*e).substr(0, 7) != "TMPDIR=") env.emplace_back(*e);
  if (!tmpdir.empty()) env.push_back("TMPDIR=" + tmpdir);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, binary, &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

}  // namespace tbkit::testing
