// What the recording machine says about a trace's files, read by `record` after the run: each
// file's size and the readahead window of the device behind it (format 1.8,
// formats::FileInfo::read_ahead_kb). The importer knows a file only by the calls it saw: its size
// is the end of the furthest read or write (a library the loader read 832 bytes of, then mapped
// 2 MiB of, has 848 B), and nothing of its device.
//
// Sizes: i_size from stat(), when larger than what the calls reached. Replay stops readahead at
// a file's end, so a library sized by its header read would read its mapped pages one by one.
//
// Readahead: the kernel sizes a file's readahead from its backing device: file_ra_state_init()
// copies inode_to_bdi(inode)->ra_pages into the open file, and mmap read-around and async
// readahead use that (mm/readahead.c, mm/filemap.c). A virtio disk here has read_ahead_kb 8192
// where the kernel's default is 128, which changes a cold mapped read from a major fault per 32
// pages to one per 2,048. sysfs names the bdi by the device number:
//   - a file on a block-backed filesystem: class/bdi/MAJ:MIN/read_ahead_kb, from its st_dev; on
//     a partition, whose bdi is its disk's, the disk's queue through dev/block/MAJ:MIN/..;
//   - a block device node: its disk's queue/read_ahead_kb, from its st_rdev (the same setting
//     as the bdi's: writing either sets bdi->ra_pages).
// A file gone by the end of the run (a temporary, or xz's input) is looked up by the nearest
// directory above it that still exists: the same filesystem unless a mount point lies between.
// Filesystems without a block device (tmpfs, overlayfs, procfs, NFS) have a bdi sysfs does not
// list, or one with no readahead of a device, and stay unknown (-1): replay uses its knob.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/trace_meta.h"

namespace mmreplay::tools {

// read_ahead_kb of the device behind `path` under `sysfs` ("/sys"), or -1 when none is found.
int32_t device_read_ahead_kb(const std::string& path, const std::string& sysfs = "/sys");

// Sets read_ahead_kb of each regular file and block device of `files` with an absolute path;
// returns how many were set.
size_t set_device_readahead(std::vector<formats::FileInfo>* files,
                            const std::string& sysfs = "/sys");

// Raises size_bytes of each regular file with an absolute path to its size on this machine;
// returns how many grew.
size_t set_file_sizes(std::vector<formats::FileInfo>* files);

}  // namespace mmreplay::tools
