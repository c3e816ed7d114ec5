// A UCI engine run as a child process (any shell command): its input a socket (so a dead engine is
// an error value, never a SIGPIPE), its output a pipe.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "chess/result.h"

namespace tbkit::player {

class UciProcess {
 public:
  // Starts `/bin/sh -c command`. Changes no signal disposition of the calling process. Errors: kIo
  // (socketpair, pipe or fork failed).
  [[nodiscard]] static Result<UciProcess> start(const std::string& command);
  UciProcess(UciProcess&& other) noexcept;
  UciProcess& operator=(UciProcess&& other) noexcept;
  UciProcess(const UciProcess&) = delete;
  UciProcess& operator=(const UciProcess&) = delete;
  // Sends "quit", waits up to a second, then kills the child.
  ~UciProcess();

  // Writes one line. Errors: kIo (the engine has gone: "Broken pipe" or "Connection reset by peer", with no
  // signal raised).
  [[nodiscard]] Status send(const std::string& line);
  // The next line, waiting at most timeout_ms (<0: forever). nullopt on timeout or end of output
  // (see eof()).
  [[nodiscard]] std::optional<std::string> read_line(std::int64_t timeout_ms);
  // Reads until a line starting with `prefix`; returns it, or nullopt on timeout/end of output.
  [[nodiscard]] std::optional<std::string> wait_for(const std::string& prefix, std::int64_t timeout_ms);
  [[nodiscard]] bool eof() const { return eof_; }
  [[nodiscard]] const std::string& command() const { return command_; }

 private:
  UciProcess() = default;
  void close_all();
  std::string command_;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffer_;
  bool eof_ = false;
};

}  // namespace tbkit::player
