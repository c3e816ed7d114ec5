// Replays inputs through a libFuzzer target without libFuzzer: every regular file in the directories
// given on the command line is passed to LLVMFuzzerTestOneInput. Used by ctest to keep the seed
// corpora and saved crashers passing. The first directory is the seed corpus (tests/fuzz/corpus/NAME/)
// and must hold an input: a missing or empty one would replay nothing and pass. The others
// (tests/fuzzFail/NAME/) may be missing.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR [MORE_DIR...]\n", argv[0]);
    return 2;
  }
  int replayed = 0;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (!fs::is_directory(argv[i], ec)) {
      if (i > 1) continue;
      std::fprintf(stderr, "%s: the seed corpus is not a directory\n", argv[i]);
      return 1;
    }
    for (const auto& entry : fs::directory_iterator(argv[i])) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (!in.eof() && in.fail()) {
        std::fprintf(stderr, "%s: cannot read\n", entry.path().c_str());
        return 1;
      }
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      ++replayed;
    }
    if (i == 1 && replayed == 0) {
      std::fprintf(stderr, "%s: the seed corpus holds no input\n", argv[i]);
      return 1;
    }
  }
  std::printf("replayed %d inputs\n", replayed);
  return 0;
}
