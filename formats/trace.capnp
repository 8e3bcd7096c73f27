# The .mmtrace schema. Every zstd data frame of a trace decompresses to one message of root type
# Frame, so `zstdcat FILE.mmtrace | capnp decode formats/trace.capnp Frame` prints the whole trace.
# The index at the end of the file lives in a zstd skippable frame (zstdcat skips it) and is one
# message of type Index.
#
# Versioning: Header.versionMajor changes when an old reader would misread a file; versionMinor
# when fields or event kinds are added. Add fields at the end with the next ordinal; never renumber.

@0xc6a1a3c2b49f6e11;

$import "/capnp/c++.capnp".namespace("mmreplay::formats::capnp_schema");

struct Frame {
  union {
    header @0 :Header;
    chunk @1 :Chunk;
  }
}

struct Header {
  versionMajor @0 :UInt16;
  versionMinor @1 :UInt16;
  recorder @2 :Recorder;
  generator @3 :Text;              # workload name when a generator made the trace
  params @4 :List(Param);          # generator parameters, as given
  threads @5 :List(Thread);        # stream id = index in this list
  files @6 :List(File);
  chunkEvents @7 :UInt32;          # the writer's events-per-chunk setting
  # Format 1.5: the user-space allocator a generator's workload stands for, with its version and
  # the purge advice it used ("jemalloc 4.0, purge MADV_DONTNEED"); empty for captured traces,
  # for workloads without an allocator model and in older files.
  allocator @8 :Text;
}

struct Recorder {
  tool @0 :Text;
  commandLine @1 :Text;
  kernelRelease @2 :Text;
  cpus @3 :UInt32;
  memoryBytes @4 :UInt64;
  pageSize @5 :UInt32;
  swapBytes @6 :UInt64;
  # Format 1.3: what `record` measured of its own cost on the recording machine, so replay can
  # take it out of the gaps between events (replay/trace_op_source.h). 0 = not measured (older
  # traces, imports of other recordings): the gaps are replayed as recorded.
  tracingCostNs @7 :UInt64;   # trace time one recorded event adds to the gap before the next
  faultCostNs @8 :UInt64;     # kernel time of one page fault (a fault has no exit event)
  # Format 1.11: where the recording's sync wake-ups (a pipe's or socket's reader woken by the
  # write it waited for, and the reverse) ran the woken task: on the waker's CPU, or on another.
  # Both 0 = not known (no CPUs recorded, older traces): replay's wake_affine knob decides.
  syncWakesOnWakerCpu @9 :UInt64;
  syncWakesOnOtherCpu @10 :UInt64;
  # Format 1.12: vm.min_free_kbytes of the recording machine, which sets its zones' watermarks
  # (THP raises it above the boot formula's value: set_recommended_min_free_kbytes()). 0 = not
  # known (older traces, imports, generated traces): replay computes the boot formula's.
  minFreeKbytes @11 :UInt64;
  # Format 1.13: the kind of the recording machine's swap (its highest-priority area in
  # /proc/swaps): "zram" (synchronous reads, no swap cache since 4.15) or "block"; empty = not
  # known (older traces, imports, generated traces, no swap): replay's --swap-device decides.
  swapDevice @12 :Text;
  # Format 1.14: the memory limit the recorded program ran under, in bytes: the lowest
  # memory.max / memory.limit_in_bytes on the path of the cgroup it started in (a container, a
  # systemd slice with MemoryMax=). 0 = no limit, or not known (older traces, imports, generated
  # traces): replay's --memcg-limit decides.
  memcgLimitBytes @13 :UInt64;
}

struct Param {
  key @0 :Text;
  value @1 :Text;
}

struct Thread {
  tid @0 :UInt64;
  mmId @1 :UInt64;
  name @2 :Text;
  cpu @3 :Int32 = -1;   # CPU it last ran on in the recording, -1 when unknown (format 1.1)
  parentTid @4 :UInt64; # the thread whose clone event starts this one; 0 = none (format 1.4)
}

