// Runs the tbkit binary (path from TBKIT_BINARY, set by ctest) and captures exit code, stdout, stderr.
#pragma once

#include <string>

namespace tbkit::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `args` is shell text appended to the binary path (quote FENs yourself); `input` is fed on stdin.
CommandResult run_tbkit(const std::string& args, const std::string& input = "");

}  // namespace tbkit::testing
