// Hashing the key's parts with explicit lengths, so that no two different
// part lists produce the same byte stream.
#include "server/cache/CacheKey.h"

#include "BuildId.h"
#include "ir/graph/Fingerprint.h"
#include "jit/HostTarget.h"
#include "runtime/cuda/Chips.h"
#include "runtime/cuda/NvJitLink.h"

#include "llvm/Config/llvm-config.h"

#include <xxhash.h>

#include <algorithm>

namespace anyshape::server {
namespace {

constexpr const char *kSchemaVersion = "anyshape.v1";

void addPart(XXH3_state_t *state, const std::string &part) {
  uint64_t size = part.size();
  XXH3_128bits_update(state, &size, sizeof(size));
  XXH3_128bits_update(state, part.data(), part.size());
}

} // namespace

bool isCacheKey(const std::string &text) {
  return text.size() == 32 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

const std::string &compilerIdentity() {
  static const std::string identity =
      std::string(kSchemaVersion) + ";build=" + ANYSHAPE_BUILD_ID +
      ";llvm=" + LLVM_VERSION_STRING + ";" + jit::hostTarget().description();
  return identity;
}

namespace {

/// The key of `model` (what identifies the graph) compiled with `settings`.
std::string keyOf(const std::string &model, const CompileSettings &settings,
                  int64_t maxElementsPerTensor) {
  XXH3_state_t *state = XXH3_createState();
  XXH3_128bits_reset(state);
  addPart(state, compilerIdentity());
  addPart(state,
          std::to_string(settings.cuda ? v1::TARGET_CUDA : v1::TARGET_CPU));
  // A CUDA compile's cubins are for one chip, linked by one nvJitLink.
  // The driver's version is not in the key: a cubin runs on any driver
  // at least as new as its toolkit, and a fleet's cache is filled by
  // servers that may have no driver at all.
  if (settings.cuda)
    addPart(state, "cuda_arch=" + runtime::cuda::chipName(settings.smVersion) +
                       ";" + runtime::cuda::cubinLinkerVersion());
  addPart(state, settings.fuse ? "fused" : "unfused");
  addPart(state, std::to_string(settings.staticSymbols.size()));
  for (const auto &[name, size] : settings.staticSymbols) {
    addPart(state, name);
    addPart(state, std::to_string(size));
  }
  addPart(state, "max_elements=" + std::to_string(maxElementsPerTensor));
  addPart(state, model);
  XXH128_hash_t hash = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  return Fingerprint{hash.high64, hash.low64}.hex();
}

} // namespace

StatusOr<std::string> compileCacheKey(const v1::Graph &graph,
                                      const CompileSettings &settings,
                                      int64_t maxElementsPerTensor) {
  ANYSHAPE_ASSIGN_OR_RETURN(Fingerprint fingerprint, fingerprintGraph(graph));
  // The fingerprint is positional; Execute maps a request's input and
  // output names through the graph the key stands for, so the names are
  // part of the key (two namings of one graph are two executables).
  std::string model = "graph=" + fingerprint.hex();
  for (const v1::Input &input : graph.inputs())
    model += ";in=" + std::to_string(input.name().size()) + ":" + input.name();
  for (const std::string &output : graph.outputs())
    model += ";out=" + std::to_string(output.size()) + ":" + output;
  return keyOf(model, settings, maxElementsPerTensor);
}

std::string onnxCacheKey(const std::string &modelBytes,
                         const CompileSettings &settings,
                         int64_t maxElementsPerTensor) {
  XXH128_hash_t hash = XXH3_128bits(modelBytes.data(), modelBytes.size());
  return keyOf("onnx=" + Fingerprint{hash.high64, hash.low64}.hex(), settings,
               maxElementsPerTensor);
}

} // namespace anyshape::server
