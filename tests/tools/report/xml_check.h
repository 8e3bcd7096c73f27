// A tiny XML well-formedness checker for the report's SVG (no XML library is a dependency):
// one root element, tags balanced and properly nested, attribute values quoted, no attribute
// twice on an element, no raw '<' or '&' in text or attributes except as the five predefined
// entities or a numeric character reference, and nothing after the root. Also pulls out the
// <svg> elements of a page and the texts of their legends.

#pragma once

#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mmreplay::report::testing {

// Empty when `xml` is one well-formed element; otherwise what is wrong and where.
inline std::string xml_error(std::string_view xml) {
  std::vector<std::string> open;
  bool root_seen = false;
  size_t i = 0;
  auto where = [&](size_t at) { return " at byte " + std::to_string(at); };
  auto entity_ok = [&](size_t at) {
    const size_t semi = xml.find(';', at);
    if (semi == std::string_view::npos || semi - at > 10) return false;
    const std::string_view name = xml.substr(at + 1, semi - at - 1);
    if (name == "amp" || name == "lt" || name == "gt" || name == "quot" || name == "apos")
      return true;
    if (name.size() >= 2 && name[0] == '#') {
      for (size_t k = 1; k < name.size(); ++k) {
        if (!std::isdigit(static_cast<unsigned char>(name[k]))) return false;
      }
      return true;
    }
    return false;
  };
  auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
           c == '.';
  };
  while (i < xml.size()) {
    const char c = xml[i];
    if (c == '&') {
      if (!entity_ok(i)) return "bad entity" + where(i);
      ++i;
      continue;
    }
    if (c == '>') return "raw '>' in text" + where(i);
    if (c != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(c))) {
        return "text outside the root" + where(i);
      }
      ++i;
      continue;
    }
    const size_t start = i;
    const bool closing = i + 1 < xml.size() && xml[i + 1] == '/';
    i += closing ? 2 : 1;
    size_t n = i;
    while (n < xml.size() && name_char(xml[n])) ++n;
    const std::string name(xml.substr(i, n - i));
    if (name.empty()) return "tag without a name" + where(start);
    i = n;
    if (closing) {
      while (i < xml.size() && std::isspace(static_cast<unsigned char>(xml[i]))) ++i;
      if (i >= xml.size() || xml[i] != '>') return "bad closing tag </" + name + where(start);
      if (open.empty() || open.back() != name) {
        return "</" + name + "> closes " + (open.empty() ? "nothing" : "<" + open.back() + ">") +
               where(start);
      }
      open.pop_back();
      ++i;
      continue;
    }
    if (open.empty() && root_seen) return "second root <" + name + ">" + where(start);
    std::set<std::string> attributes;
    for (;;) {
      while (i < xml.size() && std::isspace(static_cast<unsigned char>(xml[i]))) ++i;
      if (i >= xml.size()) return "unterminated <" + name + where(start);
      if (xml[i] == '>' || (xml[i] == '/' && i + 1 < xml.size() && xml[i + 1] == '>')) break;
      size_t a = i;
      while (a < xml.size() && name_char(xml[a])) ++a;
      if (a == i) return "bad attribute in <" + name + ">" + where(i);
      const std::string attr(xml.substr(i, a - i));
      if (!attributes.insert(attr).second) return "attribute " + attr + " twice" + where(i);
      if (a + 1 >= xml.size() || xml[a] != '=' || (xml[a + 1] != '"' && xml[a + 1] != '\'')) {
        return "attribute " + attr + " not quoted" + where(a);
      }
      const char quote = xml[a + 1];
      size_t v = a + 2;
      for (; v < xml.size() && xml[v] != quote; ++v) {
        if (xml[v] == '<') return "raw '<' in attribute " + attr + where(v);
        if (xml[v] == '&' && !entity_ok(v)) return "bad entity in attribute " + attr + where(v);
      }
      if (v >= xml.size()) return "unterminated attribute " + attr + where(a);
      i = v + 1;
    }
    root_seen = true;
    if (xml[i] == '/') {
      i += 2;
    } else {
      open.push_back(name);
      ++i;
    }
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  if (!root_seen) return "no element";
  return "";
}

// The <svg>...</svg> elements of a page, in order (the report does not nest them).
inline std::vector<std::string> svg_elements(const std::string& html) {
  std::vector<std::string> out;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) {
    const size_t end = html.find("</svg>", at);
    if (end == std::string::npos) break;
    out.push_back(html.substr(at, end + 6 - at));
  }
  return out;
}

// The texts inside <g class="legend"> of one SVG, still escaped as in the source.
inline std::vector<std::string> legend_texts(const std::string& svg) {
  std::vector<std::string> out;
  const size_t legend = svg.find("<g class=\"legend\">");
  if (legend == std::string::npos) return out;
  for (size_t at = svg.find("<text", legend); at != std::string::npos;
       at = svg.find("<text", at + 1)) {
    const size_t open_end = svg.find('>', at);
    const size_t close = svg.find("</text>", open_end);
    out.push_back(svg.substr(open_end + 1, close - open_end - 1));
  }
  return out;
}

}  // namespace mmreplay::report::testing
