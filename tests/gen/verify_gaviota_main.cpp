// tbkit_verify_gaviota GAVIOTA_DIR [MAX_MEN]: generates every table up to MAX_MEN (default 4) men in
// memory and compares each stored position, both sides to move, with the Gaviota tables in
// GAVIOTA_DIR. Prints one line per table and "N passed, N failed"; exit 1 on any mismatch.
// Driven by scripts/verify-gaviota; not a unit test (the full cp4 set is not in the repository).
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "gen/solver.h"
#include "tests/support/gaviota_oracle.h"

using namespace tbkit;
using namespace tbkit::gen;

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: tbkit_verify_gaviota GAVIOTA_DIR [MAX_MEN]\n");
    return 2;
  }
  const int max_men = argc == 3 ? std::stoi(argv[2]) : 4;
  auto oracle = testing::GaviotaOracle::open({argv[1]});
  if (!oracle) {
    std::fprintf(stderr, "tbkit_verify_gaviota: %s\n", oracle.error().message.c_str());
    return 5;
  }
  TableSet set;
  tbb::task_arena arena(int(std::max(1U, std::thread::hardware_concurrency())));
  int passed = 0, failed = 0;
  for (const Material& m : all_materials(max_men)) {
    const auto t0 = std::chrono::steady_clock::now();
    auto solved = solve_table(m, set, arena);
    if (!solved) {
      std::fprintf(stderr, "%s: %s\n", m.name().c_str(), solved.error().message.c_str());
      return 1;
    }
    const double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const SolvedTable& table = **solved;
    std::uint64_t checked = 0, mismatches = 0;
    Board b;
    for (int s = 0; s < 2; ++s)
      for (std::uint64_t i = 0; i < table.scheme.size(); ++i) {
        const DtmValue got = table.values[s][i];
        if (got.is_illegal()) continue;
        if (!table.scheme.decode(i, chess::Color(s), b)) {
          ++mismatches;
          continue;
        }
        auto pos = board_to_position(b);
        auto expected = pos ? oracle->probe(*pos) : Result<testing::OracleValue>(pos.error());
        ++checked;
        if (!expected || expected->dtm() != got) {
          if (++mismatches <= 5)
            std::printf("  MISMATCH %s %s: ours %s %d plies, Gaviota %s\n", m.name().c_str(), board_to_fen(b).c_str(),
                        got.is_win() ? "win" : got.is_loss() ? "loss" : "draw", got.plies(),
                        !expected ? expected.error().message.c_str()
                                  : (std::to_string(expected->dtm().raw()) + " raw").c_str());
        }
      }
    std::printf("%-8s %10llu positions checked, %llu mismatches (generated in %.2f s)\n", m.name().c_str(),
                static_cast<unsigned long long>(checked), static_cast<unsigned long long>(mismatches), gen_s);
    std::fflush(stdout);
    (mismatches == 0 ? passed : failed)++;
    set.add(std::move(*solved));
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
