// Ranks that solve one table together, each owning some of its king-pair slices (docs/mpi.md).
// The solver (gen/solver.cpp) sees only this interface; tbkit's command line implements it with
// Open MPI (cli/mpi_cluster.cpp) when built with it and started under mpirun.
#pragma once

#include <cstdint>
#include <vector>

namespace tbkit::gen {

// Which rank owns a slice: its king-pair number (the index digit above pair_stride). Slices go to
// ranks in groups of `group` consecutive ones (the solver makes a group span at least a 2 MiB huge
// page of states where the table is big enough, so a rank touches only its own pages). Depends
// only on the slice, the rank count, the group and the seed. Seed 0: round robin over the groups,
// which spreads each part of the table (pawn files, king regions) over every rank; another seed: a
// pseudo-random map, used by the tests to show that the output does not depend on the map.
struct SliceMap {
  int ranks = 1;
  std::uint64_t seed = 0;
  std::uint64_t group = 1;

  [[nodiscard]] int owner(std::uint64_t slice) const {
    const std::uint64_t g = slice / group;
    if (seed == 0) return int(g % std::uint64_t(ranks));
    std::uint64_t z = g + seed * 0x9E3779B97F4A7C15ULL;  // splitmix64's finaliser
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return int((z ^ (z >> 31)) % std::uint64_t(ranks));
  }
};

// Collective operations: every rank calls each one, in the same order, from the thread that made
// the cluster. A failed rank stops the whole run (Open MPI's default error handler), so none
// returns an error.
class Cluster {
 public:
  virtual ~Cluster() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int ranks() const = 0;
  // This rank's number among the ranks on its machine (0 .. their count - 1): rank 0 of each
  // machine makes the files the ranks there share (the tables of fewer men, mapped once per machine).
  [[nodiscard]] virtual int node_rank() const = 0;
  // out[r] (out.size() == ranks()) goes to rank r, in bounded rounds until every buffer is empty;
  // returns what the ranks sent to this one, in rank order. Clears `out`.
  [[nodiscard]] virtual std::vector<std::uint64_t> exchange(std::vector<std::vector<std::uint64_t>>& out) = 0;
  // Every rank's `mine`, concatenated in rank order, on rank 0 (empty on the others).
  [[nodiscard]] virtual std::vector<std::uint16_t> gather(const std::vector<std::uint16_t>& mine) = 0;
  [[nodiscard]] virtual std::uint64_t max(std::uint64_t mine) = 0;
  [[nodiscard]] virtual std::uint64_t sum(std::uint64_t mine) = 0;
  virtual void barrier() = 0;
  // Point to point, for the table farm (gen/farm.cpp): one word to rank `to`; the next word sent to
  // this rank by any rank (blocking), or false at once when none has arrived.
  virtual void send(int to, std::uint64_t word) = 0;
  [[nodiscard]] virtual std::uint64_t receive(int& from) = 0;
  [[nodiscard]] virtual bool try_receive(int& from, std::uint64_t& word) = 0;
  // Bytes this rank has sent through exchange() and gather() so far.
  [[nodiscard]] virtual std::uint64_t bytes_sent() const = 0;
};

}  // namespace tbkit::gen
