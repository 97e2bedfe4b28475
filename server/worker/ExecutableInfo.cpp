#include "server/worker/ExecutableInfo.h"

#include "ir/graph/DimText.h"
#include "ir/graph/Validate.h"

namespace anyshape::server {

StatusOr<v1::ExecutableInfo>
describeExecutable(const std::string &id,
                   const compiler::CompiledObject &compiled,
                   const compiler::CompileReport &report) {
  const v1::Graph &graph = compiled.compiledGraph;
  const GraphInfo &info = compiled.info;
  v1::ExecutableInfo out;
  out.set_executable_id(id);
  out.set_target(compiled.device ? v1::TARGET_CUDA : v1::TARGET_CPU);
  for (const v1::Input &input : graph.inputs()) {
    v1::TensorSignature *s = out.add_inputs();
    s->set_name(input.name());
    *s->mutable_type() = input.type();
  }
  for (const std::string &name : graph.outputs()) {
    const SymTensorType &type = info.typeOf(info.values.at(name));
    v1::TensorSignature *s = out.add_outputs();
    s->set_name(name);
    s->mutable_type()->set_dtype(type.dtype);
    for (const SymExpr &dim : type.dims) {
      std::optional<v1::Dim> wire = toWireDim(dim);
      if (wire)
        *s->mutable_type()->add_dims() = *wire;
      else
        s->mutable_type()->add_dims()->set_dynamic(true);
    }
  }
  for (const std::string &symbol : info.symbols)
    out.add_symbols(symbol);
  out.set_kernel_count(report.kernelCount);
  out.set_kernel_functions(report.kernelFunctions);
  out.set_code_bytes(static_cast<int64_t>(compiled.objectCode.size()));
  out.set_fusion_plan(report.fusionPlan);
  for (const std::string &warning : report.warnings)
    out.add_warnings(warning);
  return out;
}

} // namespace anyshape::server
