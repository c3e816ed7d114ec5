#include "cli/explore_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <string>

namespace tbkit::cli {
namespace {

constexpr int kServerThreads = 16;
// httplib listens with a backlog of 5: a burst of clients overflows it and their connects wait
// for SYN retries (1, 3, 7 s). The socket is listened on again with this one.
constexpr int kBacklog = 256;

// Whether `host` (the Host header) names this server as the page knows it: a page of another site
// whose name a DNS trick points at 127.0.0.1 sends its own name and is refused.
bool is_own_host(const std::string& host, int port) {
  const std::string p = ":" + std::to_string(port);
  return host == "127.0.0.1" + p || host == "localhost" + p;
}

}  // namespace

ExploreServer::ExploreServer(const explore::Explorer& explorer) : explorer_(explorer), server_(std::make_unique<httplib::Server>()) {
  server_->new_task_queue = [] { return new httplib::ThreadPool(kServerThreads); };
  // A browser keeps idle connections open; each holds a pool thread while it waits.
  server_->set_keep_alive_timeout(1);
  server_->set_read_timeout(5);
  server_->set_write_timeout(5);
  server_->set_payload_max_length(1 << 16);
  // SO_REUSEADDR only: httplib's default adds SO_REUSEPORT, which would let a second server bind a
  // port in use and share its connections instead of failing.
  server_->set_socket_options([this](socket_t sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listen_socket_ = sock;
  });
  // Every request goes to the explorer, whatever its method or path: no route of httplib's own
  // (no static file mount) is ever reached.
  server_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    std::string query;
    if (const auto q = req.target.find('?'); q != std::string::npos) query = req.target.substr(q + 1);
    explore::HttpResponse out;
    if (!is_own_host(req.get_header_value("Host"), port_)) {
      out = {403, "application/json; charset=utf-8", "{\"error\": \"this server answers only 127.0.0.1 and localhost\", \"field\": \"Host\"}"};
    } else {
      const std::string path = req.target.substr(0, req.target.find('?'));
      out = explorer_.handle({req.method, path, query});
    }
    res.status = out.status;
    res.set_header("Cache-Control", "no-store");
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_content(std::move(out.body), out.content_type.c_str());
    return httplib::Server::HandlerResponse::Handled;
  });
}

ExploreServer::~ExploreServer() = default;

Result<int> ExploreServer::bind(int port) {
  const int bound = port == 0 ? server_->bind_to_any_port("127.0.0.1") : server_->bind_to_port("127.0.0.1", port) ? port : -1;
  if (bound <= 0)
    return make_error(ErrorCode::kIo, "explore: cannot listen on 127.0.0.1 port " + std::to_string(port) + ": in use or not allowed");
  // Listening again on a listening socket only changes its backlog (Linux).
  ::listen(listen_socket_, kBacklog);
  port_ = bound;
  return bound;
}

void ExploreServer::serve() { server_->listen_after_bind(); }

void ExploreServer::stop() { server_->stop(); }

}  // namespace tbkit::cli
