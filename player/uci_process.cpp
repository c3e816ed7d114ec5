#include "player/uci_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace tbkit::player {

Result<UciProcess> UciProcess::start(const std::string& command) {
  // The engine's input is a socket, not a pipe: send() with MSG_NOSIGNAL reports a dead engine as
  // EPIPE without raising SIGPIPE, so the process's signal dispositions stay as the caller set them.
  int in_socket[2], out_pipe[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, in_socket) != 0)
    return make_error(ErrorCode::kIo, "engine '" + command + "': socketpair: " + std::strerror(errno));
  if (pipe(out_pipe) != 0) {
    close(in_socket[0]);
    close(in_socket[1]);
    return make_error(ErrorCode::kIo, "engine '" + command + "': pipe: " + std::strerror(errno));
  }
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {in_socket[0], in_socket[1], out_pipe[0], out_pipe[1]}) close(fd);
    return make_error(ErrorCode::kIo, "engine '" + command + "': fork: " + std::strerror(errno));
  }
  if (pid == 0) {
    dup2(in_socket[1], 0);
    dup2(out_pipe[1], 1);
    close(in_socket[0]);
    close(in_socket[1]);
    close(out_pipe[0]);
    close(out_pipe[1]);
    // The engine starts with no blocked signals, whatever the parent blocks (tbkit blocks Ctrl-C in
    // all threads but one, cli/interrupt.h), so Ctrl-C and SIGTERM reach it as usual.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in_socket[1]);
  close(out_pipe[1]);
  UciProcess p;
  p.command_ = command;
  p.pid_ = pid;
  p.to_child_ = in_socket[0];
  p.from_child_ = out_pipe[0];
  fcntl(p.to_child_, F_SETFD, FD_CLOEXEC);
  fcntl(p.from_child_, F_SETFD, FD_CLOEXEC);
  return p;
}

UciProcess::UciProcess(UciProcess&& o) noexcept { *this = std::move(o); }

UciProcess& UciProcess::operator=(UciProcess&& o) noexcept {
  if (this != &o) {
    close_all();
    command_ = std::move(o.command_);
    pid_ = o.pid_;
    to_child_ = o.to_child_;
    from_child_ = o.from_child_;
    buffer_ = std::move(o.buffer_);
    eof_ = o.eof_;
    o.pid_ = -1;
    o.to_child_ = o.from_child_ = -1;
  }
  return *this;
}

UciProcess::~UciProcess() { close_all(); }

void UciProcess::close_all() {
  if (pid_ > 0) {
    (void)send("quit");
    if (to_child_ >= 0) close(to_child_);
    to_child_ = -1;
    int status = 0;
    bool exited = false;
    for (int i = 0; i < 100 && !exited; ++i) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) exited = true;
      else usleep(10000);
    }
    if (!exited) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  to_child_ = from_child_ = -1;
}

Status UciProcess::send(const std::string& line) {
  if (to_child_ < 0) return make_error(ErrorCode::kIo, "engine '" + command_ + "': not running");
  std::string data = line + "\n";
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::send(to_child_, p, left, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error(ErrorCode::kIo, "engine '" + command_ + "': write: " + std::strerror(errno));
    }
    p += n;
    left -= std::size_t(n);
  }
  return {};
}

std::optional<std::string> UciProcess::read_line(std::int64_t timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
  while (true) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    if (eof_ || from_child_ < 0) return std::nullopt;
    int wait = -1;
    if (timeout_ms >= 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) return std::nullopt;
      wait = int(left);
    }
    pollfd pfd{from_child_, POLLIN, 0};
    const int r = poll(&pfd, 1, wait);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return std::nullopt;
    char buf[4096];
    const ssize_t n = read(from_child_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof_ = true;
      continue;
    }
    buffer_.append(buf, std::size_t(n));
  }
}

std::optional<std::string> UciProcess::wait_for(const std::string& prefix, std::int64_t timeout_ms) {
  const auto start = std::chrono::steady_clock::now();
  while (true) {
    std::int64_t left = -1;
    if (timeout_ms >= 0) {
      left = timeout_ms - std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
      if (left < 0) return std::nullopt;
    }
    auto line = read_line(left);
    if (!line) return std::nullopt;
    if (line->rfind(prefix, 0) == 0) return line;
  }
}

}  // namespace tbkit::player
