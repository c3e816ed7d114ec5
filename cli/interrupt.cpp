#include "cli/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace tbkit::cli {
namespace {

// A signal handler can only reach process-wide state. A slot's path is written only while its flag
// is 0, and the flag is set after the path is complete, so the handler never reads a half path.
struct Slot {
  char path[4096];
  volatile std::sig_atomic_t armed;
};
Slot g_slots[TmpGuard::kMaxGuards];
bool g_installed = false;

extern "C" void unlink_guarded_and_die(int sig) {
  for (auto& s : g_slots)
    if (s.armed) ::unlink(s.path);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_handlers() {
  if (g_installed) return;
  g_installed = true;
  struct sigaction sa {};
  sa.sa_handler = unlink_guarded_and_die;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace

void TmpGuard::guard(const std::string& path) {
  release();
  install_handlers();
  if (path.size() >= sizeof g_slots[0].path) return;
  for (int i = 0; i < kMaxGuards; ++i) {
    if (g_slots[i].armed) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    g_slots[i].armed = 1;
    slot_ = i;
    return;
  }
}

void TmpGuard::release() {
  if (slot_ < 0) return;
  g_slots[slot_].armed = 0;
  slot_ = -1;
}

}  // namespace tbkit::cli
