// GCC 12.2 miscompiles a coroutine whose first statement is an `if` with a co_await in its
// condition (sim/co.h): its first resume dies of SIGILL, or, inlined, reports the await as failed.
// No test of the model's behaviour need reach such a coroutine, so the tree is searched for the
// pattern itself: every function or lambda returning Co<...> in the sources, its first statement.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mmreplay::kernelsim {
namespace {

// True when `line` is an `if` whose condition (its parentheses, on this line) holds a co_await.
// (No <regex>: with GCC 12 and the ASan preset's flags it draws a false -Wmaybe-uninitialized.)
bool if_condition_awaits(const std::string& line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line.compare(i, 2, "if") != 0) return false;
  i = line.find_first_not_of(" \t", i + 2);
  if (i == std::string::npos || line[i] != '(') return false;
  const size_t start = ++i;
  for (int depth = 1; i < line.size() && depth > 0; ++i) {
    if (line[i] == '(') ++depth;
    if (line[i] == ')') --depth;
  }
  return line.substr(start, i - start).find("co_await") != std::string::npos;
}

// True when `signature` (a declaration up to its body's '{') returns Co<...>: "Co<" starts a word
// and a ')' follows it (a function), or "-> Co<" (a lambda's trailing return type).
bool declares_coroutine(const std::string& signature) {
  for (size_t at = signature.find("Co<"); at != std::string::npos;
       at = signature.find("Co<", at + 1)) {
    const char before = at == 0 ? ' ' : signature[at - 1];
    const bool word = before == ' ' || before == '\t' || before == ']' || before == '>';
    const size_t arrow = signature.find_last_not_of(" \t", at == 0 ? 0 : at - 1);
    const bool trailing = arrow != std::string::npos && arrow > 0 && signature[arrow] == '>' &&
                          signature[arrow - 1] == '-';
    if (trailing || (word && signature.find(')', at) != std::string::npos)) return true;
  }
  return false;
}

// "file:line" of each coroutine in `text` whose body starts with `if (...co_await...`.
std::vector<std::string> first_statement_awaits(const std::string& text, const std::string& file) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::vector<std::string> found;
  std::string signature;  // the declaration being read, from its first line on
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const std::string trimmed = line.substr(std::min(line.find_first_not_of(" \t"), line.size()));
    if (trimmed.empty() || trimmed.rfind("//", 0) == 0 || trimmed.back() == ';' ||
        trimmed.back() == '}') {
      signature.clear();
      continue;
    }
    signature += " " + trimmed;
    if (trimmed.back() != '{') continue;
    const bool coroutine = declares_coroutine(signature);
    signature.clear();
    if (!coroutine) continue;
    size_t j = i + 1;
    while (j < lines.size()) {
      const std::string& next = lines[j];
      const size_t at = next.find_first_not_of(" \t");
      if (at != std::string::npos && next.compare(at, 2, "//") != 0) break;
      ++j;
    }
    if (j < lines.size() && if_condition_awaits(lines[j]))
      found.push_back(file + ":" + std::to_string(j + 1));
  }
  return found;
}

TEST(CoFirstStatement, TheSearchFindsThePattern) {
  const std::string bad =
      "Co<bool> charge(Task& t, uint32_t id,\n"
      "                uint64_t nr) {\n"
      "  // a comment\n"
      "  if (!co_await try_charge(t, id, nr)) co_return false;\n"
      "  co_return true;\n"
      "}\n"
      "auto f = [&]() -> Co<void> {\n"
      "  if (co_await g(t)) co_return;\n"
      "};\n";
  EXPECT_EQ(first_statement_awaits(bad, "x.cpp"), (std::vector<std::string>{"x.cpp:4", "x.cpp:8"}));
  const std::string good =
      "Co<bool> charge(Task& t) {\n"
      "  const bool ok = co_await try_charge(t);\n"
      "  if (!ok) co_return false;\n"
      "}\n"
      "bool plain(Task& t) {\n"
      "  if (co_await_like(t)) return false;\n"
      "}\n"
      "Co<void> unlock(Task& t) {\n"
      "  if (!vma_mode) co_await up_read(t);\n"
      "}\n";
  const std::vector<std::string> none = first_statement_awaits(good, "y.cpp");
  EXPECT_TRUE(none.empty()) << none.front();
}

TEST(CoFirstStatement, NoCoroutineOfTheTreeStartsWithAnIfAwait) {
  const std::filesystem::path root = MMREPLAY_SOURCE_DIR;
  std::vector<std::string> found;
  size_t files = 0;
  for (const char* dir : {"kernelsim", "replay", "formats", "tools", "common", "bench", "tests"}) {
    if (!std::filesystem::exists(root / dir)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / dir)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
      if (entry.path().filename() == "co_first_statement_test.cpp") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      ++files;
      for (const std::string& f : first_statement_awaits(
               text.str(), std::filesystem::relative(entry.path(), root).string()))
        found.push_back(f);
    }
  }
  EXPECT_GT(files, 100u) << "the sources were not found under " << root;
  EXPECT_TRUE(found.empty()) << "bind the await's result first (sim/co.h): " << found.front();
}

}  // namespace
}  // namespace mmreplay::kernelsim
