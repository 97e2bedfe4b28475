//===- PrepareEntryAbi.cpp - @main's calling convention ----------*- C++
//-*-===//
//
// anyshape-prepare-entry-abi (see Passes.td).
//
//===----------------------------------------------------------------------===//
#include "codegen/Common/Passes.h"

#include "mlir/IR/Builders.h"

namespace anyshape::codegen {

#define GEN_PASS_DEF_PREPAREENTRYABI
#include "codegen/Common/Passes.h.inc"

using namespace mlir;

namespace {

struct PrepareEntryAbiPass : impl::PrepareEntryAbiBase<PrepareEntryAbiPass> {
  void runOnOperation() override {
    auto main = getOperation().lookupSymbol<func::FuncOp>("main");
    if (!main)
      return;
    OpBuilder b(&getContext());
    for (unsigned i = 0; i < main.getNumArguments(); ++i)
      main.setArgAttr(i, "bufferization.writable", b.getBoolAttr(false));
    main->setAttr("llvm.emit_c_interface", b.getUnitAttr());
  }
};

} // namespace
} // namespace anyshape::codegen
