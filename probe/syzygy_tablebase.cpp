#include "probe/syzygy_tablebase.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>

#include "chess/movegen.h"
#include "formats/syzygy_file.h"
#include "probe/syzygy_board.h"

namespace tbkit::probe {

using namespace chess;
using formats::syzygy::SyzygyFile;
using formats::syzygy::TableMaterial;

const char* to_string(Wdl50 w) {
  switch (w) {
    case Wdl50::kLoss: return "loss";
    case Wdl50::kBlessedLoss: return "blessed loss";
    case Wdl50::kDraw: return "draw";
    case Wdl50::kCursedWin: return "cursed win";
    case Wdl50::kWin: return "win";
  }
  return "?";
}

int preference(const Dtz50& v) {
  // Wins and cursed wins by the smallest DTZ (a cursed win's is over 100), losses by the largest.
  if (v.dtz > 0) return 2'000'000 - v.dtz;
  if (v.dtz < 0) return -2'000'000 - v.dtz;
  return int(v.wdl) * 1'000'000;  // a file's don't-care DTZ of a decisive value never reaches here
}

namespace {

using detail::MaterialKey;
using detail::ProbeBoard;

MaterialKey key_of(const TableMaterial& m) {
  MaterialKey key = 0;
  for (int c = 0; c < 2; ++c)
    for (int t = 0; t < 6; ++t) key += MaterialKey(m.count(Color(c), PieceType(t))) * detail::material_unit(Color(c), PieceType(t));
  return key;
}

// "KQvKR" for a position's material key, White first (TableMaterial::name's spelling).
std::string name_of(MaterialKey key) {
  static constexpr char kLetters[] = "PNBRQK";
  std::string out;
  for (int c = 0; c < 2; ++c) {
    if (c == 1) out += 'v';
    for (int t = kPieceTypeCount - 1; t >= 0; --t)
      out.append(std::size_t((key / detail::material_unit(Color(c), PieceType(t))) & 15), kLetters[t]);
  }
  return out;
}

// One file, opened on first use; later uses read one pointer (no call into std::call_once).
struct LazyFile {
  std::filesystem::path path;
  std::once_flag once;
  std::optional<Result<SyzygyFile>> file;
  std::atomic<const Result<SyzygyFile>*> opened{nullptr};

  const Result<SyzygyFile>& get() {
    if (const auto* f = opened.load(std::memory_order_acquire)) return *f;
    std::call_once(once, [&] {
      file.emplace(SyzygyFile::open(path));
      opened.store(&*file, std::memory_order_release);
    });
    return *file;
  }
};

struct Entry {
  TableMaterial material;
  std::string name;
  std::unique_ptr<LazyFile> wdl, dtz;
};

// A material key's table, in an open-addressing hash table filled once at open.
struct Slot {
  MaterialKey key = 0;  // 0: empty (every material has kings)
  Entry* entry = nullptr;
  // The entry's WDL file once it opened, so that a probe reaches it in one load from the slot
  // (nullptr until then; written once, by whichever thread opens it first, read without a lock).
  mutable const SyzygyFile* wdl = nullptr;
  bool swapped = false;  // the key is the table's material with colours exchanged
  bool symmetric = false;  // the material is its own colour swap
};

// The position in the orientation of the slot's table (formats::syzygy::orient's rules).
formats::syzygy::OrientedPosition orient(const ProbeBoard& b, const Slot& slot) {
  formats::syzygy::OrientedPosition op;
  const bool black_to_move = b.side == Color::kBlack;
  op.swapped = slot.symmetric ? black_to_move : slot.swapped;
  op.side = int(black_to_move) ^ int(op.swapped);
  op.colour = b.colour;
  op.type = b.type;
  return op;
}

Dtz50 before_zeroing(Wdl50 w) {
  switch (w) {
    case Wdl50::kWin: return {w, 1};
    case Wdl50::kCursedWin: return {w, 101};
    case Wdl50::kBlessedLoss: return {w, -101};
    case Wdl50::kLoss: return {w, -1};
    case Wdl50::kDraw: break;
  }
  return {Wdl50::kDraw, 0};
}

Wdl50 negate(Wdl50 w) { return Wdl50(-int(w)); }

// The result of searching the zeroing moves of a position (Syzygy's probing rule).
struct Searched {
  Wdl50 wdl = Wdl50::kDraw;
  bool zeroing_best = false;  // a capture (or pawn move, when searched) achieves the value
};

}  // namespace

struct SyzygyTablebase::Impl {
  std::vector<std::unique_ptr<Entry>> entries;
  std::vector<Slot> slots;  // a power of two, at most half full
  int max_men = 0;

