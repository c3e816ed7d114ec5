#include "pgn/book_merge.h"

#include <cstdio>
#include <string>

namespace tbkit::pgn {

Result<formats::BookInfo> merge_book_files(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& output) {
  if (inputs.empty()) return make_error(ErrorCode::kInvalidArgument, "book merge: no inputs");
  std::vector<formats::BookFile> books;
  std::uint64_t games = 0;
  for (const auto& path : inputs) {
    auto book = formats::BookFile::open(path);
    if (!book) return book.error();
    games += book->info().games;
    books.push_back(std::move(*book));
  }
  formats::BookParams params = books.front().info().params;
  params.merged = true;
  auto writer = formats::BookWriter::create(output, params);
  if (!writer) return writer.error();
  writer->set_games(games);
  std::vector<std::size_t> pos(books.size(), 0);
  for (;;) {
    // The smallest (key, move) among the inputs' heads; few inputs, so a linear scan.
    const formats::BookRecord* least = nullptr;
    for (std::size_t i = 0; i < books.size(); ++i) {
      const auto recs = books[i].records();
      if (pos[i] < recs.size() && (!least || recs[pos[i]] < *least)) least = &recs[pos[i]];
    }
    if (!least) break;
    formats::BookRecord sum = *least;
    sum.games = sum.white_wins = sum.draws = sum.black_wins = sum.rated_games = 0;
    sum.elo_sum = 0;
    for (std::size_t i = 0; i < books.size(); ++i) {
      const auto recs = books[i].records();
      if (pos[i] < recs.size() && recs[pos[i]].key == sum.key && recs[pos[i]].move == sum.move) {
        if (!sum.add(recs[pos[i]])) {
          char key[17];
          std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(sum.key));
          return make_error(ErrorCode::kCorrupt, "book merge: counts of key " + std::string(key) + " move " + std::to_string(sum.move) +
                                                     " pass 2^32");
        }
        ++pos[i];
      }
    }
    if (auto s = writer->add(sum); !s) return s.error();
  }
  return writer->finish();
}

}  // namespace tbkit::pgn
