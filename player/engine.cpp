#include "player/engine.h"

#include <algorithm>
#include <condition_variable>

#include "chess/movegen.h"
#include "player/root_rule.h"
#include "player/table_oracle.h"

namespace tbkit::player {

Engine::Engine() : searcher_(options_.hash_mb) {}

Engine::~Engine() { stop(); }

Status Engine::set_hash_mb(std::size_t mb) {
  if (mb < 1 || mb > 4096) return make_error(ErrorCode::kInvalidArgument, "Hash: must be 1..4096 (MiB), got " + std::to_string(mb));
  options_.hash_mb = mb;
  searcher_.set_hash_size(mb);
  return {};
}

Status Engine::set_book(const std::string& path) {
  book_.reset();
  options_.book_file.clear();
  if (path.empty() || path == "<empty>") return {};
  auto b = OpeningBook::open(path);
  if (!b) return b.error();
  book_ = std::make_shared<const OpeningBook>(std::move(*b));
  options_.book_file = path;
  out_of_book_ = false;
  // The store beside the book follows it unless ExperienceFile names one.
  if (options_.learning && options_.experience_file.empty()) return reload_experience();
  return {};
}

Status Engine::set_learning(bool on) {
  options_.learning = on;
  if (!on) {
    experience_.reset();
    return {};
  }
  if (Status s = reload_experience(); !s) {
    options_.learning = false;
    return s;
  }
  return {};
}

Status Engine::set_experience_file(const std::string& path) {
  if (path.empty() || path == "<empty>") {
    options_.experience_file.clear();
  } else {
    if (path.size() <= 4 || path.substr(path.size() - 4) != ".exp")
      return make_error(ErrorCode::kInvalidArgument,
                        "ExperienceFile: expected the journal's path, ending in .exp (the learned statistics go "
                        "beside it, in .learn), got '" + path + "'");
    options_.experience_file = path;
  }
  return reload_experience();
}

std::optional<std::filesystem::path> Engine::experience_base() const {
  if (!options_.experience_file.empty())
    return std::filesystem::path(options_.experience_file.substr(0, options_.experience_file.size() - 4));
  if (!options_.book_file.empty()) return std::filesystem::path(options_.book_file);
  return std::nullopt;
}

Status Engine::reload_experience() {
  experience_.reset();
  if (!options_.learning) return {};
  const auto base = experience_base();
  if (!base) return {};
  auto e = Experience::load(*base);
  if (!e) return e.error();
  experience_ = std::make_shared<const Experience>(std::move(*e));
  return {};
}

Result<bool> Engine::record_game(const chess::Position& start, const std::vector<chess::Move>& moves,
                                 formats::ExperienceResult fallback) {
  const auto base = experience_base();
  if (!options_.learning || !base || moves.empty()) return false;
  if (Status s = record_experience(*base, experience_of_game(start, moves, fallback)); !s) return s.error();
  return true;
}

Status Engine::set_tablebase_path(const std::string& dirs) {
  tables_.reset();
  searcher_.set_tables(nullptr);
  options_.tablebase_path.clear();
  if (dirs.empty() || dirs == "<empty>") return {};
  auto t = open_table_oracle(dirs);
  if (!t) return t.error();
  set_tables(std::move(*t));
  options_.tablebase_path = dirs;
  return {};
}

void Engine::set_tables(std::shared_ptr<const RootTableOracle> tables) {
  tables_ = std::move(tables);
  searcher_.set_tables(tables_.get());
}

void Engine::new_game() {
  searcher_.clear();
  out_of_book_ = false;
}

std::optional<Decision> Engine::try_book(const chess::Position& pos, std::vector<chess::Move>& left) {
  if (experience_) {
    // Learning: the book's moves (while in it) and the store's, by the learned rule.
    std::vector<BookCandidate> cands;
    if (book_ && !out_of_book_) {
      cands = book_->candidates(pos, options_.book.min_games);
      if (cands.empty()) out_of_book_ = true;
    }
    const auto learned = experience_->moves(pos);
    if (cands.empty() && learned.empty()) return std::nullopt;
    LearnedChoice choice = choose_with_experience(cands, learned, options_.learn, rng_);
    left = choice.left;
    if (!choice.move) return std::nullopt;
    Decision d;
    d.best = *choice.move;
    d.source = MoveSource::kBook;
    d.learned = choice.proven;
    d.left = std::move(choice.left);
    d.last_info.pv = {*choice.move};
    return d;
  }
  if (!book_ || out_of_book_) return std::nullopt;
  const auto m = book_->choose(pos, options_.book, rng_);
  if (!m) {
    // Once out of the book, stay out: a later transposition back into it would only cost time.
    out_of_book_ = true;
    return std::nullopt;
  }
  Decision d;
  d.best = *m;
  d.source = MoveSource::kBook;
  d.last_info.pv = {*m};
  return d;
}

bool Engine::tables_cover(const chess::Position& pos) const {
  return tables_ && pos.castling_rights() == 0 && chess::popcount(pos.pieces()) <= tables_->max_men();
}

std::optional<Decision> Engine::try_tables(const chess::Position& pos, const SearchLimits& limits,
                                           const std::atomic<bool>& stop, const InfoCallback& on_info) {
  if (!tables_cover(pos)) return std::nullopt;
  const auto moves = gather_root_moves(*tables_, pos);
  if (!moves || moves->empty()) return std::nullopt;
  const RootChoice choice = choose_root_move(*moves, pos.halfmove_clock());
  if (!choice.move.is_none()) {
    // Decided by the tables. Report the rule's line and the value it secures.
    const auto it = std::find_if(moves->begin(), moves->end(), [&](const RootMove& m) { return m.move == choice.move; });
    Decision d;
    d.best = choice.move;
    d.source = MoveSource::kTable;
    SearchInfo& info = d.last_info;
    info.depth = 1;
    const bool dtm_decisive = it->dtm && !it->dtm->is_draw();
    if (choice.outcome == RuleOutcome::kDraw) {
      info.score = 0;
    } else if (dtm_decisive && it->dtm->is_win() == (choice.outcome == RuleOutcome::kWin)) {
      info.score = it->dtm->is_win() ? kMateScore - it->dtm->plies() : -(kMateScore - it->dtm->plies());
    } else {
      info.score = choice.outcome == RuleOutcome::kWin ? kTableWinScore : -kTableWinScore;
    }
    chess::Position line = pos;
    info.pv.push_back(choice.move);
    line.do_move(choice.move);
    // The reply to ponder on, by Syzygy's order when it answers (cheap), else DTM's. Not a longer
    // line: cold DTM blocks cost tenths of a second at fast time controls.
    if (const auto next = tables_->rank_moves_50(line); next && !next->empty()) {
      info.pv.push_back(next->front().move);
    } else if (const auto dtm = tables_->rank_moves(line); dtm && !dtm->empty()) {
      info.pv.push_back(dtm->front().move);
    }
    d.ponder = info.pv.size() > 1 ? info.pv[1] : chess::Move::none();
    info.nodes = 1;
    if (on_info) on_info(info);
    return d;
  }
  // Drawn: search among the drawing moves only, where table draws count as ordinary positions so
  // the evaluation can prefer the moves that keep winning chances.
  SearchOptions options;
  options.root_moves = choice.drawing_moves;
  options.table_use = TableUse::kDecisiveOnly;
  Decision d;
  d.source = MoveSource::kTable;
  SearchInfo last;
  auto capture = [&](const SearchInfo& i) {
    last = i;
    if (on_info) on_info(i);
  };
  const SearchResult r = searcher_.search(pos, limits, stop, capture, options);
  d.best = r.best;
  d.ponder = r.ponder;
  d.last_info = last;
  return d;
}

Decision Engine::think(const chess::Position& pos, const SearchLimits& limits, const std::atomic<bool>& stop,
                       const InfoCallback& on_info, const std::vector<chess::Move>& search_moves) {
  Decision d = decide(pos, limits, stop, on_info, search_moves);
  if (tables_) d.table_errors = tables_->take_errors();
  return d;
}

Decision Engine::decide(const chess::Position& pos, const SearchLimits& limits, const std::atomic<bool>& stop,
                        const InfoCallback& on_info, const std::vector<chess::Move>& search_moves) {
  std::vector<chess::Move> left;
  if (search_moves.empty()) {
    // Where the tables answer, they decide: the book and the store are not asked.
    if (!tables_cover(pos))
      if (auto d = try_book(pos, left)) return *d;
    if (auto d = try_tables(pos, limits, stop, on_info)) return *d;
  }
  SearchOptions options;
  options.root_moves = search_moves;
  if (!left.empty()) {
    // The store left these moves (they lost): search the others, if any.
    for (chess::Move m : chess::legal_moves(pos))
      if (std::find(left.begin(), left.end(), m) == left.end()) options.root_moves.push_back(m);
    if (options.root_moves.empty()) left.clear();
  }
  SearchInfo last;
  auto capture = [&](const SearchInfo& i) {
    last = i;
    if (on_info) on_info(i);
  };
  const SearchResult r = searcher_.search(pos, limits, stop, capture, options);
  Decision d;
  d.best = r.best;
  d.ponder = r.ponder;
  d.source = MoveSource::kSearch;
  d.left = std::move(left);
  d.last_info = last;
  return d;
}

void Engine::start(const chess::Position& pos, const SearchLimits& limits, InfoCallback on_info, DoneCallback on_done,
                   std::vector<chess::Move> search_moves) {
  stop();
  stop_.store(false);
  thread_ = std::thread([this, pos, limits, on_info = std::move(on_info), on_done = std::move(on_done),
                         search_moves = std::move(search_moves)] {
    Decision d = think(pos, limits, stop_, on_info, search_moves);
    // UCI: after "go infinite" the best move is sent only once the GUI says stop.
    while (limits.infinite && !stop_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    if (on_done) on_done(d);
  });
}

void Engine::stop() {
  stop_.store(true);
  wait();
}

void Engine::wait() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace tbkit::player
