// PolicyKnob and PolicyValue: how a policy declares itself to the registry.
//
// A knob is a named decision point ("madv_free") with a description, a default and its values;
// a value ("lazy") installs its hook object into a PolicySet. Knobs and values are declared in the
// file that implements them and registered in builtin.cpp (register_builtin_policies()).

#pragma once

#include <functional>
#include <string>
#include <vector>

namespace mmreplay::kernelsim {

struct PolicySet;

struct PolicyValue {
  std::string name;
  std::string description;
  std::function<void(PolicySet&)> install;
};

struct PolicyKnob {
  std::string key;
  std::string description;
  std::string default_value;
  std::vector<PolicyValue> values;
};

}  // namespace mmreplay::kernelsim
