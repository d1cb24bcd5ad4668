// What template_probes.cuh's alias templates name, in a header the module does not retain.
#pragma once

namespace tp_detail {

template <bool B>
struct flag {
  static constexpr bool value = B;
};

}  // namespace tp_detail
