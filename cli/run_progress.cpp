#include "cli/run_progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "model/index_scheme.h"

namespace tbkit::cli {

std::string format_duration(double seconds) {
  const long long s = std::llround(std::max(0.0, seconds));
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%lld s", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%lldm %02llds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%lldh %02lldm", s / 3600, (s % 3600) / 60);
  return buf;
}

RunProgress::RunProgress(std::vector<model::Material> plan, std::vector<std::uint64_t> slots)
    : plan_(std::move(plan)), slots_(std::move(slots)), done_(plan_.size(), false),
      start_(std::chrono::steady_clock::now()) {
  slots_.resize(plan_.size(), 0);
}

RunProgress RunProgress::for_run(const std::vector<model::Material>& wanted, const std::filesystem::path& dir) {
  std::vector<model::Material> plan = model::dependency_closure(wanted);
  std::vector<std::uint64_t> slots;
  slots.reserve(plan.size());
  for (const model::Material& m : plan)
    slots.push_back(std::filesystem::exists(gen::table_path(dir, m)) ? 0 : model::IndexScheme(m).size());
  return RunProgress(std::move(plan), std::move(slots));
}

std::size_t RunProgress::position(const model::Material& m) const {
  return std::size_t(std::find(plan_.begin(), plan_.end(), m) - plan_.begin());
}

std::string RunProgress::place(const model::Material& m) const {
  return "[" + std::to_string(position(m) + 1) + "/" + std::to_string(plan_.size()) + "] ";
}

void RunProgress::finished(const gen::TableSummary& s) {
  file_bytes_ += s.file_bytes;
  const std::size_t k = position(s.material);
  if (!s.skipped) {
    finished_at(k, s.seconds);
    return;
  }
  skipped_at(k);
}

void RunProgress::skipped_at(std::size_t k) {
  ++skipped_;
  if (k >= plan_.size()) return;
  done_[k] = true;
  slots_[k] = 0;
}

void RunProgress::finished_at(std::size_t k, double seconds) {
  ++generated_;
  if (k >= plan_.size()) return;
  done_[k] = true;
  if (slots_[k] > 0 && seconds > 0) {
    auto& [secs, slots] = measured_[{plan_[k].men(), plan_[k].has_pawns()}];
    secs += seconds;
    slots += double(slots_[k]);
  }
}

std::optional<double> RunProgress::rate(Kind kind) const {
  const auto it = measured_.find(kind);
  if (it == measured_.end()) return std::nullopt;
  return it->second.first / it->second.second;
}

double RunProgress::weight(Kind kind) const {
  if (auto r = rate(kind)) return *r;
  const auto [men, pawns] = kind;
  // The other pawn kind of the same men, times the pawn/pawnless ratio where both were measured.
  if (auto other = rate({men, !pawns})) {
    for (auto it = measured_.rbegin(); it != measured_.rend(); ++it) {
      const int m = it->first.first;
      const auto same = rate({m, pawns}), opposite = rate({m, !pawns});
      if (same && opposite) return *other * *same / *opposite;
    }
  }
  // The nearest men of the same pawn kind (ties: the larger).
  std::optional<double> best;
  int best_distance = 0;
  for (const auto& [k, v] : measured_) {
    if (k.second != pawns) continue;
    const int d = std::abs(k.first - men);
    if (!best || d <= best_distance) {
      best = v.first / v.second;
      best_distance = d;
    }
  }
  if (best) return *best;
  double seconds = 0, slots = 0;
  for (const auto& [k, v] : measured_) {
    seconds += v.first;
    slots += v.second;
  }
  return slots > 0 ? seconds / slots : 1.0;
}

std::optional<double> RunProgress::seconds_left(const model::Material& m, double fraction, double elapsed) const {
  return seconds_left_at(position(m), fraction, elapsed);
}

std::optional<double> RunProgress::seconds_left_at(std::size_t current, double fraction, double elapsed) const {
  if (plan_.size() < 2) return std::nullopt;
  fraction = std::clamp(fraction, 0.0, 1.0);
  std::map<Kind, double> weights;  // each kind's weight, worked out once
  double done = 0, left = 0;
  for (std::size_t k = 0; k < plan_.size(); ++k) {
    const Kind kind{plan_[k].men(), plan_[k].has_pawns()};
    auto w = weights.find(kind);
    if (w == weights.end()) w = weights.emplace(kind, weight(kind)).first;
    const double cost = double(slots_[k]) * w->second;
    if (done_[k]) done += cost;
    else if (k == current) {
      done += fraction * cost;
      left += (1 - fraction) * cost;
    } else left += cost;
  }
  // measured_ holds only tables made with slots to make, so it is empty until the first is made.
  if ((measured_.empty() && fraction < 0.05) || done <= 0 || left <= 0) return std::nullopt;
  return elapsed * left / done;
}

