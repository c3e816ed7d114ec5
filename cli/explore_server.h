// The explorer's HTTP shell: cpp-httplib on 127.0.0.1 in front of explore::Explorer, which does all
// the work. Used by `tbkit explore` and by the tests, which start it on a free port.
#pragma once

#include <memory>

#include "chess/result.h"
#include "explore/explorer.h"

namespace httplib {
class Server;
}

namespace tbkit::cli {

class ExploreServer {
 public:
  // `explorer` must outlive the server.
  explicit ExploreServer(const explore::Explorer& explorer);
  ~ExploreServer();
  ExploreServer(const ExploreServer&) = delete;
  ExploreServer& operator=(const ExploreServer&) = delete;

  // Binds 127.0.0.1:port, or a free port for 0, and returns the port. Errors: kIo naming the port
  // (in use, or not allowed).
  [[nodiscard]] Result<int> bind(int port);
  // Serves requests on a pool of threads until stop(); blocks. Call after bind().
  void serve();
  // Makes serve() return. Thread-safe.
  void stop();

 private:
  const explore::Explorer& explorer_;
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  int listen_socket_ = -1;
};

}  // namespace tbkit::cli
