#include "codegen/CPU/CpuTarget.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

namespace anyshape::codegen {

const CpuTarget &CpuTarget::host() {
  static const CpuTarget target = [] {
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    CpuTarget t;
    if (features.lookup("avx512f"))
      t.vectorBytes = 64;
    else if (features.lookup("avx"))
      t.vectorBytes = 32;
    else
      t.vectorBytes = 16;
    t.transposeWideWeights = !features.lookup("avx512f");
    return t;
  }();
  return target;
}

} // namespace anyshape::codegen
