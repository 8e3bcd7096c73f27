// record's device readahead lookup (tools/cli/host_files.h) against a sysfs tree made in a
// temporary directory: a file's bdi by its st_dev, a partition's disk one level up, a file gone
// by the end of the run found through its directory, and the cases it leaves unknown.

#include "tools/cli/host_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace mmreplay::tools {
namespace {

namespace fs = std::filesystem;

class DeviceReadahead : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("host_files_test." + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "data");
    file_ = (root_ / "data" / "input").string();
    std::ofstream(file_) << "x";
    struct stat st {};
    ASSERT_EQ(::stat(file_.c_str(), &st), 0);
    dev_ = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
    sysfs_ = root_ / "sys";
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const fs::path& attribute, const std::string& text) {
    fs::create_directories(attribute.parent_path());
    std::ofstream(attribute) << text;
  }

  fs::path root_;
  std::string file_;
  std::string dev_;  // MAJ:MIN of the temporary directory's filesystem
  fs::path sysfs_;
};

TEST_F(DeviceReadahead, AFileTakesItsFilesystemsBdi) {
  write(sysfs_ / "class" / "bdi" / dev_ / "read_ahead_kb", "8192\n");
  EXPECT_EQ(device_read_ahead_kb(file_, sysfs_.string()), 8192);
}

TEST_F(DeviceReadahead, AFilesystemOnAPartitionTakesItsDisksQueue) {
  // sysfs: dev/block/MAJ:MIN links to the partition's directory, inside its disk's.
  write(sysfs_ / "devices" / "vda" / "queue" / "read_ahead_kb", "512\n");
  fs::create_directories(sysfs_ / "devices" / "vda" / "vda1");
  fs::create_directories(sysfs_ / "dev" / "block");
  fs::create_directory_symlink(sysfs_ / "devices" / "vda" / "vda1",
                               sysfs_ / "dev" / "block" / dev_);
  EXPECT_EQ(device_read_ahead_kb(file_, sysfs_.string()), 512);
}

TEST_F(DeviceReadahead, AFileGoneByTheEndOfTheRunIsFoundThroughItsDirectory) {
  write(sysfs_ / "class" / "bdi" / dev_ / "read_ahead_kb", "128\n");
  EXPECT_EQ(
      device_read_ahead_kb((root_ / "data" / "deleted" / "input.xz").string(), sysfs_.string()),
      128);
}

TEST_F(DeviceReadahead, NoDeviceOrNoPathStaysUnknown) {
  EXPECT_EQ(device_read_ahead_kb(file_, sysfs_.string()), -1) << "no bdi in this sysfs";
  write(sysfs_ / "class" / "bdi" / dev_ / "read_ahead_kb", "lots\n");
  EXPECT_EQ(device_read_ahead_kb(file_, sysfs_.string()), -1) << "not a number";
  EXPECT_EQ(device_read_ahead_kb("pid 5 fd 3", sysfs_.string()), -1) << "no path";
  EXPECT_EQ(device_read_ahead_kb("", sysfs_.string()), -1);
}

TEST_F(DeviceReadahead, OnlyRegularFilesAndBlockDevicesAreLookedUp) {
  write(sysfs_ / "class" / "bdi" / dev_ / "read_ahead_kb", "4096\n");
  std::vector<formats::FileInfo> files = {
      {1, file_, 1, 4096, formats::FileKind::kRegular, false},
      {2, file_, 0, 4096, formats::FileKind::kPipe, true},
      {3, file_, 0, 4096, formats::FileKind::kUnknown, false},
      {4, "pid 9 fd 3", 0, 4096, formats::FileKind::kRegular, false}};
  EXPECT_EQ(set_device_readahead(&files, sysfs_.string()), 1u);
  EXPECT_EQ(files[0].read_ahead_kb, 4096);
  EXPECT_EQ(files[1].read_ahead_kb, -1);
  EXPECT_EQ(files[2].read_ahead_kb, -1);
  EXPECT_EQ(files[3].read_ahead_kb, -1);
}

TEST_F(DeviceReadahead, AFileGrowsToItsSizeHereAndNeverShrinks) {
  std::ofstream(file_, std::ios::trunc) << std::string(10000, 'x');
  std::vector<formats::FileInfo> files = {
      {1, file_, 848, 4096, formats::FileKind::kRegular, false},  // a header read's end
      {2, file_, 1 << 20, 4096, formats::FileKind::kRegular, false},
      {3, (root_ / "gone").string(), 4096, 4096, formats::FileKind::kRegular, true},
      {4, file_, 0, 4096, formats::FileKind::kPipe, true}};
  EXPECT_EQ(set_file_sizes(&files), 1u);
  EXPECT_EQ(files[0].size_bytes, 10000u);
  EXPECT_EQ(files[1].size_bytes, 1u << 20) << "written past the end, then truncated";
  EXPECT_EQ(files[2].size_bytes, 4096u);
  EXPECT_EQ(files[3].size_bytes, 0u);
}

}  // namespace
}  // namespace mmreplay::tools
