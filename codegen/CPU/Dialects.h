//===- Dialects.h - what the CPU pipeline needs registered -------*- C++
//-*-===//
#pragma once

#include "mlir/IR/DialectRegistry.h"

namespace anyshape::codegen {

/// Every dialect, bufferization model and LLVM translation the CPU
/// pipeline touches; shared by the compiler and anyshape-opt so both run
/// the identical pipeline.
void registerCpuPipelineDialects(mlir::DialectRegistry &registry);

} // namespace anyshape::codegen
