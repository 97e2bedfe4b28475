// The one compile routine of the service (CompileJob.h).
#include "server/worker/CompileJob.h"

#include "frontend/onnx/OnnxImport.h"
#include "server/worker/ExecutableInfo.h"
#include "server/worker/WorkerProtocol.h"

namespace anyshape::server {

compiler::CompileOptions compileOptionsFor(const CompileSettings &settings,
                                           const TensorLookup *tensors,
                                           const GraphLimits &limits) {
  compiler::CompileOptions out;
  out.pipeline.fuse = settings.fuse;
  if (settings.cuda) {
    out.backend = compiler::KernelBackend::kCuda;
    out.cuda.fuse = settings.fuse;
    out.cuda.target.smVersion = settings.smVersion;
  }
  out.staticSymbols = settings.staticSymbols;
  out.tensors = tensors;
  out.limits = limits;
  return out;
}

StatusOr<StoredExecutable> compileForCache(const v1::CompileRequest &request,
                                           const std::string &key,
                                           const TensorLookup *tensors,
                                           const GraphLimits &limits,
                                           compiler::CompileReport *report) {
  v1::Graph imported;
  if (request.model_case() == v1::CompileRequest::kOnnxModel) {
    // Here, not in the server: a model that trips the importer costs a
    // worker, not the process every request runs in.
    ANYSHAPE_ASSIGN_OR_RETURN(imported, onnx::importOnnx(request.onnx_model()));
  }
  const v1::Graph &graph =
      request.model_case() == v1::CompileRequest::kOnnxModel ? imported
                                                             : request.graph();
  ANYSHAPE_ASSIGN_OR_RETURN(CompileSettings settings,
                            resolveCompileOptions(request.options()));
  ANYSHAPE_ASSIGN_OR_RETURN(
      compiler::CompiledObject compiled,
      compiler::Compiler::compileToObject(
          graph, compileOptionsFor(settings, tensors, limits), report));
  ANYSHAPE_ASSIGN_OR_RETURN(v1::ExecutableInfo info,
                            describeExecutable(key, compiled, *report));
  return StoredExecutable{std::move(compiled.compiledGraph), std::move(info),
                          std::move(compiled.objectCode),
                          std::move(compiled.device)};
}

} // namespace anyshape::server
