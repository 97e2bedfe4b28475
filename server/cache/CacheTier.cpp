// The device half of a stored executable, as the worker protocol and the
// disk cache carry it (CacheTier.h). Apart from the compile cache so that
// what reads entries (a tier, the cache-entry fuzz target) needs no more.
#include "server/cache/CacheTier.h"

namespace anyshape::server {

v1::DeviceCode deviceCodeToProto(const jit::DeviceCode &device) {
  v1::DeviceCode out;
  for (const runtime::cuda::KernelImage &kernel : device.kernels) {
    v1::DeviceKernel *k = out.add_kernels();
    k->set_name(kernel.name);
    k->set_entry(kernel.entry);
    k->set_cubin(kernel.cubin);
    k->set_max_threads(kernel.maxThreads);
    for (int bytes : kernel.parameterBytes)
      k->add_parameter_bytes(bytes);
  }
  out.set_constants(device.constants);
  return out;
}

jit::DeviceCode deviceCodeFromProto(const v1::DeviceCode &device) {
  jit::DeviceCode out;
  for (const v1::DeviceKernel &k : device.kernels())
    out.kernels.push_back({k.name(), k.entry(), k.cubin(), k.max_threads(),
                           std::vector<int>(k.parameter_bytes().begin(),
                                            k.parameter_bytes().end())});
  out.constants = device.constants();
  return out;
}

} // namespace anyshape::server
