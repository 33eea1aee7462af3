// ReplayMain.cpp - runs a fuzz target's LLVMFuzzerTestOneInput on files, without libFuzzer: the
// regression replay of the committed corpora in a normal (gcc) build. Arguments are files or
// folders (every regular file below them, in name order); a broken promise aborts, as under
// libFuzzer, naming the file first.
//
//   dpk_fuzz_ir tests/fuzz/corpus/ir tests/ir/corpus
#include "FuzzSupport.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;

int main(int argc, char **argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    fs::path path = argv[i];
    if (!path.empty() && path.string()[0] == '-') continue; // libFuzzer flags: ignored here
    std::error_code error;
    if (fs::is_directory(path, error)) {
      std::vector<fs::path> found;
      for (const auto &entry : fs::recursive_directory_iterator(path, error))
        if (entry.is_regular_file()) found.push_back(entry.path());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(path, error)) {
      files.push_back(path);
    } else {
      std::fprintf(stderr, "replay: no such file or folder: %s\n", argv[i]);
      return 2;
    }
  }
  for (const fs::path &file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replay: %s\n", file.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  }
  std::printf("replay: %zu input(s), no failure\n", files.size());
  return files.empty() ? 2 : 0;
}
