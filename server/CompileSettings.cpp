// A compile request's options, resolved once (CompileSettings.h).
#include "server/CompileSettings.h"

#include "runtime/cuda/Chips.h"

namespace anyshape::server {

StatusOr<CompileSettings>
resolveCompileOptions(const v1::CompileOptions &options) {
  CompileSettings settings;
  switch (options.target()) {
  case v1::TARGET_UNSPECIFIED:
  case v1::TARGET_CPU:
    break;
  case v1::TARGET_CUDA:
    settings.cuda = true;
    break;
  default:
    return invalidArgument("unknown target " +
                           std::to_string(options.target()));
  }
  if (settings.cuda) {
    settings.smVersion = runtime::cuda::smVersionOf(options.cuda_arch());
    if (settings.smVersion == 0)
      return invalidArgument("unknown cuda_arch '" + options.cuda_arch() +
                             "' (" + runtime::cuda::chipList() + ")");
  } else if (!options.cuda_arch().empty()) {
    return invalidArgument("cuda_arch is for target CUDA");
  }
  settings.fuse = !options.disable_fusion();
  settings.staticSymbols.insert(options.static_symbols().begin(),
                                options.static_symbols().end());
  return settings;
}

} // namespace anyshape::server
