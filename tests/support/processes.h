// Test helpers for several processes at once (Catch assertions): wait for children and check that
// each exited 0, or fork `count` children that each run a body.
#pragma once

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include <catch2/catch.hpp>

namespace tbkit::test {

// Waits for every pid and checks that each exited normally with status 0.
inline void wait_all_ok(const std::vector<pid_t>& pids) {
  for (pid_t pid : pids) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
}

// Forks `count` children; child p exits with body(p). Then wait_all_ok.
template <class Body>
void run_processes(int count, Body&& body) {
  std::vector<pid_t> pids;
  for (int p = 0; p < count; ++p) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) ::_exit(body(p));
    pids.push_back(pid);
  }
  wait_all_ok(pids);
}

}  // namespace tbkit::test
