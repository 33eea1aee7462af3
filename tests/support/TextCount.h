// TextCount.h - how often a piece of text occurs in a larger one (compiler outputs, logs).
#ifndef DPK_TESTS_SUPPORT_TEXTCOUNT_H
#define DPK_TESTS_SUPPORT_TEXTCOUNT_H

#include <cstddef>
#include <string>

namespace dpk::test {

/// Occurrences of `part` in `text`, overlapping ones included.
inline size_t countOf(const std::string &text, const std::string &part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++count;
  return count;
}

} // namespace dpk::test

#endif // DPK_TESTS_SUPPORT_TEXTCOUNT_H
