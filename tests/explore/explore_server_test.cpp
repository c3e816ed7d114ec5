// The explorer over HTTP: raw requests (traversal attempts sent byte for byte), 100 concurrent
// clients, and `tbkit explore`'s URL, exit codes and messages.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "cli/explore_server.h"
#include "tests/explore/explore_fixture.h"

using namespace tbkit;

namespace {

// Sends `request` as is to 127.0.0.1:port and returns the whole answer (the server closes).
std::string send_raw(int port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(std::uint16_t(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::send(fd, request.data(), request.size(), 0) == ssize_t(request.size()));
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, std::size_t(n));
  ::close(fd);
  return out;
}

int status_of(const std::string& answer) {
  static const std::regex line(R"(^HTTP/1\.[01] (\d{3}) )");
  std::smatch m;
  return std::regex_search(answer, m, line) ? std::stoi(m[1]) : -1;
}

// A server over the fixture on a free port, serving on its own thread until destroyed.
struct RunningServer {
  cli::ExploreServer server{test::fixture_explorer()};
  int port = 0;
  std::thread thread;
  RunningServer() {
    auto p = server.bind(0);
    REQUIRE(p);
    port = *p;
    thread = std::thread([this] { server.serve(); });
  }
  ~RunningServer() {
    server.stop();
    thread.join();
  }
};

}  // namespace

TEST_CASE("explore server: traversal paths sent raw are 404, the page and API answer", "[explore]") {
  RunningServer s;
  const std::string host = "Host: 127.0.0.1:" + std::to_string(s.port) + "\r\nConnection: close\r\n\r\n";
  const auto page = send_raw(s.port, "GET / HTTP/1.1\r\n" + host);
  CHECK(status_of(page) == 200);
  CHECK_THAT(page, Catch::Contains("<svg id=\"board\""));
  for (const std::string path : {"/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/%2E%2E/app.js",
                                 "/app.js/../../../../etc/passwd", "//etc/passwd", "/etc/passwd", "/./app.js", "/.%2e/etc/passwd",
                                 "/%2e%2e%5c%2e%2e%5cetc%5cpasswd", "/..\\..\\etc\\passwd"}) {
    INFO(path);
    const auto r = send_raw(s.port, "GET " + path + " HTTP/1.1\r\n" + host);
    CHECK(status_of(r) == 404);
    CHECK(r.find("root:") == std::string::npos);
  }
  const auto bad = send_raw(s.port, "GET /api/position?fen=nonsense HTTP/1.1\r\n" + host);
  CHECK(status_of(bad) == 400);
  CHECK_THAT(bad, Catch::Contains("\"field\": \"fen\""));
  // Another site's name (a DNS rebinding page) is refused.
  const auto foreign = send_raw(s.port, "GET /api/info HTTP/1.1\r\nHost: evil.example:" + std::to_string(s.port) + "\r\nConnection: close\r\n\r\n");
  CHECK(status_of(foreign) == 403);
}

TEST_CASE("explore server: 100 concurrent clients all get the right answers", "[explore]") {
  RunningServer s;
  struct Ask {
    std::string path, query;
  };
  const std::vector<Ask> asks = {{"/api/tables", "fen=8/8/8/5k2/8/8/1Q6/K7+w+-+-+0+1"},
                                 {"/api/tables", "fen=8/8/3k4/8/8/8/8/R5K1+b+-+-+0+1"},
                                 {"/api/book", "fen=startpos&book=0"},
                                 {"/api/book", "fen=rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR+w+KQkq+-+0+2&book=1"},
                                 {"/api/position", "fen=startpos&moves=e4,e5,Nf3"},
                                 {"/app.js", ""}};
  std::vector<std::string> expected;
  for (const auto& a : asks) expected.push_back(test::get(a.path, a.query).body);
  std::atomic<int> right{0}, wrong{0};
  std::mutex problems_mutex;
  std::vector<std::string> problems;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> clients;
  for (int c = 0; c < 100; ++c) {
    clients.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", s.port);
      client.set_url_encode(false);  // the targets are escaped already
      client.set_connection_timeout(30);
      client.set_read_timeout(60);
      for (int i = 0; i < 5; ++i) {
        const std::size_t k = std::size_t(c + i) % asks.size();
        const std::string target = asks[k].path + (asks[k].query.empty() ? "" : "?" + asks[k].query);
        auto res = client.Get(target.c_str());
        const bool ok = res && res->status == 200 && res->body == expected[k];
        (ok ? right : wrong)++;
        if (!ok) {
          const std::lock_guard<std::mutex> lock(problems_mutex);
          problems.push_back(target + ": " + (res ? "status " + std::to_string(res->status) : httplib::to_string(res.error())));
        }
      }
    });
  }
  for (auto& t : clients) t.join();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO((problems.empty() ? std::string() : problems.front()));
  CHECK(wrong == 0);
  CHECK(right == 500);
  CHECK(secs < 60.0);
}

TEST_CASE("tbkit explore: bad paths and a taken port exit 3 naming them, --port 0 prints its URL", "[explore][cli]") {
  const auto& f = test::explore_fixture();
  auto r = test::run_tbkit_command("explore --book /nonexistent/book.tbb --port 0");
  CHECK(r.code == 3);
  CHECK_THAT(r.err, Catch::Contains("/nonexistent/book.tbb"));
  r = test::run_tbkit_command("explore --tables /nonexistent/tables --port 0");
  CHECK(r.code == 3);
  CHECK_THAT(r.err, Catch::Contains("/nonexistent/tables"));
  {
    RunningServer taken;
    r = test::run_tbkit_command("explore --port " + std::to_string(taken.port));
    CHECK(r.code == 3);
    CHECK_THAT(r.err, Catch::Contains("port " + std::to_string(taken.port)));
  }
  // --port 0: the URL on stdout's first line, a page behind it, and Ctrl-C ends it.
  int out[2];
  REQUIRE(::pipe(out) == 0);
  const char* bin = std::getenv("TBKIT_BINARY");
  REQUIRE(bin);
  const std::string book = f.book.string(), tables = f.tables.string();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    ::execl(bin, bin, "explore", "--book", book.c_str(), "--tables", tables.c_str(), "--port", "0", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  std::string first;
  char c;
  while (::read(out[0], &c, 1) == 1 && c != '\n') first += c;
  ::close(out[0]);
  std::smatch m;
  const bool url = std::regex_match(first, m, std::regex(R"(http://127\.0\.0\.1:(\d+)/)"));
  CHECK(url);
  if (url) {
    const int port = std::stoi(m[1]);
    CHECK(port > 0);
    const auto info = send_raw(port, "GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) + "\r\nConnection: close\r\n\r\n");
    CHECK(status_of(info) == 200);
    CHECK_THAT(info, Catch::Contains("\"name\": \"crafted.tbb\"") && Catch::Contains("\"dtm\": [\"KQvK\", \"KRvK\"]"));
  }
  ::kill(pid, SIGINT);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
}
