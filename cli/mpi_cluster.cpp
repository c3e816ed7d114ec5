#include "cli/mpi_cluster.h"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace tbkit::cli {
namespace {

// At most this many elements go from one rank to another per round of an exchange, so the
// receive buffer of a round stays bounded and MPI's int counts never overflow.
constexpr std::uint64_t kRoundElements = std::uint64_t{1} << 24;
constexpr int kGatherTag = 1;
constexpr int kFarmTag = 2;

class MpiCluster final : public gen::Cluster {
 public:
  MpiCluster() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &node_rank_);
    MPI_Comm_free(&node);
  }
  MpiCluster(const MpiCluster&) = delete;
  MpiCluster& operator=(const MpiCluster&) = delete;
  ~MpiCluster() override { MPI_Finalize(); }

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  int node_rank() const override { return node_rank_; }

  std::vector<std::uint64_t> exchange(std::vector<std::vector<std::uint64_t>>& out) override {
    const auto n = std::size_t(ranks_);
    std::vector<std::uint64_t> in;
    std::vector<std::vector<std::uint64_t>> received(n);
    std::vector<std::uint64_t> sent(n, 0);  // elements of out[r] sent in earlier rounds
    std::vector<int> send_counts(n), recv_counts(n), send_offsets(n), recv_offsets(n);
    // A round's offsets add up the counts to and from every rank: they must stay within an int.
    const std::uint64_t round = std::min(kRoundElements, (std::uint64_t{1} << 30) / n);
    for (;;) {
      std::uint64_t left = 0;
      std::vector<std::uint64_t> send;
      for (std::size_t r = 0; r < n; ++r) {
        const std::uint64_t count = std::min(round, out[r].size() - sent[r]);
        send_counts[r] = int(count);
        send_offsets[r] = int(send.size());
        send.insert(send.end(), out[r].begin() + std::ptrdiff_t(sent[r]), out[r].begin() + std::ptrdiff_t(sent[r] + count));
        sent[r] += count;
        left += out[r].size() - sent[r];
      }
      MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
      int total = 0;
      for (std::size_t r = 0; r < n; ++r) {
        recv_offsets[r] = total;
        total += recv_counts[r];
      }
      std::vector<std::uint64_t> recv(static_cast<std::size_t>(total));
      MPI_Alltoallv(send.data(), send_counts.data(), send_offsets.data(), MPI_UINT64_T, recv.data(), recv_counts.data(),
                    recv_offsets.data(), MPI_UINT64_T, MPI_COMM_WORLD);
      bytes_sent_ += (send.size() - std::size_t(send_counts[std::size_t(rank_)])) * sizeof(std::uint64_t);
      for (std::size_t r = 0; r < n; ++r)
        received[r].insert(received[r].end(), recv.begin() + recv_offsets[r], recv.begin() + recv_offsets[r] + recv_counts[r]);
      // Another round while any rank has more to send.
      if (max(left) == 0) break;
    }
    for (auto& part : received) in.insert(in.end(), part.begin(), part.end());
    for (auto& o : out) {
      o.clear();
      o.shrink_to_fit();
    }
    return in;
  }

  std::vector<std::uint16_t> gather(const std::vector<std::uint16_t>& mine) override {
    const auto n = std::size_t(ranks_);
    std::vector<std::uint64_t> sizes(n);
    const std::uint64_t size = mine.size();
    MPI_Gather(&size, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    std::vector<std::uint16_t> all;
    if (rank_ != 0) {
      // In rounds of at most kRoundElements, as rank 0 receives them.
      for (std::uint64_t done = 0; done < size; done += kRoundElements) {
        const int count = int(std::min(kRoundElements, size - done));
        MPI_Send(mine.data() + done, count, MPI_UINT16_T, 0, kGatherTag, MPI_COMM_WORLD);
        bytes_sent_ += std::uint64_t(count) * sizeof(std::uint16_t);
      }
      return all;
    }
    std::uint64_t total = 0;
    for (const std::uint64_t s : sizes) total += s;
    all.resize(total);
    std::uint64_t at = 0;
    for (std::size_t r = 0; r < n; ++r) {
      if (r == 0) {
        std::copy(mine.begin(), mine.end(), all.begin());
      } else {
        for (std::uint64_t done = 0; done < sizes[r]; done += kRoundElements) {
          const int count = int(std::min(kRoundElements, sizes[r] - done));
          MPI_Recv(all.data() + at + done, count, MPI_UINT16_T, int(r), kGatherTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
      }
      at += sizes[r];
    }
    return all;
  }

  void send(int to, std::uint64_t word) override {
    MPI_Send(&word, 1, MPI_UINT64_T, to, kFarmTag, MPI_COMM_WORLD);
    bytes_sent_ += sizeof word;
  }
  std::uint64_t receive(int& from) override {
    std::uint64_t word = 0;
    MPI_Status status;
    MPI_Recv(&word, 1, MPI_UINT64_T, MPI_ANY_SOURCE, kFarmTag, MPI_COMM_WORLD, &status);
    from = status.MPI_SOURCE;
    return word;
  }
  bool try_receive(int& from, std::uint64_t& word) override {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kFarmTag, MPI_COMM_WORLD, &flag, &status);
    if (!flag) return false;
    MPI_Recv(&word, 1, MPI_UINT64_T, status.MPI_SOURCE, kFarmTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    from = status.MPI_SOURCE;
    return true;
  }

  std::uint64_t max(std::uint64_t mine) override {
    std::uint64_t out = 0;
    MPI_Allreduce(&mine, &out, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    return out;
  }
  std::uint64_t sum(std::uint64_t mine) override {
    std::uint64_t out = 0;
    MPI_Allreduce(&mine, &out, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return out;
  }
  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }
  std::uint64_t bytes_sent() const override { return bytes_sent_; }

 private:
  int rank_ = 0;
  int ranks_ = 1;
  int node_rank_ = 0;
  std::uint64_t bytes_sent_ = 0;
};

}  // namespace

bool started_by_mpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (const char* v = std::getenv(name); v && *v) return true;
  return false;
}

std::unique_ptr<gen::Cluster> make_mpi_cluster() { return std::make_unique<MpiCluster>(); }

void abort_mpi_run(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();  // not reached
}

}  // namespace tbkit::cli
