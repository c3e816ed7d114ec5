// RunProgress: where a `tbkit gen` (or `tbkit verify`) run of several tables stands, for its
// progress line and its closing totals: each table's place in the run's order (for gen, the order
// gen::generate_tables follows, model::dependency_closure) and an estimate of the time left.
//
// The estimate weighs each table still to make by its index slots times the seconds per slot
// measured so far on finished tables of the same kind (men and whether there are pawns): pawn
// tables and larger tables cost more per slot than the 3- and 4-man tables a run starts with, so
// slots alone would promise too early a finish. A kind not measured yet borrows: from the other
// pawn kind of the same men scaled by the pawn/pawnless ratio of the largest men measured in both,
// else from the nearest men of its own pawn kind, else from all tables so far. Tables whose file
// exists at the start count as no work (they are usually skipped). Not thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gen/run.h"
#include "model/material.h"

namespace tbkit::cli {

class RunProgress {
 public:
  // `plan` in run order; `slots[k]` the index slots of plan[k], 0 for a table that needs no work.
  RunProgress(std::vector<model::Material> plan, std::vector<std::uint64_t> slots);
  // The run that generating `wanted` into `dir` makes: the dependency closure, with the tables
  // already present in `dir` as no work.
  static RunProgress for_run(const std::vector<model::Material>& wanted, const std::filesystem::path& dir);

  [[nodiscard]] std::size_t size() const { return plan_.size(); }
  // Table m's place in the plan (0-based; size() when absent).
  [[nodiscard]] std::size_t position(const model::Material& m) const;
  // "[k/N] ": table m's place in the run.
  [[nodiscard]] std::string place(const model::Material& m) const;
  // A table finished (generated or skipped).
  void finished(const gen::TableSummary& s);
  // The table at place k of the plan finished after `seconds` of work (for runs whose plan may
  // name a material twice, e.g. verify over two directories).
  void finished_at(std::size_t k, double seconds);
  // The table at place k was present and valid: done, with no work left to count.
  void skipped_at(std::size_t k);

  // Estimated seconds left, `elapsed` seconds into the run, while table m is `fraction` (0..1)
  // done. None for a run of one table (its own ETA says it all), before the first table is 5% done
  // or made, or when nothing is left.
  [[nodiscard]] std::optional<double> seconds_left(const model::Material& m, double fraction, double elapsed) const;
  [[nodiscard]] std::optional<double> seconds_left_at(std::size_t k, double fraction, double elapsed) const;
  // Seconds the table at place k should take, at the rate measured on the tables finished so far
  // (its kind's, or borrowed as for seconds_left); none before the first is finished.
  [[nodiscard]] std::optional<double> expected_seconds_at(std::size_t k) const;
  // "; run ETA 1h 05m" (seconds_left on the clock since construction), or "".
  [[nodiscard]] std::string eta(const model::Material& m, double fraction) const;
  [[nodiscard]] std::string eta_at(std::size_t k, double fraction) const;
  // "N tables: G generated, S present and valid, B bytes, 1m 05s" (B: the finished tables' files).
  [[nodiscard]] std::string totals() const;

 private:
  using Kind = std::pair<int, bool>;  // men, has pawns
  [[nodiscard]] std::optional<double> rate(Kind kind) const;  // seconds per slot, measured
  [[nodiscard]] double weight(Kind kind) const;               // seconds per slot, estimated

  std::vector<model::Material> plan_;
  std::vector<std::uint64_t> slots_;
  std::vector<bool> done_;
  std::map<Kind, std::pair<double, double>> measured_;  // kind -> (seconds, slots) of tables made
  std::size_t generated_ = 0, skipped_ = 0;
  std::uint64_t file_bytes_ = 0;
  std::chrono::steady_clock::time_point start_;
};

// The progress line of a command that works through table files in turn (verify, stats) on
// stderr, drawn only when `show` (stderr a terminal, no -q): "[k/N] MATERIAL: " (the place only
// for several files), then the current phase, with the share of slots done and an ETA for phases
// that count slots, and the run's ETA (RunProgress: index slots times the seconds per slot of the
// files done so far). Before its last long phase, a file counts as done by the time spent on it
// against the time it should take (up to 90%); that phase then counts for the rest.
class TablesProgress {
 public:
  TablesProgress(const std::vector<std::filesystem::path>& files, bool show);
  // File k starts.
  void start(std::size_t k);
  // A phase that counts nothing: "reading KRRvKR (3 of 9 it converts into)".
  void phase(const std::string& what);
  // A phase over `total` slots, `done` so far: "checking, 45% of N slots, ETA 12 s". Thread-safe;
  // draws at most every 200 ms (and at the end). `file_share`: the phase's share stands for the
  // rest of the file's in the run's ETA (its last long phase); other phases count the file done by
  // its time so far (see the class comment).
  void slots(const std::string& what, std::uint64_t done, std::uint64_t total, bool file_share);
  // The phase of reading deps[j], the j-th table the file converts into ("reading KRRvKR (3 of 9
  // it converts into)"); the returned function shows each expansion that read makes as slots()
  // within it ("..., expanding KRRvK, 45% of N slots, ETA 12 s").
  [[nodiscard]] gen::RebuildProgressFn reading(const std::vector<model::Material>& deps, std::size_t j);
  // The current file is done: the line is cleared for its result.
  void finished();

 private:
  // `fraction`: of the last long phase (file_share), else none.
  void draw(const std::string& what, std::optional<double> fraction);

  bool show_;
  RunProgress run_;
  std::vector<std::string> names_;
  std::size_t current_ = 0;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point file_start_, phase_start_, last_;
  std::string phase_;
  double lead_ = 0;  // the file's share counted as done before its last long phase
};

// "42 s", "7m 05s", "2h 13m".
[[nodiscard]] std::string format_duration(double seconds);

}  // namespace tbkit::cli
