// Reading the argument list and the result of one strace call line:
//   mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f53.. <0.000184>
// Arguments are split at top-level commas (strings, (), {} and [] nest); a value is a number,
// NULL, an OR of symbols and numbers, or a descriptor with its -y path ("3</tmp/x>").

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/event.h"

namespace mmreplay::formats {

// Splits "a, {b, c}, "d,e"" into its top-level arguments. False when brackets or quotes do not
// balance.
bool split_strace_args(std::string_view text, std::vector<std::string_view>* args);

// Where an argument list ends: the index of the ')' that closes the '(' before `text` begins.
// npos when it never closes.
size_t strace_args_end(std::string_view text);

// The value of one argument. `unknown_names` counts symbols this build does not know (they add
// nothing). False when the text is no value (a string, a struct).
bool strace_arg_value(std::string_view arg, uint64_t* value, uint64_t* unknown_names);

// "key=VALUE" inside a struct or keyword argument list ("{flags=CLONE_VM|..., ...}" or
// "child_stack=NULL, flags=..."): the value text of the first `key`, or "" when absent.
std::string_view strace_keyword(std::string_view text, std::string_view key);

// "[{iov_base=0x7f.., iov_len=4096}, ...]" -> ranges. False when it is not such a list.
bool strace_iovec(std::string_view arg, std::vector<Range>* ranges);

// After the ')': " = RET <DUR>", " = -1 ENOMEM (...) <DUR>", " = ?". `has_return` false for
// "?"; `duration_ns` kNoDuration when no "<secs>" follows. False when there is no " = ".
// `ret_path`, when given, receives what a returned descriptor points at under -y
// ("= 3</tmp/x> <0.000012>" -> "/tmp/x"), "" when not printed.
bool strace_result(std::string_view text, bool* has_return, int64_t* ret, uint64_t* duration_ns,
                   std::string_view* ret_path = nullptr);

// What a descriptor argument points at under -y/-yy: "3</dev/null>" -> "/dev/null",
// "5<TCP:[1.2.3.4:80->5.6.7.8:9]>" -> "TCP:[1.2.3.4:80->5.6.7.8:9]"; "" without an annotation.
std::string_view strace_fd_path(std::string_view arg);

// The text of a string argument ("\"/tmp/x\"" -> /tmp/x; escapes are kept as printed). False when
// the argument is no string (NULL, an address).
bool strace_string(std::string_view arg, std::string* out);

}  // namespace mmreplay::formats
