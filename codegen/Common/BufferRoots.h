//===- BufferRoots.h - the buffer a memref view is a view of ------*- C++
//-*-===//
//
// Shared by the passes that reason about which buffers ops touch after
// bufferization.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace anyshape::codegen {

/// The buffer `memref` is a view of, through subviews, reshapes and casts
/// (all view-like ops; the value itself if it is no view).
inline mlir::Value rootBuffer(mlir::Value memref) {
  while (auto view = memref.getDefiningOp<mlir::ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

} // namespace anyshape::codegen