struct File {
  id @0 :UInt64;
  path @1 :Text;
  sizeBytes @2 :UInt64;
  blockSize @3 :UInt32;
  kind @4 :FileKind;     # what the descriptor pointed at (format 1.3; unknown in older files)
  created @5 :Bool;      # made during the recording (O_CREAT|O_TRUNC, creat, memfd, pipe, socket):
                         # its page cache starts empty; false = it existed before (format 1.3)
  readAheadKb @6 :Int32 = -1;  # read_ahead_kb of its device's bdi on the recording machine; -1 =
                               # not known: replay's read_ahead_kb knob (format 1.8)
}

# Only regular files and block devices reach the page cache (replay: kernelsim/fs/file.h).
# A reader treats unknown, and a value newer than it knows, as regular: what older files meant.
enum FileKind {
  unknown @0;
  regular @1;
  blockDevice @2;
  socket @3;
  pipe @4;
  charDevice @5;   # /dev/null, /dev/zero, /dev/urandom
  tty @6;          # /dev/tty*, /dev/pts/*, /dev/console
  anon @7;         # anon inodes: eventfd, memfd, epoll, signalfd, timerfd
}

# Up to Header.chunkEvents events of one thread, stored by column. Every column is a byte string
# of unsigned LEB128 varints holding one value per event that carries the field, in event order;
# which fields an event carries is fixed by its kind (formats/event.cpp). How the values are laid
# out depends on `encoding` (formats/chunk_codec.h):
#   byField (format 1.5 and older): one column per field below (ops to arg2).
#   byKind (format 1.6): `ops` as below; every other value in one column per (event kind, field),
#     each split into a head (the first byte of every varint) and a tail (the remaining bytes).
#     Timestamp deltas are unsigned, addresses are deltas from the previous address of the
#     kind's address class (accesses, advice, mappings), and file offsets deltas from the end of
#     the chunk's previous file read or write.
struct Chunk {
  stream @0 :UInt32;
  seq @1 :UInt64;
  firstTs @2 :UInt64;
  lastTs @3 :UInt64;
  count @4 :UInt32;
  ops @5 :Data;        # one byte per event: kind (bits 0-5), has flags (bit 6), has duration (bit 7)
  # byField only:
  tsDelta @6 :Data;    # ts - previous ts (firstTs for the first event), zigzag
  duration @7 :Data;   # observed duration in ns, events with bit 7 only
  flags @8 :Data;      # event flags, events with bit 6 only
  addr @9 :Data;       # address - previous address in this column, zigzag; vector ranges included
  len @10 :Data;       # lengths; vector ranges included
  arg0 @11 :Data;
  arg1 @12 :Data;
  arg2 @13 :Data;      # for vector madvise: the number of ranges
  # Format 1.6:
  encoding @14 :ChunkEncoding;
  columnIndex @15 :Data;  # byKind: per column present, 4 varints: kind, ColumnField, head bytes,
                          # tail bytes
  columnBytes @16 :Data;  # byKind: each column's head, then its tail, in columnIndex order
}

enum ChunkEncoding {
  byField @0;
  byKind @1;
}

# The fields of a byKind column.
enum ColumnField {
  tsDelta @0;    # ts - previous ts of the chunk (firstTs for the first event), unsigned (mod 2^64)
  duration @1;   # events with op bit 7 only
  flags @2;      # events with op bit 6 only
  addr @3;       # paged zigzag delta from the previous address of the kind's class; vector ranges
  len @4;        # paged; vector ranges included
  arg0 @5;
  arg1 @6;       # file_read/file_write: paged zigzag delta from the previous read/write's end
  arg2 @7;       # vector madvise: the number of ranges
}

struct Index {
  versionMajor @0 :UInt16;
  versionMinor @1 :UInt16;
  chunks @2 :List(IndexEntry);
  threads @3 :List(Thread);    # the full thread table, including threads added after the header
  totalEvents @4 :UInt64;
}

struct IndexEntry {
  offset @0 :UInt64;
  size @1 :UInt64;
  stream @2 :UInt32;
  seq @3 :UInt64;
  firstTs @4 :UInt64;
  lastTs @5 :UInt64;
  events @6 :UInt32;
}
