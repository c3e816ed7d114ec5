// GaviotaOracle: answers DTM queries from Gaviota tablebase files through libgaviotatb, as the
// reference our generated tables are checked against (tests and verification scripts only).
#pragma once

#include <filesystem>
#include <memory>
#include <vector>

#include "chess/position.h"
#include "chess/result.h"
#include "formats/dtm_value.h"

namespace tbkit::testing {

enum class OracleWdl : std::uint8_t { kLoss, kDraw, kWin };

// The value for the side to move, in our convention: plies to mate, odd for wins, even for
// losses, 0 when checkmated now; 0 for draws.
struct OracleValue {
  OracleWdl wdl = OracleWdl::kDraw;
  int plies = 0;
  [[nodiscard]] formats::DtmValue dtm() const;
  friend bool operator==(const OracleValue&, const OracleValue&) = default;
};

class GaviotaOracle {
 public:
  // Initialises libgaviotatb on the directories (all holding files of one compression scheme,
  // detected from the extension: .gtb.cp1 .. .gtb.cp4). libgaviotatb keeps global state, so at
  // most one GaviotaOracle may be open in a process at a time. Errors: kUnavailable (no tables,
  // another oracle open, mixed schemes), kIo (a directory cannot be read). cache_bytes: the size of
  // libgaviotatb's cache of decompressed blocks.
  [[nodiscard]] static Result<GaviotaOracle> open(const std::vector<std::filesystem::path>& dirs,
                                                  std::size_t cache_bytes = std::size_t{32} << 20);

  GaviotaOracle(GaviotaOracle&& other) noexcept;
  GaviotaOracle& operator=(GaviotaOracle&& other) noexcept;
  GaviotaOracle(const GaviotaOracle&) = delete;
  GaviotaOracle& operator=(const GaviotaOracle&) = delete;
  ~GaviotaOracle();

  // Probes the position (no castling rights; an en-passant square is passed on). Errors:
  // kUnavailable (no table for this material, or more than 5 men), kIllegal (castling rights,
  // or Gaviota calls the position forbidden). Thread-safe: calls are serialised, because
  // libgaviotatb 0.4 is not safe to probe from two threads at once although its readme says so
  // (egtb_get_id remembers the last table found in an unsynchronised static and reads it twice;
  // a probe racing one of another material is answered from that material's table: a wrong value
  // or "forbidden" for a legal position, and the same position probes right on a retry).
  [[nodiscard]] Result<OracleValue> probe(const chess::Position& pos) const;

  // probe() without the serialisation, for measuring libgaviotatb as a multi-threaded caller gets
  // it (scripts/bench/probe). Concurrent calls (with each other or with probe()) may return wrong
  // values and errors; a checker must use probe().
  [[nodiscard]] Result<OracleValue> probe_unsynchronized(const chess::Position& pos) const;

 private:
  struct Paths;
  explicit GaviotaOracle(std::unique_ptr<Paths> paths);
  void close();
  std::unique_ptr<Paths> paths_;  // owns the C path array libgaviotatb keeps pointers into, and the probe lock
};

}  // namespace tbkit::testing
