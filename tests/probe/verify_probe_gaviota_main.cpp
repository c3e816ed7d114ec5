// Driver for scripts/verify-probe-gaviota: random legal 3- and 4-piece positions (random material
// among all 35 tables and random colour orientation, random side to move, en-passant rights where
// one is possible) probed through the Tablebase and through libgaviotatb, position by position.
// Usage: tbkit_verify_probe_gaviota TABLES_DIR GAVIOTA_DIR [COUNT] [SEED]
#include <cstdio>
#include <cstdlib>
#include <map>

#include "chess/fen.h"
#include "model/material.h"
#include "probe/tablebase.h"
#include "tests/probe/random_position.h"
#include "tests/support/gaviota_oracle.h"

using namespace tbkit;

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) {
    std::fprintf(stderr, "usage: %s TABLES_DIR GAVIOTA_DIR [COUNT] [SEED]\n", argv[0]);
    return 2;
  }
  const std::uint64_t count = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1000000;
  const std::uint64_t seed = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1;
  // A cache that holds the whole 3+4-piece set (~320 MB of values): with 1 MiB blocks a smaller one
  // would decompress a block on most random probes, and this driver checks values, not the cache.
  auto tb = probe::Tablebase::open({argv[1]}, {.cache_bytes = std::size_t{1} << 30});
  if (!tb) {
    std::fprintf(stderr, "%s\n", tb.error().message.c_str());
    return 3;
  }
  auto oracle = testing::GaviotaOracle::open({argv[2]});
  if (!oracle) {
    std::fprintf(stderr, "%s\n", oracle.error().message.c_str());
    return 3;
  }
  const std::vector<model::Material> materials = model::all_materials(4);
  std::mt19937_64 rng(seed);
  struct Tally {
    std::uint64_t checked = 0, ep = 0, mismatches = 0, errors = 0;
  };
  std::map<std::string, Tally> by_material;
  Tally total;
  for (std::uint64_t i = 0; i < count; ++i) {
    const model::Material& m = materials[rng() % materials.size()];
    const model::Material oriented = (rng() & 1) ? m.flipped() : m;
    // Half of the positions with pawns on both sides get an en-passant right.
    const chess::Position pos = testing::random_position(oriented, rng, (rng() & 1) != 0);
    Tally& t = by_material[m.name()];
    auto ours = tb->probe(pos);
    auto theirs = oracle->probe(pos);
    ++t.checked;
    t.ep += !pos.en_passant().is_none();
    if (!ours || !theirs) {
      ++t.errors;
      if (t.errors + t.mismatches <= 5)
        std::printf("ERROR %s: ours %s, Gaviota %s\n", chess::to_fen(pos).c_str(),
                    ours ? std::to_string(ours->raw()).c_str() : ours.error().message.c_str(),
                    theirs ? std::to_string(theirs->dtm().raw()).c_str() : theirs.error().message.c_str());
    } else if (*ours != theirs->dtm()) {
      ++t.mismatches;
      if (t.errors + t.mismatches <= 5)
        std::printf("MISMATCH %s: ours %s %d plies, Gaviota %s %d plies\n", chess::to_fen(pos).c_str(),
                    ours->is_win() ? "win" : ours->is_loss() ? "loss" : "draw", ours->plies(),
                    theirs->dtm().is_win() ? "win" : theirs->dtm().is_loss() ? "loss" : "draw", theirs->dtm().plies());
    }
  }
  for (const auto& [name, t] : by_material) {
    std::printf("%-7s %8llu positions, %6llu with en passant, %llu mismatches, %llu errors\n", name.c_str(),
                static_cast<unsigned long long>(t.checked), static_cast<unsigned long long>(t.ep),
                static_cast<unsigned long long>(t.mismatches), static_cast<unsigned long long>(t.errors));
    total.checked += t.checked;
    total.ep += t.ep;
    total.mismatches += t.mismatches;
    total.errors += t.errors;
  }
  std::printf("%llu positions checked (%llu with en passant) in %zu materials: %llu mismatches, %llu errors\n",
              static_cast<unsigned long long>(total.checked), static_cast<unsigned long long>(total.ep), by_material.size(),
              static_cast<unsigned long long>(total.mismatches), static_cast<unsigned long long>(total.errors));
  return total.mismatches + total.errors == 0 ? 0 : 1;
}
