// Runs the tbkit binary (path from TBKIT_BINARY, set by ctest) and captures exit code, stdout, stderr.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace tbkit::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// The whole file (empty if it cannot be read).
std::string read_file(const std::filesystem::path& p);

// `args` is shell text appended to the binary path (quote FENs yourself); `input` is fed on stdin.
CommandResult run_tbkit(const std::string& args, const std::string& input = "");

// Runs `tbkit ARGS...` with stderr on a pseudo-terminal (so progress lines are drawn) and stdout
// sent to /dev/null; returns the exit code (-1 if it did not exit normally) and what the terminal
// showed in `err`.
CommandResult run_tbkit_on_terminal(const std::vector<std::string>& args);

// Starts `tbkit ARGS...` in the background with stdout and stderr sent to /dev/null; returns its pid
// (-1 if it cannot start). stdin_fd >= 0 becomes its standard input; close_fd >= 0 is closed in it
// (the other end of a pipe that the test holds). A non-empty `tmpdir` is its TMPDIR; the rest of the
// environment is ours.
pid_t spawn_tbkit(std::vector<std::string> args, int stdin_fd = -1, int close_fd = -1, const std::string& tmpdir = {});

}  // namespace tbkit::testing