std::optional<double> RunProgress::expected_seconds_at(std::size_t k) const {
  if (k >= plan_.size() || measured_.empty()) return std::nullopt;
  return double(slots_[k]) * weight({plan_[k].men(), plan_[k].has_pawns()});
}

std::string RunProgress::eta(const model::Material& m, double fraction) const { return eta_at(position(m), fraction); }

std::string RunProgress::eta_at(std::size_t k, double fraction) const {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const auto left = seconds_left_at(k, fraction, elapsed);
  return left ? "; run ETA " + format_duration(*left) : "";
}

TablesProgress::TablesProgress(const std::vector<std::filesystem::path>& files, bool show)
    : show_(show), run_({}, {}) {
  std::vector<model::Material> plan;
  std::vector<std::uint64_t> slots;
  for (const auto& f : files) {
    auto m = model::Material::parse(f.stem().string());
    plan.push_back(m ? m->normalized() : model::Material{});
    slots.push_back(m ? model::IndexScheme(m->normalized()).size() : 0);
    names_.push_back(m ? m->normalized().name() : f.stem().string());
  }
  run_ = RunProgress(std::move(plan), std::move(slots));
}

void TablesProgress::start(std::size_t k) {
  const std::lock_guard lock(mutex_);
  current_ = k;
  file_start_ = std::chrono::steady_clock::now();
  phase_.clear();
  lead_ = 0;
}

void TablesProgress::phase(const std::string& what) {
  const std::lock_guard lock(mutex_);
  phase_ = what;
  phase_start_ = std::chrono::steady_clock::now();
  draw(what, std::nullopt);
}

void TablesProgress::slots(const std::string& what, std::uint64_t done, std::uint64_t total, bool file_share) {
  if (!show_) return;
  // Another worker drawing: skip this update, but never the last (done reaches total once).
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock && done < total) return;
  if (!lock) lock.lock();
  const auto now = std::chrono::steady_clock::now();
  if (what != phase_) {
    phase_ = what;
    phase_start_ = now;
  } else if (now - last_ < std::chrono::milliseconds(200) && done < total) {
    return;
  }
  const double fraction = total ? double(done) / double(total) : 1.0;
  const double secs = std::chrono::duration<double>(now - phase_start_).count();
  std::string line = what + ", " + std::to_string(int(fraction * 100)) + "% of " + std::to_string(total) + " slots";
  if (fraction > 0.05) line += ", ETA " + format_duration(secs / fraction - secs);
  draw(line, file_share ? std::optional(fraction) : std::nullopt);
}

gen::RebuildProgressFn TablesProgress::reading(const std::vector<model::Material>& deps, std::size_t j) {
  const std::string what = "reading " + deps[j].name() + " (" + std::to_string(j + 1) + " of " +
                           std::to_string(deps.size()) + " it converts into)";
  phase(what);
  if (!show_) return {};
  return [this, what](const model::Material& m, std::uint64_t done, std::uint64_t total) {
    slots(what + ", expanding " + m.name(), done, total, false);
  };
}

void TablesProgress::finished() {
  const std::lock_guard lock(mutex_);
  run_.finished_at(current_, std::chrono::duration<double>(std::chrono::steady_clock::now() - file_start_).count());
  phase_.clear();
  if (show_) std::fprintf(stderr, "\r\033[K");
}

// Called with mutex_ held.
void TablesProgress::draw(const std::string& what, std::optional<double> fraction) {
  if (!show_) return;
  last_ = std::chrono::steady_clock::now();
  // The file's share done, for the run's ETA: by time until its last long phase, which then
  // counts for the rest.
  if (!fraction) {
    const auto expected = run_.expected_seconds_at(current_);
    const double spent = std::chrono::duration<double>(last_ - file_start_).count();
    lead_ = expected && *expected > 0 ? std::min(0.9, spent / *expected) : 0;
  }
  const double file_fraction = fraction ? lead_ + (1 - lead_) * *fraction : lead_;
  const std::string place =
      names_.size() > 1 ? "[" + std::to_string(current_ + 1) + "/" + std::to_string(names_.size()) + "] " : "";
  std::fprintf(stderr, "\r\033[K%s%s: %s%s", place.c_str(), names_[current_].c_str(), what.c_str(),
               run_.eta_at(current_, file_fraction).c_str());
  std::fflush(stderr);
}

std::string RunProgress::totals() const {
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return std::to_string(plan_.size()) + " tables: " + std::to_string(generated_) + " generated, " +
         std::to_string(skipped_) + " present and valid, " + std::to_string(file_bytes_) + " bytes, " +
         format_duration(secs);
}

}  // namespace tbkit::cli
