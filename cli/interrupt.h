// Interrupted commands leave no temporary files behind.
//
// A command that writes NAME.tmp and renames it when done guards the tmp path with a TmpGuard. If
// SIGINT, SIGTERM or SIGHUP arrives while a guard is alive, the handler unlinks every guarded path
// and the process then dies of the signal, exactly as it would have without the handler (the shell
// sees the usual 128+N status). Signals that were already ignored when the first guard was made stay
// ignored, so `nohup tbkit gen --all 5 &` survives a logout. SIGKILL cannot be caught: a tmp file left
// by it is removed or overwritten by the next run.
//
// Guards are made and destroyed by one thread (the command's), at most kMaxGuards at a time; the
// handler only reads fixed-size buffers, so it stays async-signal-safe.
#pragma once

#include <string>

namespace tbkit::cli {

class TmpGuard {
 public:
  static constexpr int kMaxGuards = 8;

  TmpGuard() = default;
  // Guards `path` (a longer path than 4095 bytes, or more than kMaxGuards at once, is not guarded).
  explicit TmpGuard(const std::string& path) { guard(path); }
  ~TmpGuard() { release(); }
  TmpGuard(const TmpGuard&) = delete;
  TmpGuard& operator=(const TmpGuard&) = delete;

  // Guards `path` instead of the current one.
  void guard(const std::string& path);
  // Stops guarding (the file is the caller's again, e.g. after the rename).
  void release();

 private:
  int slot_ = -1;
};

}  // namespace tbkit::cli
