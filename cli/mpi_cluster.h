// gen::Cluster over Open MPI's MPI_COMM_WORLD, for `mpirun -np R tbkit gen ...` (docs/mpi.md).
// Built only when CMake finds MPI (TBKIT_HAVE_MPI).
#pragma once

#include <memory>

#include "gen/cluster.h"

namespace tbkit::cli {

// True when this process was started by mpirun (Open MPI's or another PMIx launcher's
// environment), so gen should run as one rank of several.
[[nodiscard]] bool started_by_mpirun();

// Initialises MPI (funneled: collectives from the calling thread only) and finalises it when
// destroyed. One per process.
[[nodiscard]] std::unique_ptr<gen::Cluster> make_mpi_cluster();

// Stops every rank of the run with `code`: a rank that fails must not leave the others waiting
// in a collective call.
[[noreturn]] void abort_mpi_run(int code);

}  // namespace tbkit::cli
