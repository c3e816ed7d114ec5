#include "cli/interrupt.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

#include "formats/table_file.h"

namespace tbkit::cli {
namespace {

// Never destroyed: the watcher thread may still use them while the process exits.
struct Registry {
  std::mutex mutex;
  std::map<long, std::filesystem::path> paths;
  long next_id = 1;
  bool installed = false;
};
Registry& registry() {
  static auto* r = new Registry;
  return *r;
}

void remove_guarded_and_die(int sig) {
  Registry& r = registry();
  // Never unlocked: held until the signal ends the process, so a thread that would guard a path
  // (or make a guarded directory) or release one waits here. Nothing new is made unguarded, and a
  // command cannot finish its error path (its guards' destructors release) and exit otherwise.
  r.mutex.lock();
  // The command's other threads go on until the signal is raised. A thread just about to make a
  // guarded directory (gen makes its output directory with create_directories) makes it again
  // after its removal, so the paths are looked at twice more, 2 ms apart: an empty scratch
  // directory was left behind so (1 CI run; the test signals as soon as the directory appears).
  for (int pass = 0; pass < 3; ++pass) {
    if (pass > 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    for (const auto& [id, path] : r.paths) {
      // Renamed aside first: the other threads write by path, so a file one of them makes between
      // remove_all's listing and its rmdir would leave the directory behind. Under the new name
      // nothing can add to it. A path that is gone (or was never made) fails both quietly.
      std::error_code ec;
      std::filesystem::path doomed = path;
      doomed += ".removing-" + std::to_string(::getpid());
      std::filesystem::rename(path, doomed, ec);
      std::filesystem::remove_all(ec ? path : doomed, ec);
    }
  }
  ::signal(sig, SIG_DFL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);  // not reached: the signal's default action ends the process
}

// formats::write_file_atomically's tmp files are created under the registry's lock. Once a signal
// has started the cleanup the watcher holds it until the process ends, so a file is either made
// before the cleanup, guarded (gen guards a table's NAME.tmp before its write starts) and removed
// by it, or never: a writer thread that finished its coding just after the signal made one after
// the cleanup's last look (gen's kill test failed so about once in 75 runs).
int open_unless_interrupted(const char* path, int flags, unsigned mode) {
  std::lock_guard lock(registry().mutex);
  return ::open(path, flags, mode);
}

}  // namespace

void install_interrupt_cleanup() {
  Registry& r = registry();
  if (r.installed) return;
  r.installed = true;
  formats::set_tmp_file_opener(&open_unless_interrupted);
  sigset_t watched;
  sigemptyset(&watched);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaddset(&watched, sig);
  }
  ::pthread_sigmask(SIG_BLOCK, &watched, nullptr);
  std::thread([watched] {
    int sig = 0;
    while (::sigwait(&watched, &sig) != 0) {}
    remove_guarded_and_die(sig);
  }).detach();
}

void TmpGuard::guard(const std::filesystem::path& path) {
  release();
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  id_ = r.next_id++;
  r.paths.emplace(id_, path);
}

bool TmpGuard::make_directory(std::string& pattern) {
  release();
  Registry& r = registry();
  // Under the registry's lock: the watcher, taking it to remove the guarded paths, sees either no
  // directory or a guarded one.
  std::lock_guard lock(r.mutex);
  if (!::mkdtemp(pattern.data())) return false;
  id_ = r.next_id++;
  r.paths.emplace(id_, pattern);
  return true;
}

void TmpGuard::release() {
  if (id_ == 0) return;
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.paths.erase(id_);
  id_ = 0;
}

ScratchDir::ScratchDir(std::string_view prefix) {
  std::error_code ec;
  const std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) {
    const char* env = std::getenv("TMPDIR");
    error_ = std::string(env ? env : "/tmp") + ": not a usable temporary directory" + (env ? " ($TMPDIR)" : "") + ": " +
             ec.message();
    return;
  }
  std::string pattern = (base / (std::string(prefix) + "-XXXXXX")).string();
  if (guard_.make_directory(pattern)) path_ = pattern;
  else error_ = base.string() + ": cannot create a temporary directory: " + std::strerror(errno);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

}  // namespace tbkit::cli
