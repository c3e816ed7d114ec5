// Interrupted commands leave no temporary files behind.
//
// main() calls install_interrupt_cleanup() before anything else: SIGINT, SIGTERM and SIGHUP are then
// blocked in every thread and taken by one watcher thread. A command guards each temporary path it
// makes (NAME.tmp before the rename, a directory of spill runs) with a TmpGuard. When a signal
// arrives the watcher removes every guarded path (a directory with its contents), then the process
// dies of the signal exactly as it would have without the watcher (the shell sees the usual 128+N
// status). Signals already ignored at start stay ignored, so `nohup tbkit gen --all 5 &` survives a
// logout. SIGKILL cannot be caught: what it leaves is removed or overwritten by the next run.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace tbkit::cli {

// Call once, first thing in main(), before any other thread exists (threads inherit the signal
// mask; a child process should reset its mask before exec, as player/uci_process.cpp does). Without it TmpGuard still records paths, but nothing removes them on a signal.
void install_interrupt_cleanup();

class TmpGuard {
 public:
  TmpGuard() = default;
  explicit TmpGuard(const std::filesystem::path& path) { guard(path); }
  ~TmpGuard() { release(); }
  TmpGuard(const TmpGuard&) = delete;
  TmpGuard& operator=(const TmpGuard&) = delete;

  // Guards `path` (a file or a directory) instead of the current one. Thread-safe.
  void guard(const std::filesystem::path& path);
  // Makes a fresh directory from `pattern` (ending in XXXXXX, replaced in place as by mkdtemp) and
  // guards it, with no moment at which a signal finds it made but unguarded. False (errno set)
  // if it cannot be made. Thread-safe.
  [[nodiscard]] bool make_directory(std::string& pattern);
  // Stops guarding (the path is the caller's again, e.g. after the rename). Thread-safe.
  void release();

 private:
  long id_ = 0;
};

// A fresh private directory PREFIX-XXXXXX under the system's temporary directory ($TMPDIR, else
// /tmp), removed with its contents when the object goes, and by the watcher if a signal ends the
// process first. When it cannot be made, path() is empty and error() says why, naming the place.
class ScratchDir {
 public:
  explicit ScratchDir(std::string_view prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  TmpGuard guard_;  // released after the destructor's removal
  std::filesystem::path path_;
  std::string error_;
};

}  // namespace tbkit::cli
