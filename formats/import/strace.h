// Importer for strace output recorded with `strace -f -ttt -T` (any -e trace= set; calls the
// model has no use for are counted as ignored):
//
//   [pid 12395] 1796015527.953427 mmap(NULL, 1048576, PROT_READ|PROT_WRITE, ... <unfinished ...>
//   [pid 12395] 1796015527.953525 <... mmap resumed>) = 0x7f534805d000 <0.000076>
//   12394 1796015527.952588 brk(NULL) = 0x55cfecb6e000 <0.000016>          (-o FILE form)
//   1796015527.964569 exit_group(0) = ?                                    (one thread left)
//
// Under -f, strace drops the "[pid N]" prefix while only one thread is traced; those lines go to
// the first thread, whose id is learnt from the first prefixed line of a thread that no clone
// created. "strace: Process N attached" may land in the middle of another line; the two halves
// are joined. Unfinished calls are paired with their "resumed" line; the event takes the enter
// time and the <duration>. strace sees no page faults: a strace import has none.
// Lines of no known form are counted as unknown; a line that starts like a call of a known
// syscall but cannot be read is malformed and stops the import with "FILE:LINE: ...".

#pragma once

#include "common/status.h"
#include "formats/import/import_builder.h"
#include "formats/import/line_reader.h"
#include "formats/trace_meta.h"

namespace mmreplay::formats {

Status parse_strace(LineReader* lines, ImportBuilder* builder, RecorderInfo* recorder);

}  // namespace mmreplay::formats
