//===- Dialects.h - what every pipeline's host code needs -------*- C++ -*-===//
#pragma once

#include "mlir/IR/DialectRegistry.h"

namespace anyshape::codegen {

/// Every dialect, bufferization model and LLVM translation a pipeline
/// touches down to host code on this CPU: the whole CPU pipeline, and the
/// host half of CUDA's; shared by the compiler and anyshape-opt so both run
/// the identical pipeline.
void registerHostPipelineDialects(mlir::DialectRegistry &registry);

} // namespace anyshape::codegen
