// TestUtil.h - helpers shared by the IR tests: reading the IR text files in tests/ir.
#ifndef DPK_TESTS_IR_TESTUTIL_H
#define DPK_TESTS_IR_TESTUTIL_H

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace dpk::ir::test {

inline std::string testDir() { return DPK_IR_TEST_DIR; }

inline std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// The *.dpkir files of tests/ir/<sub>, sorted, as paths.
inline std::vector<std::string> irFiles(const std::string &sub) {
  std::vector<std::string> files;
  std::filesystem::path dir = std::filesystem::path(testDir()) / sub;
  if (!std::filesystem::exists(dir)) return files;
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".dpkir") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

/// A gtest-friendly name for a file: its stem with '-' replaced.
inline std::string testName(const std::string &path) {
  std::string stem = std::filesystem::path(path).stem().string();
  for (char &c : stem)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) c = '_';
  return stem;
}

} // namespace dpk::ir::test

#endif // DPK_TESTS_IR_TESTUTIL_H
