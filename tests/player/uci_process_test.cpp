// UciProcess: a dead engine is an error value, and starting one changes no signal disposition.
#include <catch2/catch.hpp>

#include <signal.h>

#include "player/uci_process.h"

using tbkit::player::UciProcess;

namespace {

void (*sigpipe_handler())(int) {
  struct sigaction current {};
  sigaction(SIGPIPE, nullptr, &current);
  return current.sa_handler;
}

}  // namespace

TEST_CASE("A dead engine's input reports an error and raises no SIGPIPE", "[player][uci]") {
  // The default disposition, whatever the test runner inherited: a SIGPIPE would end this process.
  struct sigaction deflt {};
  deflt.sa_handler = SIG_DFL;
  REQUIRE(sigaction(SIGPIPE, &deflt, nullptr) == 0);
  auto engine = UciProcess::start("exec true");  // exits at once, without reading
  REQUIRE(engine.ok());
  CHECK(sigpipe_handler() == SIG_DFL);
  // Writes may be buffered by the socket until the engine has gone; then each one fails.
  tbkit::Status st;
  for (int i = 0; i < 1000 && st.ok(); ++i) st = engine->send(std::string(4096, 'x'));
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == tbkit::ErrorCode::kIo);
  // EPIPE, or ECONNRESET when the engine left unread input behind.
  CHECK_THAT(st.error().message, Catch::Contains("engine 'exec true': write: ") &&
                                     (Catch::Contains("Broken pipe") || Catch::Contains("Connection reset")));
  CHECK(sigpipe_handler() == SIG_DFL);
}
