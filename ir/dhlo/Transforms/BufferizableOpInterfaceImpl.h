//===- BufferizableOpInterfaceImpl.h - dhlo.fusion bufferized ---*- C++ -*-===//
#pragma once

#include "mlir/IR/DialectRegistry.h"

namespace anyshape::dhlo {

/// One-Shot Bufferize support for dhlo.fusion and dhlo.yield: a fusion's
/// results are equivalent to the buffers it yields, so a kernel's ops
/// bufferize in place exactly as they would outside one.
void registerBufferizableOpInterfaceExternalModels(
    mlir::DialectRegistry &registry);

} // namespace anyshape::dhlo
