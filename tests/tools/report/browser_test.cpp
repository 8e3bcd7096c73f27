// Renders the report of the tiny fixture in headless Chromium, where Debian's chromium is
// installed, and fails on a blank page or an error page: the screenshot must not be (almost) one
// colour and must show the Okabe-Ito series colours, and the DOM Chromium built must be the
// report's. Skipped, with the reason, where chromium or libpng is absent. The pixel check is
// itself tested on made-up pages, so the browser test can fail.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tools/report/report_html.h"
#include "tools/report/svg.h"

#ifdef MMREPLAY_HAVE_PNG
#include <png.h>
#endif

namespace mmreplay::report {
namespace {

const std::string kChromium = "/usr/bin/chromium";
const std::string kFixtures = MMREPLAY_REPORT_FIXTURES;

// A page counts as blank when one colour covers more than this share of the pixels.
constexpr double kBlankShare = 0.995;
// How close (per channel) a pixel must be to a palette colour to count as drawn in it.
constexpr int kColourTolerance = 12;
// Pixels of a palette colour needed to say the colour is on the page.
constexpr size_t kMinColourPixels = 20;
// Palette colours a rendered report shows at least (the fixture has three policies).
constexpr size_t kMinPaletteColours = 3;

struct Rgb {
  int r, g, b;
};

Rgb parse_hex(const std::string& hex) {
  return {std::stoi(hex.substr(1, 2), nullptr, 16), std::stoi(hex.substr(3, 2), nullptr, 16),
          std::stoi(hex.substr(5, 2), nullptr, 16)};
}

std::string chromium_command(const std::filesystem::path& dir, const std::string& what,
                             const std::string& url) {
  return "timeout 120 " + kChromium +
         " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
         " --disable-background-networking --disable-component-update --disable-sync"
         " --user-data-dir=" +
         (dir / "profile").string() + " " + what + " --window-size=1200,2000 " + url;
}

#ifdef MMREPLAY_HAVE_PNG
// Decodes `path` to RGB rows; false when it is not a PNG.
bool read_png(const std::string& path, std::vector<Rgb>* pixels) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str())) return false;
  image.format = PNG_FORMAT_RGB;
  std::vector<png_byte> buffer(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, buffer.data(), 0, nullptr)) return false;
  pixels->clear();
  for (size_t i = 0; i + 2 < buffer.size(); i += 3)
    pixels->push_back({buffer[i], buffer[i + 1], buffer[i + 2]});
  return !pixels->empty();
}
#endif

// Empty when the screenshot looks like the report; otherwise why not: a blank page (one colour
// almost everywhere) or a page without the charts' colours (an error page, a page of text).
std::string page_problem(const std::vector<Rgb>& pixels, bool verbose) {
  if (pixels.empty()) return "no pixels";
  std::map<int, size_t> counts;
  for (const Rgb& p : pixels) ++counts[(p.r << 16) | (p.g << 8) | p.b];
  size_t top = 0;
  for (const auto& [colour, n] : counts) top = std::max(top, n);
  const double share = static_cast<double>(top) / static_cast<double>(pixels.size());
  size_t colours_seen = 0;
  for (const std::string& hex : okabe_ito_colours()) {
    const Rgb want = parse_hex(hex);
    size_t n = 0;
    for (const Rgb& p : pixels) {
      n += std::abs(p.r - want.r) <= kColourTolerance &&
           std::abs(p.g - want.g) <= kColourTolerance && std::abs(p.b - want.b) <= kColourTolerance;
    }
    colours_seen += n >= kMinColourPixels;
  }
  if (verbose) {
    std::printf(
        "screenshot %zu pixels: commonest colour %.1f%%, %zu distinct colours, %zu of %zu "
        "palette colours\n",
        pixels.size(), share * 100, counts.size(), colours_seen, okabe_ito_colours().size());
  }
  if (share >= kBlankShare) return "blank: one colour covers " + std::to_string(share * 100) + "%";
  if (colours_seen < kMinPaletteColours) return "no chart colours";
  return "";
}

TEST(ReportBrowser, PixelCheckRejectsBlankAndColourlessPages) {
  const Rgb white{255, 255, 255}, grey{90, 90, 90}, orange{0xE6, 0x9F, 0x00}, sky{0x56, 0xB4, 0xE9},
      green{0x00, 0x9E, 0x73};
  std::vector<Rgb> page(100000, white);
  EXPECT_NE(page_problem(page, false).find("blank"), std::string::npos);
  // Text on a page (an error page): not blank, but no chart colours.
  for (size_t i = 0; i < 5000; ++i) page[i * 7] = grey;
  EXPECT_EQ(page_problem(page, false), "no chart colours");
  // Add three series' colours: a report.
  for (size_t i = 0; i < 300; ++i) {
    page[i * 11 + 1] = orange;
    page[i * 11 + 2] = sky;
    page[i * 11 + 3] = green;
  }
  EXPECT_EQ(page_problem(page, false), "");
}

TEST(ReportBrowser, ChromiumRendersTheReport) {
  if (!std::filesystem::exists(kChromium)) {
    GTEST_SKIP() << kChromium << " is absent (Debian package chromium; tools/install-deps.sh)";
  }
#ifndef MMREPLAY_HAVE_PNG
  GTEST_SKIP() << "built without libpng (Debian package libpng-dev): cannot read the screenshot";
#else
  const auto dir =
      std::filesystem::temp_directory_path() / ("report_browser_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string html = (dir / "report.html").string();
  const Status s = write_report({kFixtures + "/tiny_results.json"}, html);
  ASSERT_TRUE(s) << s.message();
  const std::string url = "file://" + html;

  // One launch: the screenshot, and the DOM Chromium built on stdout.
  const std::string png = (dir / "report.png").string();
  const std::string dom_file = (dir / "dom.html").string();
  const std::string run = chromium_command(dir, "--screenshot=" + png + " --dump-dom", url) +
                          " >'" + dom_file + "' 2>'" + (dir / "chromium.log").string() + "'";
  ASSERT_EQ(std::system(run.c_str()), 0) << run;
  std::vector<Rgb> pixels;
  ASSERT_TRUE(read_png(png, &pixels)) << png << " is not a PNG";

  const std::string problem = page_problem(pixels, /*verbose=*/true);
  EXPECT_EQ(problem, "") << png;

  std::ifstream in(dom_file);
  std::stringstream dom;
  dom << in.rdbuf();
  EXPECT_NE(dom.str().find("<h1>mmreplay report</h1>"), std::string::npos) << "not the report";
  EXPECT_EQ(dom.str().find("chrome-error"), std::string::npos) << "an error page";
  if (!std::getenv("MMREPLAY_KEEP_SCREENSHOT")) std::filesystem::remove_all(dir);
#endif
}

}  // namespace
}  // namespace mmreplay::report