  static std::size_t hash(MaterialKey key, std::size_t mask) {
    return std::size_t((key * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
  }

  void add_key(MaterialKey key, Entry* e, bool swapped, bool symmetric) {
    const std::size_t mask = slots.size() - 1;
    for (std::size_t i = hash(key, mask);; i = (i + 1) & mask) {
      if (slots[i].key == key) return;  // a symmetric material's second orientation
      if (slots[i].key == 0) {
        slots[i] = Slot{key, e, nullptr, swapped, symmetric};
        return;
      }
    }
  }

  // The failure of the paths below that answer an int: this value, with their `error` set. A probe
  // that succeeds builds no Result on its way.
  static constexpr int kFailed = SyzygyFile::kNoValue;

  const Slot* find_slot(MaterialKey key) const {
    const std::size_t mask = slots.size() - 1;
    for (std::size_t i = hash(key, mask);; i = (i + 1) & mask) {
      if (slots[i].key == key) return &slots[i];
      if (slots[i].key == 0) return nullptr;
    }
  }

  static Error no_table(const ProbeBoard& b) {
    const bool too_many = popcount(b.occupied()) > formats::syzygy::kMaxPieces;
    return make_error(ErrorCode::kUnavailable, "no Syzygy table for " + (too_many ? std::string("this material") : name_of(b.key)));
  }

  Result<const Slot*> slot(const ProbeBoard& b) const {
    if (const Slot* s = find_slot(b.key)) return s;
    return no_table(b);
  }

  // Where the board's stored WDL lies, its first cache line asked for.
  bool place_of(const ProbeBoard& b, const SyzygyFile*& file, SyzygyFile::WdlPlace& place, Error& error) const {
    const Slot* s = find_slot(b.key);
    if (!s) {
      error = no_table(b);
      return false;
    }
    file = std::atomic_ref(s->wdl).load(std::memory_order_acquire);
    if (!file) {
      const auto& f = s->entry->wdl->get();
      if (!f) {
        error = f.error();
        return false;
      }
      file = &*f;
      std::atomic_ref(s->wdl).store(file, std::memory_order_release);
    }
    return file->find_wdl(orient(b, *s), place, error);
  }

  int table_wdl(const ProbeBoard& b, Error& error) const {
    const SyzygyFile* file = nullptr;
    SyzygyFile::WdlPlace place;
    if (!place_of(b, file, place, error)) return kFailed;
    return file->wdl_at(place, error);
  }

  // Syzygy's probing search: the value is the better of the table's and the best capture's (also
  // the best pawn move's with `zeroing`); when every legal move was searched the table is not read
  // (it holds no value for a position with an en-passant right). `stored(error)` reads the table's
  // value. False, with `error` set, when a probe fails.
  // With `stored_above`, where every legal move was searched the stored value is read anyway, and
  // *stored_above says whether it is better than the best move's (probe_wdl_check).
  template <class Stored>
  bool search(const ProbeBoard& b, bool zeroing, const detail::ZeroingMoves& moves, Stored&& stored, Searched& out,
              Error& error, bool* stored_above = nullptr) const {
    int best = -3;
    for (const Move m : moves) {
      const int child = wdl_value(b.after(m), error);
      if (child == kFailed) return false;
      if (-child > best) {
        best = -child;
        if (best == 2) {
          out = Searched{Wdl50::kWin, true};
          return true;
        }
      }
    }
    const bool all_searched = moves.size() > 0 && !detail::has_other_legal_move(b, zeroing);
    int value = best;
    if (!all_searched) {
      value = stored(error);
      if (value == kFailed) return false;
    } else if (stored_above) {
      const int unread = stored(error);
      if (unread == kFailed) return false;
      *stored_above = unread > best;
    }
    out = best >= value ? Searched{Wdl50(best), best > 0 || all_searched} : Searched{Wdl50(value), false};
    return true;
  }

  int wdl_value(const ProbeBoard& b, Error& error, bool* stored_above = nullptr) const {
    if (popcount(b.occupied()) == 2) return 0;
    // Where the stored value lies first, so that its first cache line arrives while the captures
    // are generated (most positions need the value: only a winning capture or having nothing but
    // captures spares it). A missing or unreadable table fails the probe only when it is read.
    const SyzygyFile* file = nullptr;
    SyzygyFile::WdlPlace place;
    Error place_error;
    const bool placed = place_of(b, file, place, place_error);
    detail::ZeroingMoves moves;
    detail::generate_zeroing(b, false, moves);
    const auto stored = [&](Error& e) {
      if (placed) return file->wdl_at(place, e);
      e = std::move(place_error);
      return kFailed;
    };
    Searched s;
    if (!search(b, false, moves, stored, s, error, stored_above)) return kFailed;
    return int(s.wdl);
  }

  Result<Wdl50> wdl_of(const ProbeBoard& b) const {
    Error error;
    const int v = wdl_value(b, error);
    if (v == kFailed) return error;
    return Wdl50(v);
  }

  // With `search_unstored` false, nullopt where the file holds the other side to move (the answer
  // would need the one-ply search).
  Result<std::optional<Dtz50>> dtz_of(const Position& pos, bool search_unstored) const {
    if (popcount(pos.pieces()) == 2) return std::optional(Dtz50{});
    const ProbeBoard b = ProbeBoard::of(pos);
    detail::ZeroingMoves zeroing;
    detail::generate_zeroing(b, true, zeroing);
    if (zeroing.size() == 0 && !detail::has_other_legal_move(b, true))
      return std::optional(pos.in_check() ? Dtz50{Wdl50::kLoss, -1} : Dtz50{});
    Searched searched;
    Error error;
    if (!search(b, true, zeroing, [&](Error& e) { return table_wdl(b, e); }, searched, error)) return error;
    if (searched.wdl == Wdl50::kDraw) return std::optional(Dtz50{});
    if (searched.zeroing_best) return std::optional(before_zeroing(searched.wdl));
    auto found = slot(b);
    if (!found) return found.error();
    const Entry& e = *(*found)->entry;
    if (!e.dtz) return make_error(ErrorCode::kUnavailable, "no Syzygy DTZ file for " + e.name);
    const auto& file = e.dtz->get();
    if (!file) return file.error();
    auto stored = file->dtz(orient(b, **found), int(searched.wdl));
    if (!stored) return stored.error();
    if (stored->stored) return std::optional(Dtz50{searched.wdl, formats::syzygy::signed_dtz(int(searched.wdl), stored->plies)});
    if (!search_unstored) return std::optional<Dtz50>{};
    // The file holds the other side to move: the best move's value, one ply on.
    Position p = pos;
    std::optional<int> best;
    for (const Move m : legal_moves(p)) {
      auto v = move_value(p, m);
      if (!v) return v.error();
      if ((v->dtz > 0) == (int(searched.wdl) > 0) && v->dtz != 0 && (!best || v->dtz < *best)) best = v->dtz;
    }
    return std::optional(Dtz50{searched.wdl, best ? *best : -1});
  }

  // A move's WDL50 and DTZ50 for the side playing it, counted from the position before it.
  Result<Dtz50Move> move_value(Position& pos, Move m) const {
    Dtz50Move out;
    out.move = m;
    out.zeroing = pos.is_capture(m) || pos.moved_piece(m).type() == PieceType::kPawn;
    pos.do_move(m);
    const bool mate = pos.in_check() && !has_legal_move(pos);
    Result<Dtz50> child = Dtz50{};
    if (mate) {
      child = Dtz50{Wdl50::kLoss, -1};
    } else if (out.zeroing) {
      auto w = wdl_of(ProbeBoard::of(pos));
      if (w) child = before_zeroing(*w);
      else child = w.error();
    } else {
      auto d = dtz_of(pos, true);
      if (d) child = **d;
      else child = d.error();
    }
    pos.undo_move(m);
    if (!child) return child.error();
    out.wdl = negate(child->wdl);
    // A zeroing move's or a mate's DTZ is already the mover's ply; otherwise one ply more.
    out.dtz = -child->dtz;
    if (!mate && !out.zeroing && out.dtz != 0) out.dtz += out.dtz > 0 ? 1 : -1;
    return out;
  }
};

SyzygyTablebase::SyzygyTablebase(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SyzygyTablebase::SyzygyTablebase(SyzygyTablebase&&) noexcept = default;
SyzygyTablebase& SyzygyTablebase::operator=(SyzygyTablebase&&) noexcept = default;
SyzygyTablebase::~SyzygyTablebase() = default;

Result<SyzygyTablebase> SyzygyTablebase::open(const std::vector<std::filesystem::path>& dirs) {
  auto impl = std::make_unique<Impl>();
  std::map<std::string, Entry*> by_name;
  for (const auto& dir : dirs) {
    std::error_code ec;
    std::filesystem::directory_iterator it(dir, ec);
    if (ec) return make_error(ErrorCode::kIo, dir.string() + ": " + ec.message());
    std::vector<std::filesystem::path> files;
    for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
      if (ec) return make_error(ErrorCode::kIo, dir.string() + ": " + ec.message());
      files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
      const std::string ext = path.extension().string();
      if (ext != ".rtbw" && ext != ".rtbz") continue;
      auto material = TableMaterial::from_name(path.stem().string());
      if (!material) continue;  // not a table name: not ours to read
      const std::string name = material->name();
      Entry*& e = by_name[name];
      if (!e) {
        impl->entries.push_back(std::make_unique<Entry>());
        e = impl->entries.back().get();
        e->material = *material;
        e->name = name;
      }
      auto& slot = ext == ".rtbw" ? e->wdl : e->dtz;
      if (slot) continue;  // an earlier directory's file wins
      slot = std::make_unique<LazyFile>();
      slot->path = path;
    }
  }
  std::size_t size = 16;
  while (size < 4 * impl->entries.size()) size *= 2;
  impl->slots.assign(size, Slot{});
  for (const auto& e : impl->entries) {
    if (!e->wdl) continue;  // a DTZ file alone answers nothing: probing needs the WDL first
    const bool symmetric = e->material.is_symmetric();
    impl->add_key(key_of(e->material), e.get(), false, symmetric);
    impl->add_key(key_of(e->material.swapped()), e.get(), true, symmetric);
    impl->max_men = std::max(impl->max_men, e->material.piece_count());
  }
  return SyzygyTablebase(std::move(impl));
}

int SyzygyTablebase::max_men() const { return impl_->max_men; }

std::vector<std::string> SyzygyTablebase::materials() const {
  std::vector<std::string> out;
  for (const auto& e : impl_->entries)
    if (e->wdl) out.push_back(e->name);
  std::sort(out.begin(), out.end());
  return out;
}

bool SyzygyTablebase::has_dtz(const Position& pos) const {
  auto s = impl_->slot(ProbeBoard::of(pos));
  return s && (*s)->entry->dtz;
}

namespace {
Status check_probeable(const Position& pos) {
  if (pos.castling_rights())
    return make_error(ErrorCode::kInvalidArgument, "endgame tables hold no position with castling rights");
  return {};
}
}  // namespace

Result<Wdl50> SyzygyTablebase::probe_wdl(const Position& pos) const {
  if (auto st = check_probeable(pos); !st) return st.error();
  return impl_->wdl_of(ProbeBoard::of(pos));
}

Result<Wdl50> SyzygyTablebase::probe_wdl(const detail::ProbeBoard& board) const { return impl_->wdl_of(board); }

Result<SyzygyTablebase::WdlCheck> SyzygyTablebase::probe_wdl_check(const Position& pos) const {
  if (auto st = check_probeable(pos); !st) return st.error();
  Error error;
  WdlCheck out;
  // A position with an en-passant right is read by every reader alike: the table holds the
  // position without it, and a capture-only position's value comes from its captures.
  const ProbeBoard b = ProbeBoard::of(pos);
  const int v = impl_->wdl_value(b, error, b.en_passant.is_none() ? &out.stored_above_captures : nullptr);
  if (v == Impl::kFailed) return error;
  out.wdl = Wdl50(v);
  return out;
}

Result<Dtz50> SyzygyTablebase::probe_dtz(const Position& pos) const {
  if (auto st = check_probeable(pos); !st) return st.error();
  auto d = impl_->dtz_of(pos, true);
  if (!d) return d.error();
  return **d;
}

Result<std::optional<Dtz50>> SyzygyTablebase::probe_dtz_stored(const Position& pos) const {
  if (auto st = check_probeable(pos); !st) return st.error();
  return impl_->dtz_of(pos, false);
}

Result<std::vector<Dtz50Move>> SyzygyTablebase::rank_moves(const Position& pos) const {
  if (auto st = check_probeable(pos); !st) return st.error();
  Position p = pos;
  std::vector<Dtz50Move> out;
  for (const Move m : legal_moves(p)) {
    auto v = impl_->move_value(p, m);
    if (!v) return v.error();
    out.push_back(*v);
  }
  std::stable_sort(out.begin(), out.end(), [](const Dtz50Move& a, const Dtz50Move& b) {
    return preference(Dtz50{a.wdl, a.dtz}) > preference(Dtz50{b.wdl, b.dtz});
  });
  return out;
}

}  // namespace tbkit::probe
