#include "kernelsim/sim/op.h"

#include <utility>

#include "kernelsim/constants.h"

namespace mmreplay::kernelsim {

const char* op_kind_name(OpKind kind) {
  // Table names are literals, so data() is NUL-terminated.
  return op_info(kind).name.data();
}

Op Op::sleep(SimTime d) {
  Op o;
  o.kind = OpKind::kSleep;
  o.duration = d;
  return o;
}
Op Op::block(SimTime d) {
  Op o;
  o.kind = OpKind::kBlock;
  o.duration = d;
  return o;
}

Op Op::mmap_anon(uint64_t addr, uint64_t len, uint32_t prot, uint32_t extra_flags) {
  Op o;
  o.kind = OpKind::kMmap;
  o.addr = addr;
  o.len = len;
  o.prot = prot;
  o.flags = MAP_PRIVATE | MAP_ANONYMOUS | extra_flags;
  return o;
}

Op Op::mmap_file(uint64_t addr, uint64_t len, uint32_t prot, uint32_t flags, uint32_t file,
                 uint64_t offset) {
  Op o;
  o.kind = OpKind::kMmap;
  o.addr = addr;
  o.len = len;
  o.prot = prot;
  o.flags = flags;
  o.file = file;
  o.offset = offset;
  return o;
}

Op Op::munmap(uint64_t addr, uint64_t len) {
  Op o;
  o.kind = OpKind::kMunmap;
  o.addr = addr;
  o.len = len;
  return o;
}

Op Op::mprotect(uint64_t addr, uint64_t len, uint32_t prot) {
  Op o;
  o.kind = OpKind::kMprotect;
  o.addr = addr;
  o.len = len;
  o.prot = prot;
  return o;
}

Op Op::mremap(uint64_t addr, uint64_t old_len, uint64_t new_len, uint32_t flags,
              uint64_t new_addr) {
  Op o;
  o.kind = OpKind::kMremap;
  o.addr = addr;
  o.len = old_len;
  o.new_len = new_len;
  o.flags = flags;
  o.new_addr = new_addr;
  return o;
}

Op Op::brk(uint64_t addr) {
  Op o;
  o.kind = OpKind::kBrk;
  o.addr = addr;
  return o;
}

Op Op::madvise(uint64_t addr, uint64_t len, int advice) {
  Op o;
  o.kind = OpKind::kMadvise;
  o.addr = addr;
  o.len = len;
  o.advice = advice;
  return o;
}

Op Op::madvise_vec(std::vector<AddrRange> ranges, int advice) {
  Op o;
  o.kind = OpKind::kMadviseVector;
  o.ranges = std::move(ranges);
  o.advice = advice;
  return o;
}

Op Op::touch(uint64_t addr, uint64_t len, bool write, uint64_t stride) {
  Op o;
  o.kind = OpKind::kTouch;
  o.addr = addr;
  o.len = len;
  o.write = write;
  o.stride = stride;
  return o;
}

Op Op::thread_exit() {
  Op o;
  o.kind = OpKind::kThreadExit;
  return o;
}
Op Op::mm_create(uint32_t mm_id, uint32_t parent_mm_id) {
  Op o;
  o.kind = OpKind::kMmCreate;
  o.mm_id = mm_id;
  o.parent_mm_id = parent_mm_id;
  return o;
}
Op Op::mm_exit() {
  Op o;
  o.kind = OpKind::kMmExit;
  return o;
}

Op Op::file_read(uint32_t file, uint64_t offset, uint64_t len) {
  Op o;
  o.kind = OpKind::kFileRead;
  o.file = file;
  o.offset = offset;
  o.len = len;
  return o;
}

Op Op::file_write(uint32_t file, uint64_t offset, uint64_t len) {
  Op o = file_read(file, offset, len);
  o.kind = OpKind::kFileWrite;
  o.write = true;
  return o;
}

Op Op::fsync(uint32_t file) {
  Op o;
  o.kind = OpKind::kFsync;
  o.file = file;
  return o;
}

Op Op::file_truncate(uint32_t file, uint64_t new_size, uint64_t pages_dropped) {
  Op o;
  o.kind = OpKind::kFileTruncate;
  o.file = file;
  o.offset = new_size;
  o.len = pages_dropped;
  return o;
}

Op Op::contig_alloc(uint64_t handle, uint64_t bytes) {
  Op o;
  o.kind = OpKind::kContigAlloc;
  o.handle = handle;
  o.len = bytes;
  return o;
}

Op Op::contig_free(uint64_t handle) {
  Op o;
  o.kind = OpKind::kContigFree;
  o.handle = handle;
  return o;
}

Op Op::wait_child(uint64_t child, SimTime fallback, bool any_child) {
  Op o;
  o.kind = OpKind::kWaitChild;
  o.child = child;
  o.duration = fallback;
  o.flags = any_child ? kWaitAnyChild : 0;
  return o;
}

Op Op::futex_wake(uint64_t wake_id, uint32_t wake_flags) {
  Op o;
  o.kind = OpKind::kFutexWake;
  o.handle = wake_id;
  o.flags = wake_flags;
  return o;
}

Op Op::syscall_failed(int err) {
  Op o;
  o.kind = OpKind::kSyscallFailed;
  o.advice = err;
  return o;
}

Op Op::futex_wait(uint64_t wake_id, SimTime fallback) {
  Op o;
  o.kind = OpKind::kFutexWait;
  o.handle = wake_id;
  o.duration = fallback;
  return o;
}

Op Op::clone(uint64_t child) {
  Op o;
  o.kind = OpKind::kClone;
  o.child = child;
  return o;
}

}  // namespace mmreplay::kernelsim
